import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A read-only file read in pieces with `pread`, so a briefcase can be opened and one table
/// decoded without reading the others. Counts the bytes it reads (tests check laziness with it).
///
/// A folder briefcase holds one of these per table file, so they do not each keep a descriptor:
/// at most `OpenDescriptors.limit` are open at once (the least recently used is closed), and a
/// closed one is opened again by path when next read — after checking that the path still names
/// the same file (device, inode and size), else the read fails. So any number of tables works
/// under a small `ulimit -n` (Spec/robustness.md §8.5).
///
/// Several threads may read through one handle at once (a conversion decodes elements on worker
/// threads): `@unchecked Sendable` because its only mutable state — the descriptor, its use
/// count and the bytes-read count — lives in its `OpenDescriptors.Slot`, changed only under that
/// registry's lock; the `pread`s themselves run unlocked, side by side.
package final class RandomAccessFile: @unchecked Sendable {
    /// The file's path.
    package let path: String
    /// The file's size in bytes, when it was opened.
    package let size: Int
    /// Bytes read so far through this handle.
    package var bytesRead: Int { OpenDescriptors.bytesRead(descriptor) }
    /// The descriptor (closed and reopened as `OpenDescriptors` decides) and the file's identity.
    private let descriptor: OpenDescriptors.Slot
    private let device: UInt64, inode: UInt64

    /// Opens `path`. With `keepOpen` the descriptor is never closed before the handle goes away
    /// (and does not count toward the limit): for a file that cannot be opened again by path, such
    /// as an unlinked temporary file.
    package init(path: String, keepOpen: Bool = false) throws(BriefcaseError) {
        let (fd, info) = try Self.openRegular(path)
        self.path = path
        self.size = Int(info.st_size)
        descriptor = OpenDescriptors.Slot(fd: fd)
        device = UInt64(truncatingIfNeeded: info.st_dev)
        inode = UInt64(truncatingIfNeeded: info.st_ino)
        if !keepOpen { OpenDescriptors.admit(descriptor) }
    }

    deinit { OpenDescriptors.remove(descriptor) }

    /// Opens `path` for reading (`FileIO.openRegularFile`: a regular file, or an error).
    private static func openRegular(_ path: String) throws(BriefcaseError) -> (Int32, stat) {
        let opened = try FileIO.openRegularFile(path)
        return (opened.descriptor, opened.status)
    }

    /// Reads `count` bytes at file offset `offset` into `buffer`; false when the file ends first.
    /// The descriptor is held open (`OpenDescriptors.acquire`) but not locked while it reads.
    private func readFully(_ buffer: UnsafeMutableRawPointer, count: Int, at offset: Int) throws(BriefcaseError) -> Bool {
        let fd = try OpenDescriptors.acquire(descriptor, reopen: reopen)
        var done = 0
        defer { OpenDescriptors.release(descriptor, bytesRead: done) }
        while done < count {
            let n = pread(fd, buffer + done, count - done, off_t(offset + done))
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw FileIO.ioError("cannot read", path) }
            if n == 0 { return false }
            done += n
        }
        return true
    }

    /// The file opened again by path, when it is still the file this handle opened.
    private func reopen() throws(BriefcaseError) -> Int32 {
        let (reopened, info) = try Self.openRegular(path)
        guard UInt64(truncatingIfNeeded: info.st_dev) == device, UInt64(truncatingIfNeeded: info.st_ino) == inode, Int(info.st_size) == size else {
            close(reopened)
            throw Self.changed(path)
        }
        return reopened
    }

    private static func changed(_ path: String) -> BriefcaseError {
        BriefcaseError(.io, "the file was replaced or changed while it was being read", file: path)
    }

    /// The file's first `end` bytes (at most its size) mapped into memory (`MappedFile`): made on
    /// first use through the open descriptor, after checking that the file still has the size it
    /// was opened with (a mapping read past the end of a file is a crash, not an error), and kept
    /// while this handle lives; a later call that needs more than it covers maps again. What a
    /// conversion decodes its elements from (`ByteSource`): no copy, no memory of its own.
    package func mapped(through end: Int) throws(BriefcaseError) -> MappedFile {
        let count = max(0, min(end, size))
        if let mapping = OpenDescriptors.mapping(descriptor), mapping.count >= count { return mapping }
        let fd = try OpenDescriptors.acquire(descriptor, reopen: reopen)
        defer { OpenDescriptors.release(descriptor, bytesRead: 0) }
        var info = stat()
        guard fstat(fd, &info) == 0, Int(info.st_size) == size else { throw Self.changed(path) }
        return OpenDescriptors.keep(try MappedFile(descriptor: fd, path: path, count: count), for: descriptor)
    }

    /// How many of the file's bytes are mapped (nil: none).
    var mappedCount: Int? { OpenDescriptors.mapping(descriptor)?.count }

    /// Lets the pages of `range` of the file mapped by `mapped(through:)` go, if it was mapped.
    package func releaseMapped(_ range: Range<Int>) {
        OpenDescriptors.mapping(descriptor)?.release(range)
    }

    /// The bytes at `range` (clamped to the file).
    package func read(_ range: Range<Int>) throws(BriefcaseError) -> [UInt8] {
        try read(range, capacity: 0)
    }

    /// The same, in an array of at least `capacity` bytes' capacity (up to 256 MiB of it: more
    /// than the bytes read is only what a caller reusing the array expects to need next).
    private func read(_ range: Range<Int>, capacity: Int) throws(BriefcaseError) -> [UInt8] {
        let lower = max(0, min(range.lowerBound, size)), upper = max(lower, min(range.upperBound, size))
        // Not zero-filled first: a conversion reads the whole file through here, and clearing
        // every byte before pread overwrites it cost as much as a quarter of decoding.
        let count = upper - lower
        let capacity = max(count, min(capacity, 1 << 28))
        try Self.requireMemory(capacity, at: lower, path)
        var failure: BriefcaseError?
        let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            do throws(BriefcaseError) {
                guard try readFully(buffer.baseAddress!, count: count, at: lower) else {
                    failure = BriefcaseError(.io, "cannot read: the file ends before offset \(upper)", file: path)
                    return
                }
                initialized = count
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// A large read (what a file declares: an element, a name of gigabytes) that the memory
    /// available cannot hold is an error, not the runtime's "failed to allocate" trap: probed
    /// with malloc, which returns NULL where an array would trap.
    static func requireMemory(_ count: Int, at offset: Int, _ path: String) throws(BriefcaseError) {
        guard count > 1 << 26 else { return }
        guard let probe = malloc(count) else {
            throw BriefcaseError(.io, "not enough memory to read the \(count) bytes at offset \(offset)", file: path)
        }
        free(probe)
    }

    /// The bytes at `range` (clamped to the file) at the start of `spare`'s memory when nothing
    /// else holds it any more (a conversion reads element after element: their memory is then
    /// mapped once, not faulted in anew for each). **The array may go on** past them with bytes of
    /// no meaning — what an earlier, longer read left — so that its count only grows: its count is
    /// then the memory touched, which `ByteArrayPool.take(atLeast:)` goes by (read within the
    /// range's count, as the decoder's reader, bounded by the element, does). `spare` keeps a
    /// reference for the next call; when something still shares it, the array's copy-on-write
    /// gives fresh memory instead. When `spare` is too small, the fresh array gets room for
    /// `minimumCapacity` bytes — the largest element to come — so that it is allocated once, not
    /// again for each larger element.
    package func read(_ range: Range<Int>, reusing spare: inout [UInt8], minimumCapacity: Int = 0) throws(BriefcaseError) -> [UInt8] {
        let lower = max(0, min(range.lowerBound, size)), upper = max(lower, min(range.upperBound, size))
        let count = upper - lower
        var bytes = spare
        spare = []
        guard bytes.capacity >= count else {
            bytes = try read(range, capacity: minimumCapacity)
            spare = bytes
            return bytes
        }
        if bytes.count < count {
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
        var failure: BriefcaseError?
        bytes.withUnsafeMutableBytes { buffer in
            do throws(BriefcaseError) {
                if try !readFully(buffer.baseAddress!, count: count, at: lower) {
                    failure = BriefcaseError(.io, "cannot read: the file ends before offset \(upper)", file: path)
                }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        spare = bytes
        return bytes
    }

    /// A reader over `range`, its indices being file offsets.
    package func reader(_ range: Range<Int>) throws(BriefcaseError) -> ByteReader {
        let lower = max(0, min(range.lowerBound, size))
        return ByteReader(bytes: try read(range), base: lower)
    }
}

/// The descriptors `RandomAccessFile`s hold open: at most `limit`, beyond what reads in progress
/// hold; opening or reading one more closes the least recently read that no read is using. The
/// lock is held to open, count and close, never across a read, so threads read side by side and
/// a descriptor is never closed while a read goes through it.
enum OpenDescriptors {
    static let limit = 16

    /// One file's descriptor (-1 while closed), when it was last read, how many reads are going
    /// through it now, and how many bytes were read through it. Changed only under the lock.
    final class Slot: @unchecked Sendable {  // (its fields change only under the table's lock)
        var fd: Int32
        var lastUse = 0
        var readers = 0
        var bytesRead = 0
        /// The file mapped, once asked for (`RandomAccessFile.mapped(through:)`).
        var mapping: MappedFile?
        init(fd: Int32) { self.fd = fd }
    }

    /// The slots whose descriptor is open, and the clock their last uses are told by.
    private struct Table {
        var open: [ObjectIdentifier: Slot] = [:]
        var clock = 0

        /// Closes the least recently read descriptors that no read is using while more than
        /// `limit` are open (the one just used is the most recent, so it stays).
        mutating func closeLeastRecentlyUsed() {
            while open.count > limit,
                  let oldest = open.filter({ $0.value.readers == 0 }).min(by: { $0.value.lastUse < $1.value.lastUse }) {
                open[oldest.key] = nil
                close(oldest.value.fd)
                oldest.value.fd = -1
            }
        }

        mutating func use(_ slot: Slot) {
            clock += 1
            slot.lastUse = clock
        }
    }

    /// The table, and every slot's fields with it, changed only under this lock.
    private static let table = Mutex(Table())

    /// A newly opened file's descriptor.
    static func admit(_ slot: Slot) {
        table.withLock { table in
            table.use(slot)
            table.open[ObjectIdentifier(slot)] = slot
            table.closeLeastRecentlyUsed()
        }
    }

    /// The slot's descriptor, opened again with `reopen` if it was closed, and held open for one
    /// read until `release`.
    static func acquire(_ slot: Slot, reopen: () throws(BriefcaseError) -> Int32) throws(BriefcaseError) -> Int32 {
        try table.withLock { (table: inout Table) throws(BriefcaseError) -> Int32 in
            table.use(slot)
            if slot.fd < 0 {
                slot.fd = try reopen()
                table.open[ObjectIdentifier(slot)] = slot
            }
            slot.readers += 1
            table.closeLeastRecentlyUsed()
            return slot.fd
        }
    }

    /// A read through the slot's descriptor is over, having read `bytesRead` bytes.
    static func release(_ slot: Slot, bytesRead: Int) {
        table.withLock { table in
            slot.readers -= 1
            slot.bytesRead += bytesRead
            table.closeLeastRecentlyUsed()  // (what reads in progress kept open past the limit)
        }
    }

    /// The slot's file mapped, if it was.
    static func mapping(_ slot: Slot) -> MappedFile? {
        table.withLock { _ in slot.mapping }
    }

    /// Keeps `mapping` as the slot's file mapped, unless another thread mapped as much first:
    /// the one kept is returned (a smaller one is replaced; what holds it keeps it mapped).
    static func keep(_ mapping: MappedFile, for slot: Slot) -> MappedFile {
        table.withLock { _ in
            if let kept = slot.mapping, kept.count >= mapping.count { return kept }
            slot.mapping = mapping
            return mapping
        }
    }

    static func bytesRead(_ slot: Slot) -> Int {
        table.withLock { _ in slot.bytesRead }
    }

    /// A file going away: its descriptor is closed (no read is using it: its handle is gone).
    static func remove(_ slot: Slot) {
        table.withLock { table in
            table.open[ObjectIdentifier(slot)] = nil
            if slot.fd >= 0 { close(slot.fd) }
            slot.fd = -1
        }
    }
}
