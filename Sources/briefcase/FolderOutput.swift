import BriefcaseKit
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder output is written into a temporary folder next to the destination, which then takes
/// the destination's place (`FolderReplacement`), so a failed conversion leaves nothing behind and
/// the destination always holds the old briefcase or the new one.
enum FolderOutput {
    /// Refuses (exit 2, before anything is read) an OUTPUT whose replacement could lose a
    /// directory: the current directory or one of its ancestors, a directory holding the input,
    /// a directory that is not a folder briefcase (naming its first foreign entry), or any
    /// existing directory when the output is a single file. With or without --force.
    static func checkDestination(_ output: String, format: FileFormat, input: String) throws {
        guard output != "-" else { return }
        var info = stat()
        guard lstat(systemPath(output), &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return }
        guard format == .folder else {
            throw UsageError("'\(output)' is a directory; a \(format.rawValue) output cannot replace it")
        }
        let target = canonical(output)
        let here = canonical(".")
        if target == here { throw UsageError("'\(output)' is the current directory; it cannot be replaced") }
        if here.hasPrefix(target == "/" ? "/" : target + "/") {
            throw UsageError("'\(output)' holds the current directory; it cannot be replaced")
        }
        if input != "-", FileIO.exists(input) {
            let source = canonical(input)
            if source == target || source.hasPrefix(target + "/") {
                throw UsageError("'\(output)' holds the input '\(input)'; it cannot be replaced by the conversion")
            }
        }
        if let foreign = try FolderReplacement.foreignEntry(in: output) {
            throw UsageError("'\(output)' is not a folder briefcase (it holds '\(foreign)'); it is not replaced")
        }
    }

    /// The absolute path with every directory resolved (`realpath`), the last component kept as
    /// named unless it is `.` or `..`: what a rename of `path` would replace.
    private static func canonical(_ path: String) -> String {
        let trimmed = trimmingSlashes(path)
        let last = trimmed.split(separator: "/").last.map(String.init) ?? "/"
        if last == "." || last == ".." || last == "/" { return resolved(trimmed) ?? trimmed }
        let parent = trimmed.contains("/") ? String(trimmed[..<trimmed.lastIndex(of: "/")!]) : "."
        let directory = resolved(parent.isEmpty ? "/" : parent) ?? parent
        return (directory == "/" ? "" : directory) + "/" + last
    }

    private static func resolved(_ path: String) -> String? {
        guard let pointer = realpath(systemPath(path), nil) else { return nil }
        defer { free(pointer) }
        return SystemPath.string(cString: pointer)
    }

    static func trimmingSlashes(_ path: String) -> String {
        var trimmed = path
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        return trimmed
    }
}
