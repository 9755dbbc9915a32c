import BriefcaseKit
import Foundation

/// Writes a folder briefcase as a whole: into a temporary folder next to the destination, which
/// then takes the destination's place, so a failed conversion leaves nothing behind.
enum FolderOutput {
    static func write(_ document: BriefcaseDocument, to path: String, codePage: CodePage) throws {
        let fm = FileManager.default
        var trimmed = path
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        let url = URL(fileURLWithPath: trimmed)
        let parent = url.deletingLastPathComponent().path
        let temporary = parent + "/." + url.lastPathComponent + ".tmp-" + UUID().uuidString
        do {
            try Briefcase.make(from: document, at: temporary, kind: .folder, codePage: codePage).write()
            if fm.fileExists(atPath: trimmed) {
                let old = parent + "/." + url.lastPathComponent + ".old-" + UUID().uuidString
                try fm.moveItem(atPath: trimmed, toPath: old)
                try fm.moveItem(atPath: temporary, toPath: trimmed)
                try? fm.removeItem(atPath: old)
            } else {
                try fm.moveItem(atPath: temporary, toPath: trimmed)
            }
        } catch {
            try? fm.removeItem(atPath: temporary)
            if let error = error as? BriefcaseError { throw error }
            throw BriefcaseError(.io, "cannot write the folder: \(error.localizedDescription)", file: path)
        }
    }
}
