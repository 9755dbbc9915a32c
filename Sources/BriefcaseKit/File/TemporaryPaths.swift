import CSystemShims
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The temporary files and folders a write has made and not yet moved into place, so that a
/// process ending on a signal can remove them (`removeAllAndExit`). A path is registered in the
/// same locked step that creates it, and leaves the registry in the same locked step that
/// renames it into place, so the cleanup never sees a half-made name nor removes a finished
/// output. Each path is also noted in static C memory (`briefcase_temporary_note`), where the
/// SIGBUS handler of a truncated mapped input finds it without allocating (`briefcase_fault_install`).
package enum TemporaryPaths {
    /// The paths registered and not yet moved into place or removed.
    package struct Registry {
        /// Each path with its slot in the C registry (-1: not noted there).
        fileprivate var paths: [Int: (path: String, slot: Int32)] = [:]
        fileprivate var nextToken = 0

        /// Registers a path to remove if the process is interrupted; the token unregisters it.
        package mutating func register(_ path: String) -> Int {
            nextToken += 1
            paths[nextToken] = (path, briefcase_temporary_note(path))
            return nextToken
        }

        /// Forgets the path registered with `token` (it was moved into place or removed).
        package mutating func unregister(_ token: Int) {
            if let removed = paths.removeValue(forKey: token) { briefcase_temporary_forget(removed.slot) }
        }
    }

    private static let registry = Mutex(Registry())

    /// Runs `body` with the registry locked: creating and registering a path, or renaming one
    /// into place and unregistering it, happen inside one such call (never one inside another).
    package static func withLock<T: Sendable, E: Error>(_ body: (inout Registry) throws(E) -> T) throws(E) -> T {
        try registry.withLock { (registry: inout Registry) throws(E) -> T in try body(&registry) }
    }

    /// Registers a path to remove if the process is interrupted; the token unregisters it.
    package static func register(_ path: String) -> Int {
        withLock { $0.register(path) }
    }

    /// Forgets the path registered with `token` (it was moved into place or removed).
    package static func unregister(_ token: Int) {
        withLock { $0.unregister(token) }
    }

    /// Removes every registered path (files, then folders with everything in them) and ends the
    /// process with `status`, the registry locked to the end, so that no write can make or commit
    /// anything more meanwhile.
    package static func removeAllAndExit(_ status: Int32) -> Never {
        registry.withLock { (registry: inout Registry) -> Never in
            var folders: [String] = []
            for (path, _) in registry.paths.values {
                var info = stat()
                guard lstat(systemPath(path), &info) == 0 else { continue }
                if (info.st_mode & S_IFMT) == S_IFDIR { folders.append(path) } else { unlink(systemPath(path)) }
            }
            for folder in folders {
                // A file being written inside the folder may appear while it is emptied: try again.
                for _ in 0..<3 where FileIO.exists(folder) { FileIO.removeTree(folder) }
            }
            _exit(status)
        }
    }
}
