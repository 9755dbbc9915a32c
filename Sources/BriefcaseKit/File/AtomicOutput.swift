import CSystemShims
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An output file that appears at its path only when complete: bytes go to a temporary file in
/// the same directory (so the final rename is atomic), which is flushed to disk and renamed to
/// the destination by `commit()`, or removed by `discard()`. Standard output ("-") is written
/// directly.
///
/// Without `replacing`, nothing at the destination is ever replaced: one there at `init` is an
/// error at once, and one that appears while the file is written (a file, a folder, a link) is
/// found by the final rename itself, which never replaces (`briefcase_rename_noreplace`): the
/// error then, `BriefcaseError.outputExists`, leaves it as it is. The temporary file is named
/// `.NAME.tmp-PID-XXXXXX` and holds an `flock` while it exists, so that a later write of the same
/// destination can tell one a killed process left (and remove it) from one still being written
/// (`TemporaryPaths.removeStale`).
///
/// On Linux the flush is begun as the file grows (write-behind): every `writebackStride` bytes
/// written, the kernel is asked to start writing the last stretch to disk (`sync_file_range`,
/// without waiting), so the disk works while the conversion does and `commit()`'s `fsync` waits
/// only for the end (→ json of 100 MB: the fsync took 53 ms of a 250 ms run when it had all to
/// write). The stretch asked for a stride before that one has had a stride's writing to get
/// there: it is waited for and let go from the page cache (`posix_fadvise(DONTNEED)`). So a
/// conversion of gigabytes holds about two strides of its output in memory, not all of it, and
/// does not push the user's other files out of the cache; and its writes land in pages the kernel
/// just freed, not in fresh ones — on a VM whose host takes back free memory, a fresh page costs
/// a host fault, and writing 1.3 GB went from 2.8–3.7 s to 0.4–0.6 s. Those calls are made on a
/// thread of the output's own (`WriteBehind`), not the writer's. An error in that writing is kept
/// and thrown by `commit()` (the kernel reports it once: `fsync` might not again).
///
/// It owns its descriptor, so it cannot be copied: one value writes, commits or discards the
/// file, and one dropped unfinished removes its temporary file. Values that must be copied (a
/// sink, a stream writer) share one through `SharedAtomicOutput`.
public struct AtomicOutput: ~Copyable {
    /// Bytes written between two requests to start writing them to disk. (8 MiB until the end of
    /// round 3: the fsync of a 14 MB JSON then waited for its last 6 MB.)
    static let writebackStride = 2 << 20
    /// The destination ("-" for standard output).
    public let path: String
    /// Whether `commit()` may replace something at `path`.
    public let replacing: Bool
    /// The file being written, until `commit` moves it to `path` (nil for standard output); a
    /// writer that needs a path rather than bytes (SQLite) writes there.
    public let temporaryPath: String?
    private var fd: Int32
    private var finished = false
    /// Bytes written (appended) so far, and how many of them the disk was asked to take.
    private var written = 0
    private(set) var writebackRequested = 0
    /// Hands the disk what is written, from the first stride on (`WriteBehind`).
    private(set) var writeBehind: WriteBehind?
    /// Registers the temporary file for removal if the process is interrupted (`TemporaryPaths`).
    private var registration: Int?

    /// Creates the temporary file next to `path` (nothing for standard output), first removing
    /// the temporary files of `path` that killed processes left (`TemporaryPaths.removeStale`).
    /// Without `replacing`, something already at `path` is an error (`BriefcaseError.outputExists`);
    /// with it, `commit()` replaces what is there.
    public init(path: String, replacing: Bool = false) throws(BriefcaseError) {
        try self.init(path: path, replacing: replacing, removingStale: true)
    }

    /// `removingStale: false` for a file in a folder this process has just made (no one else's
    /// temporary can be there: the listing would be wasted).
    init(path: String, replacing: Bool, removingStale: Bool) throws(BriefcaseError) {
        self.path = path
        self.replacing = replacing
        if path == "-" {
            temporaryPath = nil
            fd = 1
            return
        }
        if !replacing && FileIO.exists(path) { throw BriefcaseError.outputExists(path) }
        let (directory, base) = TemporaryPaths.place(of: path)
        if removingStale { TemporaryPaths.removeStale(in: directory, of: base) }
        var template = TemporaryPaths.template(in: directory, for: base)
        let (descriptor, token, failure): (Int32, Int?, Int32) = TemporaryPaths.withLock { registry in
            let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard descriptor >= 0 else { return (descriptor, nil, errno) }
            return (descriptor, registry.register(TemporaryPaths.string(template)), 0)
        }
        guard descriptor >= 0 else {
            errno = failure
            throw FileIO.ioError("cannot create a temporary file next to the output", path)
        }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        TemporaryPaths.hold(descriptor)
        fd = descriptor
        registration = token
        temporaryPath = TemporaryPaths.string(template)
    }

    /// Writes bytes, all of them or an error.
    public mutating func write(_ bytes: some Collection<UInt8>) throws(BriefcaseError) {
        let result: Bool = bytes.withContiguousStorageIfAvailable { buffer in
            SystemCall.writeAll(fd, UnsafeRawBufferPointer(buffer))
        } ?? Array(bytes).withUnsafeBytes { SystemCall.writeAll(fd, $0) }
        guard result else { throw FileIO.ioError("cannot write", displayName) }
        wrote(bytes.count)
    }

    /// Writes bytes, all of them or an error.
    public mutating func write(_ buffer: UnsafeRawBufferPointer) throws(BriefcaseError) {
        guard SystemCall.writeAll(fd, buffer) else { throw FileIO.ioError("cannot write", displayName) }
        wrote(buffer.count)
    }

