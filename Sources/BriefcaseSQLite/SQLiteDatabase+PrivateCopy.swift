import BriefcaseKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SQLiteDatabase {
    /// The files of a database to read (Spec/sqlite-mapping.md §7): the database itself (a regular
    /// file, never a FIFO or device) and what SQLite would write beside it to read it.
    struct ReadOnlyFiles {
        let path: String
        /// The database is in WAL mode (its header's read and write versions are 2).
        let isWAL: Bool
        /// `-wal` and `-journal` files beside it, as SQLite names them.
        let companions: [String]
        /// The bytes of the database and its companions: no value read can be longer.
        let size: Int

        init(_ path: String) throws(BriefcaseError) {
            self.path = path
            let (fd, status) = try FileIO.openRegularFile(path)
            defer { close(fd) }
            var header = [UInt8](repeating: 0, count: 20)
            let count = header.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 20, 0) }
            isWAL = count == 20 && header[18] == 2 && header[19] == 2
            var size = Int(status.st_size)
            var companions: [String] = []
            for suffix in ["-wal", "-journal"] {
                var info = stat()
                guard lstat(systemPath(path + suffix), &info) == 0 else { continue }
                guard (info.st_mode & S_IFMT) == S_IFREG else {
                    throw BriefcaseError(.io, "'\(path + suffix)' beside the database is not a regular file", file: path)
                }
                companions.append(suffix)
                size += Int(info.st_size)
            }
            self.companions = companions
            self.size = size
        }

        /// SQLite cannot read such a database read-only without writing beside it: in WAL mode it
        /// makes `-shm` (and `-wal` when there is none); with a journal it must roll it back.
        var needsPrivateCopy: Bool { isWAL || !companions.isEmpty }
    }

    /// A copy of a database and its `-wal` / `-journal` in a private temporary folder (TMPDIR),
    /// which SQLite opens instead: committed data in a WAL is read, an unfinished transaction
    /// rolled back, and nothing appears beside the original. The folder is registered for removal
    /// on a signal (`TemporaryPaths`) and removed with the connection.
    final class PrivateCopy {
        let folder: String
        let database: String
        private let registration: Int

        init(of files: ReadOnlyFiles) throws(BriefcaseError) {
            var directory = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
            if directory.isEmpty { directory = "/tmp" }
            var template = Array("\(directory)/briefcase-sqlite-XXXXXX".utf8CString)
            let (made, token): (String?, Int?) = TemporaryPaths.withLock { registry in
                guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else { return (nil, nil) }
                let folder = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
                return (folder, registry.register(folder))
            }
            guard let made, let token else { throw FileIO.ioError("cannot create a private copy of the database in", directory) }
            folder = made
            registration = token
            database = made + "/database.sqlite"
            do throws(BriefcaseError) {
                try Self.copy(files.path, to: database)
                for suffix in files.companions { try Self.copy(files.path + suffix, to: database + suffix) }
            } catch {
                remove()
                throw error
            }
        }

        deinit { remove() }

        private func remove() {
            for suffix in ["", "-wal", "-journal", "-shm"] { unlink(database + suffix) }
            rmdir(folder)
            TemporaryPaths.unregister(registration)
        }

        private static func copy(_ source: String, to destination: String) throws(BriefcaseError) {
            let (input, _) = try FileIO.openRegularFile(source)
            defer { close(input) }
            let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard output >= 0 else { throw FileIO.ioError("cannot copy the database", source) }
            defer { close(output) }
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n >= 0 else { throw FileIO.ioError("cannot read", source) }
                if n == 0 { return }
                var done = 0
                while done < n {
                    let w = buffer.withUnsafeBytes { write(output, $0.baseAddress! + done, n - done) }
                    if w < 0 && errno == EINTR { continue }
                    guard w > 0 else { throw FileIO.ioError("cannot copy the database to", destination) }
                    done += w
                }
            }
        }
    }
}
