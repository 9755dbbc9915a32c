import CSystemShims
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A regular file mapped read-only into memory: its bytes are available at once without a copy,
/// and pages already consumed can be handed back (`release(upTo:)`), so reading a large file
/// front to back keeps only a window of it resident. The pages are backed by the file, so a
/// released page that is touched again is simply read back from the page cache.
///
/// A file that another process truncates under the mapping makes a read of the pages past its
/// new end raise SIGBUS: the mapping is noted (`briefcase_mapping_note`) so that a handler the
/// command line installs can tell that fault from a crash (Spec/robustness.md §8.13).
///
/// `@unchecked Sendable`: the mapping is read-only, and `release(_:)` changes no state of the
/// object (worker threads parsing ahead call it); `release(upTo:)` is the reading thread's.
@usableFromInline
package final class MappedFile: @unchecked Sendable {
    /// The file's path.
    package let path: String
    /// The file's size in bytes.
    @usableFromInline package let count: Int
    private let base: UnsafeMutableRawPointer?
    private var released = 0
    /// The mapping's slot in the C registry of mapped inputs (-1: none).
    private let faultSlot: Int32
    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// Maps `path`; nil for standard input ("-"), which the caller reads into memory instead.
    /// Anything but a regular file is refused (`FileIO.openRegularFile`).
    package convenience init?(path: String) throws(BriefcaseError) {
        guard path != "-" else { return nil }
        let (fd, status) = try FileIO.openRegularFile(path)
        defer { close(fd) }
        try self.init(descriptor: fd, path: path, count: Int(status.st_size))
    }

    /// Maps the first `count` bytes of the regular file open as `descriptor` (which may be closed
    /// afterwards: the mapping stays).
    init(descriptor fd: Int32, path: String, count: Int) throws(BriefcaseError) {
        self.path = path
        self.count = count
        if count == 0 {
            base = nil
            faultSlot = -1
            return
        }
        let address = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0)
        guard let address, address != MAP_FAILED else { throw FileIO.ioError("cannot map", path) }
        base = address
        faultSlot = briefcase_mapping_note(address, count)
        // Read front to back: let the kernel read ahead generously.
        _ = madvise(address, count, MADV_SEQUENTIAL)
    }

    deinit {
        briefcase_mapping_forget(faultSlot)
        if let base { munmap(base, count) }
    }

    /// The file's bytes, valid while this object lives.
    @usableFromInline package var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Lets the kernel drop the pages wholly inside `range` (read again from the file if touched
    /// again): for passes that read ahead of the reader, such as the scan of a JSON document's
    /// elements before they are parsed on several threads, and the threads that parse them. Safe
    /// from any thread.
    package func release(_ range: Range<Int>) {
        dropPages(from: range.lowerBound, to: range.upperBound)
    }

    /// Drops the whole pages before `offset` from memory (they are read again if touched).
    package func release(upTo offset: Int) {
        if let end = dropPages(from: released, to: offset) { released = end }
    }

    /// Drops the pages wholly inside `lower ..< upper` (clamped to the file); the end of what was
    /// dropped, nil when no whole page lies there.
    @discardableResult
    private func dropPages(from lower: Int, to upper: Int) -> Int? {
        guard let base else { return nil }
        let first = (lower + Self.pageSize - 1) / Self.pageSize * Self.pageSize
        let end = min(upper, count) / Self.pageSize * Self.pageSize
        guard end > first else { return nil }
        _ = madvise(base + first, end - first, MADV_DONTNEED)
        return end
    }
}
