#if canImport(Glibc)
import Glibc
#endif

/// A read-only file read in pieces with `pread`, so a briefcase can be opened and one table
/// decoded without reading the others. Counts the bytes it reads (tests check laziness with it).
public final class RandomAccessFile: @unchecked Sendable {
    public let path: String
    public let size: Int
    private let fd: Int32
    /// Bytes read so far through this handle.
    public private(set) var bytesRead = 0

    public init(path: String) throws(BriefcaseError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileIO.ioError("cannot open", path) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            close(fd)
            throw FileIO.ioError("cannot read", path)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw BriefcaseError(.io, "not a regular file", file: path)
        }
        self.path = path
        self.fd = fd
        self.size = Int(info.st_size)
    }

    deinit { close(fd) }

    /// The bytes at `range` (clamped to the file).
    public func read(_ range: Range<Int>) throws(BriefcaseError) -> [UInt8] {
        let lower = max(0, min(range.lowerBound, size)), upper = max(lower, min(range.upperBound, size))
        var bytes = [UInt8](repeating: 0, count: upper - lower)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, $0.count - done, off_t(lower + done)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw FileIO.ioError("cannot read", path) }
            done += n
        }
        bytesRead += bytes.count
        return bytes
    }

    /// A reader over `range`, its indices being file offsets.
    public func reader(_ range: Range<Int>) throws(BriefcaseError) -> ByteReader {
        let lower = max(0, min(range.lowerBound, size))
        return ByteReader(bytes: try read(range), base: lower)
    }
}
