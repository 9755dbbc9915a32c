import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The names of temporary outputs, and the removal of those a killed process left
/// (Spec/robustness.md §6.2). A temporary file or folder for `DIR/NAME` is `DIR/.NAME.tmp-PID-XXXXXX`:
/// PID is the writing process, XXXXXX what `mkstemp`/`mkdtemp` make unique. Its writer holds an
/// exclusive `flock` on it (the file's descriptor, or one opened on the folder) for as long as it
/// exists. A later write of `DIR/NAME` removes such a name only when both say its writer is gone:
/// no process has that PID, and the lock can be taken. A PID reused by another process keeps a
/// leftover (harmless: hidden, and removed once that process ends); a live writer in another PID
/// namespace keeps its lock. Nothing else is ever removed: not other names, not the `.NAME.old-…`
/// folder that a replacement without an atomic exchange moves aside (it may hold the only copy of
/// a briefcase), not temporaries of older versions (no PID in their name).
extension TemporaryPaths {
    /// The directory of `path` and its last component.
    package static func place(of path: String) -> (directory: String, base: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    /// The `mkstemp`/`mkdtemp` template of a temporary for `base` in `directory`, as a C string.
    package static func template(in directory: String, for base: String) -> [CChar] {
        systemPath("\(directory)/.\(base).tmp-\(getpid())-XXXXXX")
    }

    /// A C string filled by `mkstemp`/`mkdtemp`, as a String.
    package static func string(_ cString: [CChar]) -> String {
        cString.withUnsafeBytes { SystemPath.string($0.bindMemory(to: UInt8.self)) }
    }

    /// Takes the exclusive `flock` that marks a temporary as being written, held until `fd` is
    /// closed. (A file system without flock leaves it untaken: a leftover is then never found stale.)
    package static func hold(_ fd: Int32) {
        while flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EINTR {}
    }

    /// The process id in `name` when it is the name of one of our temporaries — of `base`, or of
    /// any output when `base` is nil: `.BASE.tmp-PID-XXXXXX`, XXXXXX six letters or digits.
    static func writer(ofTemporaryNamed name: String, base: String?) -> pid_t? {
        let bytes = Array(name.utf8)
        guard bytes.count >= 15, bytes.first == UInt8(ascii: ".") else { return nil }
        let unique = bytes.suffix(6)
        guard unique.allSatisfy({ isLetterOrDigit($0) }), bytes[bytes.count - 7] == UInt8(ascii: "-") else { return nil }
        // Back over the digits of the PID, then ".tmp-" must end the prefix.
        var start = bytes.count - 7
        while start > 0, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[start - 1]) { start -= 1 }
        let digits = bytes[start ..< bytes.count - 7]
        let marker = Array(".tmp-".utf8)
        guard !digits.isEmpty, digits.count <= 10, start >= marker.count + 1,
              Array(bytes[start - marker.count ..< start]) == marker else { return nil }
        if let base, Array(bytes[1 ..< start - marker.count]) != Array(base.utf8) { return nil }
        guard let pid = Int32(String(decoding: digits, as: UTF8.self)), pid > 0 else { return nil }
        return pid
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    /// Removes from `directory` the temporaries of `base` (of any output when nil) whose writer is
    /// gone: its PID names no live process and its flock can be taken (held while removing). A
    /// folder is removed with what is in it. Errors are ignored: a leftover stays a hidden name.
    package static func removeStale(in directory: String, of base: String?) {
        guard let names = FileIO.directoryEntries(directory) else { return }
        for name in names {
            guard let pid = writer(ofTemporaryNamed: name, base: base) else { continue }
            if kill(pid, 0) == 0 || errno != ESRCH { continue }  // alive (or not ours to ask: EPERM)
            let path = directory + "/" + name
            let fd = open(systemPath(path), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var info = stat()
            guard flock(fd, LOCK_EX | LOCK_NB) == 0, fstat(fd, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: FolderReplacement.removeTree(path)
            case S_IFREG: unlink(systemPath(path))
            default: continue
            }
        }
    }
}

extension BriefcaseError {
    /// The message of `outputExists`, by which a caller tells that error from others.
    package static let outputExistsMessage = "exists, and is not replaced (ask for replacement to replace it)"

    /// Something is at `path`, where a writer not asked to replace was to create its output
    /// (there at the start, or put there while the output was written): nothing was changed.
    package static func outputExists(_ path: String) -> BriefcaseError {
        BriefcaseError(.io, outputExistsMessage, file: path)
    }

    /// True for `outputExists`.
    package var isOutputExists: Bool { kind == .io && message == Self.outputExistsMessage }
}