    /// Counts `count` bytes appended; every `writebackStride` of them, hands them to the disk
    /// (`WriteBehind`, started at the first stride).
    private mutating func wrote(_ count: Int) {
        written += count
        guard temporaryPath != nil, written - writebackRequested >= Self.writebackStride else { return }
        if writeBehind == nil { writeBehind = WriteBehind(fd: fd) }
        writeBehind?.request(upTo: written)
        writebackRequested = written
    }

    /// The temporary file grew through a descriptor of another writer (SQLite writing it
    /// itself): every `writebackStride` of growth, the kernel is asked to start writing it to
    /// disk (`WriteBehind`, on its thread; the pages stay in the cache, which the other writer may
    /// read or write again), so that `commit`'s fsync has only the rest to wait for.
    package mutating func grewThroughAnotherWriter() {
        var info = stat()
        guard temporaryPath != nil, fstat(fd, &info) == 0, Int(info.st_size) - writebackRequested >= Self.writebackStride else { return }
        if writeBehind == nil { writeBehind = WriteBehind(fd: fd, dropsWritten: false) }
        writeBehind?.request(upTo: Int(info.st_size))
        writebackRequested = Int(info.st_size)
    }

    /// Ends the write-behind (its thread done with the descriptor) and returns its first error.
    private mutating func endWriteBehind() -> Int32? {
        defer { writeBehind = nil }
        return writeBehind?.finish()
    }

    /// How errors name the output: standard output by that name, not "-".
    private var displayName: String { temporaryPath == nil ? "standard output" : path }

    /// Replaces bytes already written at `offset` (pwrite; the streaming briefcase writer patches
    /// the index position this way). Standard output cannot seek: use a memory buffer there.
    public mutating func overwrite(_ buffer: UnsafeRawBufferPointer, at offset: Int) throws(BriefcaseError) {
        var done = 0
        while done < buffer.count {
            let n = pwrite(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw FileIO.ioError("cannot write", path) }
            done += n
        }
    }

    /// Empties the temporary file, to write it again from the start.
    public mutating func reset() throws(BriefcaseError) {
        _ = endWriteBehind()  // (an error in bytes now gone does not matter)
        guard temporaryPath != nil, ftruncate(fd, 0) == 0, lseek(fd, 0, SEEK_SET) == 0 else {
            throw FileIO.ioError("cannot rewind the output", path)
        }
        written = 0
        writebackRequested = 0
    }

    /// Flushes and moves the finished file into place: without `replacing`, by a rename that
    /// never replaces, so that something put at the destination meanwhile stays and the write
    /// fails with `BriefcaseError.outputExists` (the temporary file removed).
    public mutating func commit() throws(BriefcaseError) {
        guard !finished else { throw BriefcaseError(.invalidModel, "internal: an output committed after its end", file: path) }
        guard let temporaryPath else { finished = true; return }
        if let failure = endWriteBehind() {
            errno = failure
            throw FileIO.ioError("cannot write", path)
        }
        guard fsync(fd) == 0 || errno == EINVAL else { throw FileIO.ioError("cannot flush", path) }
        _ = fchmod(fd, 0o644)
        finished = true
        let (registration, replacing, path) = (registration, replacing, path)
        let failure: Int32 = TemporaryPaths.withLock { registry in
            let moved = replacing ? rename(systemPath(temporaryPath), systemPath(path)) : briefcase_rename_noreplace(systemPath(temporaryPath), systemPath(path))
            guard moved == 0 else { return errno }
            if let registration { registry.unregister(registration) }
            return 0
        }
        // Closed only now: the flock marks the temporary file as alive until it is gone.
        close(fd)
        guard failure == 0 else {
            errno = failure
            let error = failure == EEXIST && !replacing
                ? BriefcaseError.outputExists(path) : FileIO.ioError("cannot move the finished output into place", path)
            unlink(systemPath(temporaryPath))
            if let registration { TemporaryPaths.unregister(registration) }
            throw error
        }
    }

    /// Removes the temporary file (after a failure).
    public mutating func discard() {
        guard !finished else { return }
        removeTemporary()
        writeBehind = nil
        finished = true
    }

    /// An output dropped before `commit` or `discard` leaves nothing behind.
    deinit {
        if !finished { removeTemporary() }
    }

    /// Ends the write-behind, closes the temporary file and removes it (nothing for standard output).
    private func removeTemporary() {
        guard let temporaryPath else { return }
        _ = writeBehind?.finish()
        close(fd)
        unlink(systemPath(temporaryPath))
        if let registration { TemporaryPaths.unregister(registration) }
    }
}

/// One `AtomicOutput` shared by reference, for values that are copied (a sink, a stream writer,
/// the JSON writer's byte sink): every copy writes, commits or discards the one file.
package final class SharedAtomicOutput: BriefcaseStreamOutput {
    package var output: AtomicOutput
    package var path: String { output.path }
    package var temporaryPath: String? { output.temporaryPath }

    package init(_ output: consuming AtomicOutput) { self.output = output }

    package convenience init(path: String, replacing: Bool, removingStale: Bool = true) throws(BriefcaseError) {
        self.init(try AtomicOutput(path: path, replacing: replacing, removingStale: removingStale))
    }

    package func append(_ bytes: UnsafeRawBufferPointer) throws(BriefcaseError) { try output.write(bytes) }
    package func overwrite(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(BriefcaseError) {
        try output.overwrite(bytes, at: offset)
    }
    package func reset() throws(BriefcaseError) { try output.reset() }
    package func commit() throws(BriefcaseError) { try output.commit() }
    /// See `AtomicOutput.grewThroughAnotherWriter()`.
    package func grewThroughAnotherWriter() { output.grewThroughAnotherWriter() }
    package func discard() { output.discard() }
}
