#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What the package did with `FileManager` on paths: listing, creating and removing folders,
/// asking whether a path is a folder. `FileManager` takes a path as a `String` and hands the
/// system its UTF-8, so a name that is not UTF-8 (`SystemPath`) would reach another file; these
/// take every path through `systemPath(_:)` and read the names the system gives back with
/// `SystemPath.string(_:)`.
extension FileIO {
    /// The names in the directory at `path` (without `.` and `..`), in the order the system
    /// gives them; nil when it cannot be listed (`errno` says why).
    package static func directoryEntries(_ path: String) -> [String]? {
        guard let directory = opendir(systemPath(path)) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while true {
            errno = 0 // readdir's end and its failure differ only by errno
            guard let entry = readdir(directory) else { break }
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { SystemPath.string($0.bindMemory(to: UInt8.self)) }
            if name != "." && name != ".." { names.append(name) }
        }
        return errno == 0 ? names : nil
    }

    /// True when `path` is a directory (a symbolic link to one counts), false when it is something
    /// else, nil when nothing is there.
    package static func isDirectory(_ path: String) -> Bool? {
        var info = stat()
        guard stat(systemPath(path), &info) == 0 else { return nil }
        return (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Creates the directory at `path` and those above it that are missing (`mkdir -p`); an
    /// existing directory is fine. False on failure (`errno` says why).
    package static func makeDirectories(_ path: String) -> Bool {
        if isDirectory(path) == true { return true }
        var prefix = ""
        for (i, component) in path.split(separator: "/", omittingEmptySubsequences: false).enumerated() {
            prefix += i == 0 ? String(component) : "/" + component
            guard !component.isEmpty, component != "." else { continue }
            if mkdir(systemPath(prefix), 0o777) != 0 && !(errno == EEXIST && isDirectory(prefix) == true) { return false }
        }
        return true
    }

    /// Removes `path` and, when it is a directory (not a link to one), everything in it, as well
    /// as it can: what cannot be removed is left.
    package static func removeTree(_ path: String) {
        var info = stat()
        guard lstat(systemPath(path), &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            unlink(systemPath(path))
            return
        }
        for name in directoryEntries(path) ?? [] { removeTree(path + "/" + name) }
        rmdir(systemPath(path))
    }
}
