#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes written now and read back later, in any order: the part of an output that can only be
/// written at the end (the snapshot export's pending changes and its `briefcase` member). Up to
/// `memoryLimit` bytes stay in memory; past that they go to an unlinked temporary file (in
/// TMPDIR, as `SpooledInput`'s), so memory holds a write buffer and a read window whatever the
/// total, and nothing is left on disk even after SIGKILL. When no temporary file can be made or
/// written (a full disk), the bytes simply stay in memory, as if there were no limit.
///
/// The buffers are allocated by hand so that `bytes(_:)` can hand out a pointer into them (a
/// closure-based read costs a generic call per piece, and the export reads several per change).
package final class ByteSpool {
    /// Bytes appended so far.
    package private(set) var count = 0
    /// Bytes at offsets `fileCount..<count`, not in the file (all of them while there is none).
    private var memory: UnsafeMutableRawPointer
    private var memoryCapacity: Int
    /// Bytes at offsets `0..<fileCount` are in the file.
    private var fileCount = 0
    private var descriptor: Int32 = -1
    /// True once a temporary file could not be made or written: memory only from then on.
    private var fileFailed = false
    private let memoryLimit: Int
    /// Where the temporary file goes (nil: TMPDIR, else /tmp).
    private let directory: String?
    /// Bytes read from the file: offsets `windowStart..<windowStart + windowCount`.
    private var window: UnsafeMutableRawPointer
    private var windowCapacity: Int
    private var windowStart = 0
    private var windowCount = 0

    /// What is written to the file at a time, and read from it at a time.
    static let chunkSize = 1 << 20

    /// A spool that keeps up to `memoryLimit` bytes in memory, then moves to a temporary file in `directory` (the system's by default).
    package init(memoryLimit: Int = 8 << 20, directory: String? = nil) {
        self.memoryLimit = memoryLimit
        self.directory = directory
        memoryCapacity = 1 << 16
        memory = .allocate(byteCount: memoryCapacity, alignment: 16)
        windowCapacity = 0
        window = .allocate(byteCount: 1, alignment: 16)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        memory.deallocate()
        window.deallocate()
    }

    /// True when some bytes are in the temporary file (for tests).
    package var usesFile: Bool { fileCount > 0 }

    private var memoryCount: Int { count - fileCount }

    /// Appends bytes (to memory, or to the file once past the limit).
    package func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        if memoryCount + bytes.count > memoryCapacity {
            let capacity = max(memoryCount + bytes.count, 2 * memoryCapacity)
            let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
            grown.copyMemory(from: memory, byteCount: memoryCount)
            memory.deallocate()
            memory = grown
            memoryCapacity = capacity
        }
        (memory + memoryCount).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
        spillIfNeeded()
    }

    /// Appends bytes (to memory, or to the file once past the limit).
    package func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// The bytes at `range`, valid until the next call on the spool.
    package func bytes(_ range: Range<Int>) throws(BriefcaseError) -> UnsafeRawBufferPointer {
        guard range.lowerBound >= 0, range.upperBound <= count else {
            throw BriefcaseError(.invalidModel, "internal: bytes \(range) asked of a spool of \(count)")
        }
        if range.lowerBound >= fileCount {
            return UnsafeRawBufferPointer(start: memory + (range.lowerBound - fileCount), count: range.count)
        }
        if range.lowerBound < windowStart || range.upperBound > windowStart + windowCount {
            try fillWindow(from: range.lowerBound, atLeast: range.count)
        }
        return UnsafeRawBufferPointer(start: window + (range.lowerBound - windowStart), count: range.count)
    }

    // MARK: the file

    private func spillIfNeeded() {
        guard !fileFailed else { return }
        if descriptor < 0 {
            guard count > memoryLimit else { return }
            guard let made = try? FileIO.makeUnlinkedTemporaryFile(prefix: ".briefcase-spool", in: directory) else {
                fileFailed = true
                return
            }
            descriptor = made
        } else if memoryCount < Self.chunkSize {
            return
        }
        let pending = memoryCount
        var written = 0
        while written < pending {
            let n = pwrite(descriptor, memory + written, pending - written, off_t(fileCount + written))
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            written += n
        }
        if written < pending {
            fileFailed = true
            memory.copyMemory(from: memory + written, byteCount: pending - written)  // (overlapping: memmove)
        } else if memoryCapacity > 2 * Self.chunkSize {
            // Keep a chunk's room, not the memory limit's (the first spill writes that much).
            memory.deallocate()
            memoryCapacity = Self.chunkSize
            memory = .allocate(byteCount: memoryCapacity, alignment: 16)
        }
        fileCount += written
    }

    /// Fills the window from offset `start`: at least `atLeast` bytes, those past the file's end
    /// copied from memory.
    private func fillWindow(from start: Int, atLeast: Int) throws(BriefcaseError) {
        let wanted = min(max(atLeast, Self.chunkSize), count - start)
        if wanted > windowCapacity {
            window.deallocate()
            windowCapacity = wanted
            window = .allocate(byteCount: windowCapacity, alignment: 16)
        }
        windowCount = 0
        let fromFile = min(wanted, fileCount - start)
        var done = 0
        while done < fromFile {
            let n = pread(descriptor, window + done, fromFile - done, off_t(start + done))
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { throw BriefcaseError(.io, "cannot read a temporary file: \(String(cString: strerror(errno)))") }
            done += n
        }
        if wanted > fromFile { (window + fromFile).copyMemory(from: memory, byteCount: wanted - fromFile) }
        windowStart = start
        windowCount = wanted
    }
}
