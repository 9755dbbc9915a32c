import BriefcaseKit
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension FolderOutput {
    /// The folder a conversion writes into, next to the destination: `.NAME.tmp-PID-XXXXXX`
    /// (`mkdtemp`), registered for removal if the process is interrupted (`TemporaryPaths`), and
    /// held with an `flock` on a descriptor of it until it is moved into place or removed, so that
    /// a later conversion to the same destination removes it only if this process is gone
    /// (`TemporaryPaths.removeStale`, which runs first).
    struct Temporary {
        let path: String
        let registration: Int
        let descriptor: Int32

        init(for destination: String) throws(BriefcaseError) {
            let (directory, base) = TemporaryPaths.place(of: trimmingSlashes(destination))
            TemporaryPaths.removeStale(in: directory, of: base)
            var template = TemporaryPaths.template(in: directory, for: base)
            let (made, registration, failure): (Bool, Int, Int32) = TemporaryPaths.withLock { registry in
                let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) } != nil
                return made ? (true, registry.register(TemporaryPaths.string(template)), 0) : (false, 0, errno)
            }
            guard made else {
                errno = failure
                throw BriefcaseError(.io, "cannot create a temporary folder next to the output: \(String(cString: strerror(errno)))", file: destination)
            }
            path = TemporaryPaths.string(template)
            self.registration = registration
            descriptor = open(systemPath(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else {
                let error = BriefcaseError(.io, "cannot open the temporary folder: \(String(cString: strerror(errno)))", file: path)
                FolderReplacement.removeTree(path)
                TemporaryPaths.unregister(registration)
                throw error
            }
            TemporaryPaths.hold(descriptor)
            // mkdtemp makes it private (0700); the briefcase gets a folder's usual mode.
            let mask = umask(0o022)
            umask(mask)
            _ = fchmod(descriptor, 0o777 & ~mask)
        }
    }

    /// Moves the finished folder into `path`'s place: over an existing folder briefcase only
    /// when `replacing` (`FolderReplacement.replace`), and no longer held.
    static func replace(_ path: String, with temporary: Temporary, replacing: Bool) throws(BriefcaseError) {
        try TemporaryPaths.withLock { (registry: inout TemporaryPaths.Registry) throws(BriefcaseError) in
            try FolderReplacement.replace(trimmingSlashes(path), with: temporary.path, replacing: replacing)
            registry.unregister(temporary.registration)
        }
        close(temporary.descriptor)
    }

    /// Removes the temporary folder after a failure — if its name still holds the folder made
    /// (the one held open): after a failed replacement it could hold what was swapped out.
    static func remove(_ temporary: Temporary) {
        var held = stat(), named = stat()
        if fstat(temporary.descriptor, &held) == 0, lstat(systemPath(temporary.path), &named) == 0,
           held.st_dev == named.st_dev, held.st_ino == named.st_ino {
            FolderReplacement.removeTree(temporary.path)
        }
        TemporaryPaths.unregister(temporary.registration)
        close(temporary.descriptor)
    }
}
