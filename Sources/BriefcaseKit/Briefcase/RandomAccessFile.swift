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
        let (fd, size) = try FileIO.openRegularFile(path)
        self.path = path
        self.fd = fd
        self.size = size
    }

    deinit { close(fd) }

    /// The bytes at `range` (clamped to the file).
    public func read(_ range: Range<Int>) throws(BriefcaseError) -> [UInt8] {
        let lower = max(0, min(range.lowerBound, size)), upper = max(lower, min(range.upperBound, size))
        // Not zero-filled first: a conversion reads the whole file through here, and clearing
        // every byte before pread overwrites it cost as much as a quarter of decoding.
        let count = upper - lower
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var done = 0
            while done < count {
                let n = pread(fd, buffer.baseAddress! + done, count - done, off_t(lower + done))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { failed = true; break }
                done += n
            }
            initialized = failed ? 0 : count
        }
        guard !failed else { throw FileIO.ioError("cannot read", path) }
        bytesRead += bytes.count
        return bytes
    }

    /// The bytes at `range` (clamped to the file), read into `spare`'s memory when nothing else
    /// holds it any more (a conversion reads element after element: their memory is then mapped
    /// once, not faulted in anew for each). `spare` keeps a reference for the next call; when
    /// something still shares it, the array's copy-on-write gives fresh memory instead.
    public func read(_ range: Range<Int>, reusing spare: inout [UInt8]) throws(BriefcaseError) -> [UInt8] {
        let lower = max(0, min(range.lowerBound, size)), upper = max(lower, min(range.upperBound, size))
        let count = upper - lower
        var bytes = spare
        spare = []
        guard bytes.capacity >= count else {
            bytes = try read(range)
            spare = bytes
            return bytes
        }
        if bytes.count > count {
            bytes.removeLast(bytes.count - count)
        } else {
            // Only the growth is filled before being overwritten (in blocks: appending a
            // repeated element goes byte by byte).
            var missing = count - bytes.count
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: min(missing, 1 << 16)) { zeros in
                zeros.initialize(repeating: 0)
                while missing > 0 {
                    let n = min(missing, zeros.count)
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: zeros[0 ..< n]))
                    missing -= n
                }
            }
        }
        var failed = false
        bytes.withUnsafeMutableBytes { buffer in
            var done = 0
            while done < count {
                let n = pread(fd, buffer.baseAddress! + done, count - done, off_t(lower + done))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { failed = true; return }
                done += n
            }
        }
        guard !failed else { throw FileIO.ioError("cannot read", path) }
        bytesRead += count
        spare = bytes
        return bytes
    }

    /// A reader over `range`, its indices being file offsets.
    public func reader(_ range: Range<Int>) throws(BriefcaseError) -> ByteReader {
        let lower = max(0, min(range.lowerBound, size))
        return ByteReader(bytes: try read(range), base: lower)
    }
}
