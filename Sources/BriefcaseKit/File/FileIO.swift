import CSystemShims
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole-file reads and crash-safe writes.
public enum FileIO {
    /// Called while `read` runs, with bytes read so far and the file size (0 when unknown), so a
    /// command line tool can show progress. Set it from one thread before reading.
    nonisolated(unsafe) public static var readProgress: ((_ done: Int, _ total: Int) -> Void)?

    /// Reads a whole file (or standard input for "-") into one contiguous buffer.
    public static func read(_ path: String) throws(BriefcaseError) -> [UInt8] {
        let fd = path == "-" ? 0 : try openRegularFile(path).descriptor
        defer { if fd != 0 { close(fd) } }
        var info = stat()
        var bytes: [UInt8] = []
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
            // A regular file: read straight into a buffer of its size, not through a chunk that
            // is then copied (a file that grows meanwhile goes on in chunks below).
            let size = Int(info.st_size)
            var failed = false
            bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
                while initialized < size {
                    readProgress?(initialized, size)
                    let n = SystemCall.read(fd, buffer.baseAddress! + initialized, min(size - initialized, 1 << 24))
                    if n < 0 && errno == EINTR { continue }
                    if n < 0 { failed = true }
                    if n <= 0 { break }
                    initialized += n
                }
            }
            if failed { throw ioError("cannot read", path) }
            if bytes.count < size { return bytes } // the file shrank meanwhile: it ends here
        }
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw BriefcaseError(.invalidData, "is a directory", file: path)
        }
        let total = bytes.capacity
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            readProgress?(bytes.count, total)
            let n = chunk.withUnsafeMutableBytes { SystemCall.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ioError("cannot read", path)
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return bytes
    }

    /// Writes `bytes` to `path` atomically: a temporary file in the same directory, flushed, then
    /// renamed to `path`. Something already at `path` — there before, or put there while writing —
    /// is an error (`replacing: true` replaces it). "-" writes to standard output.
    public static func writeAtomically(_ bytes: [UInt8], to path: String, replacing: Bool = false) throws(BriefcaseError) {
        try writeAtomically(bytes, to: path, replacing: replacing, removingStale: true)
    }

    /// `removingStale: false` in a folder no killed write can have left a temporary in (`AtomicOutput`).
    static func writeAtomically(_ bytes: [UInt8], to path: String, replacing: Bool, removingStale: Bool) throws(BriefcaseError) {
        var output = try AtomicOutput(path: path, replacing: replacing, removingStale: removingStale)
        do {
            try output.write(bytes)
            try output.commit()
        } catch {
            output.discard()
            throw error
        }
    }

    /// A temporary file in `directory` (default: TMPDIR, else /tmp) named `prefix-XXXXXX`, unlinked
    /// at once: it has no name from the start, so nothing is left behind even after SIGKILL.
    /// Returns its descriptor.
    static func makeUnlinkedTemporaryFile(prefix: String, in given: String? = nil) throws(BriefcaseError) -> Int32 {
        var directory = given ?? getenv("TMPDIR").map { SystemPath.string(cString: $0) } ?? "/tmp"
        if directory.isEmpty { directory = "/tmp" }
        var template = systemPath("\(directory)/\(prefix)-XXXXXX")
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw ioError("cannot create a temporary file", directory) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return fd
    }

    package static func ioError(_ what: String, _ path: String) -> BriefcaseError {
        BriefcaseError(.io, "\(what): \(String(cString: strerror(errno)))", file: path)
    }
}

extension FileIO {
    /// Up to `count` bytes from the start of a file (for recognising its format).
    public static func readPrefix(_ path: String, count: Int) throws(BriefcaseError) -> [UInt8] {
        let fd = try openRegularFile(path).descriptor
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: count)
        let n = buffer.withUnsafeMutableBytes { SystemCall.read(fd, $0.baseAddress, count) }
        guard n >= 0 else { throw ioError("cannot read", path) }
        return Array(buffer[0..<n])
    }

    /// True when something exists at `path`.
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(systemPath(path), &info) == 0
    }
}
