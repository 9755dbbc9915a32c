import BriefcaseKit
import CSystemShims
import Foundation

/// Writes a folder briefcase as a whole: into a temporary folder next to the destination, which
/// then takes the destination's place, so a failed conversion leaves nothing behind. An existing
/// folder is swapped with the new one in one step (renameat2 RENAME_EXCHANGE), so at every moment
/// the destination holds the old briefcase or the new one.
enum FolderOutput {
    static func write(_ document: BriefcaseDocument, to path: String, codePage: CodePage) throws {
        try write(to: path) { temporary in
            try Briefcase.make(from: document, at: temporary, kind: .folder, codePage: codePage).write()
        }
    }

    /// Runs `build` to write the folder briefcase at a temporary path, then moves it into place.
    static func write(to path: String, build: (_ temporary: String) throws -> Void) throws {
        let fm = FileManager.default
        var trimmed = path
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        let url = URL(fileURLWithPath: trimmed)
        let parent = url.deletingLastPathComponent().path
        let temporary = parent + "/." + url.lastPathComponent + ".tmp-" + UUID().uuidString
        do {
            try build(temporary)
            if fm.fileExists(atPath: trimmed) {
                if briefcase_exchange_paths(temporary, trimmed) == 0 {
                    try? fm.removeItem(atPath: temporary) // now holds the old briefcase
                    return
                }
                // No atomic exchange here: move the old one aside, then the new one in.
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
