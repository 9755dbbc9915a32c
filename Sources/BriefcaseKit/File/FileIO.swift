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
public struct AtomicOutput {
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
        guard !finished, let temporaryPath else { return }
        _ = endWriteBehind()
        close(fd)
        unlink(systemPath(temporaryPath))
        if let registration { TemporaryPaths.unregister(registration) }
        finished = true
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
