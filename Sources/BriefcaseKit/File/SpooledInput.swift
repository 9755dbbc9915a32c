#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSONCore

/// An input that cannot be read in place — standard input, or a gzip file — copied chunk by chunk
/// (inflated on the way when it is gzip) into an unlinked temporary file, which then reads like any
/// regular file: through `path`, mapped or by offset (Spec/robustness.md §8.3). Memory holds one
/// chunk whatever the input's size; the temporary file has no name from the start, so nothing is
/// left behind even after SIGKILL.
///
/// - gzip: inflated with the ratio limit enforced as the bytes come out (`Gzip.defaultLimit` of the
///   file's size; on standard input, of the compressed bytes read so far), so a bomb is refused as
///   soon as it crosses the limit.
/// - `shape`: reading stops at the first byte that cannot belong (`SpoolShape`), keeping `context`
///   bytes after it so the format's reader reports it as it would in the whole input.
package final class SpooledInput {
    /// The input as the user named it ("-" for standard input).
    package let name: String
    /// True when the input was gzip (what `path` holds is the inflated data).
    package private(set) var gzipped = false
    /// Bytes kept in the temporary file.
    package private(set) var count = 0
    /// True when `shape` stopped the reading before the input's end.
    package private(set) var stoppedEarly = false
    private let descriptor: Int32

    /// Bytes read (and inflated) at a time.
    package static let chunkSize = 64 << 10
    /// Bytes kept after the first impossible one.
    package static let context = 4096

    /// A path that opens the temporary file (the descriptor's /proc or /dev/fd entry), for readers
    /// that take a path; a file opened through it stays readable after this object is gone.
    package var path: String {
        #if os(Linux)
        "/proc/self/fd/\(descriptor)"
        #else
        "/dev/fd/\(descriptor)"
        #endif
    }

    /// How errors name the input.
    package var displayName: String { name == "-" ? "(standard input)" : name }

    /// Copies `name` ("-": standard input) into a temporary file.
    /// - Parameters:
    ///   - name: the path to copy, or "-" for standard input.
    ///   - gzip: true to inflate, false to copy, nil to decide by the first two bytes (1f 8b).
    ///   - shape: what the input must look like: copying stops at the first byte that cannot belong (`SpoolShape`).
    ///   - limit: the most inflated bytes; default `Gzip.defaultLimit` (see above).
    package init(_ name: String, gzip: Bool?, shape: SpoolShape = .any, limit: Int? = nil) throws(BriefcaseError) {
        self.name = name
        descriptor = try FileIO.makeUnlinkedTemporaryFile(prefix: ".briefcase-input")
        let displayName = name == "-" ? "(standard input)" : name
        do throws(BriefcaseError) {
            let source = name == "-" ? 0 : try FileIO.openRegularFile(name).descriptor
            defer { if source != 0 { close(source) } }
            try copy(from: source, gzip: gzip, shape: shape, limit: limit)
        } catch {
            close(descriptor)
            throw error.file == nil ? error.inFile(displayName) : error
        }
    }

    deinit { close(descriptor) }

    /// The whole content, read into memory (for readers that need one buffer).
    package func readAll() throws(BriefcaseError) -> [UInt8] {
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            while initialized < count {
                let n = pread(descriptor, buffer.baseAddress! + initialized, count - initialized, off_t(initialized))
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { failed = true; break }
                initialized += n
            }
        }
        if failed { throw FileIO.ioError("cannot read the temporary copy", displayName) }
        return bytes
    }

    /// An error from reading `path`, told about the input instead: its name as given, and, for
    /// gzip, that its offset is in the decompressed data.
    package func relabel(_ error: BriefcaseError) -> BriefcaseError {
        guard error.file == nil || error.file == path || error.file == name else { return error }
        var located = error
        located.file = name
        if gzipped, located.offset != nil, !located.message.hasSuffix("(offset in the decompressed data)") {
            located.message += " (offset in the decompressed data)"
        }
        return located
    }

    // MARK: copying

    private func copy(from source: Int32, gzip: Bool?, shape: SpoolShape, limit: Int?) throws(BriefcaseError) {
        var info = stat()
        guard fstat(source, &info) == 0 else { throw FileIO.ioError("cannot read", name) }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw BriefcaseError(.invalidData, "is a directory", file: name) }
        let knownSize = (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil
        var check = ShapeCheck(shape)
        var stopAt = Int.max
        var decompressor: GzipDecompressor?
        var compressedRead = 0
        var chunk = [UInt8](repeating: 0, count: Self.chunkSize)
        var pending = 0 // bytes at the start of `chunk` read but not yet used (for gzip detection)
        while count < stopAt {
            let n = chunk.withUnsafeMutableBytes { SystemCall.read(source, $0.baseAddress! + pending, $0.count - pending) }
            if n < 0 {
                if errno == EINTR { continue }
                throw FileIO.ioError("cannot read", name)
            }
            let available = pending + n
            if decompressor == nil && !gzipped && gzip != false && count == 0 {
                // Not decided yet: gzip by content needs two bytes (a pipe may give one at a time).
                if gzip == nil && available < 2 && n > 0 { pending = available; continue }
                if gzip == true || Gzip.hasMagic(chunk.prefix(available)) {
                    gzipped = true
                    decompressor = try GzipDecompressor(limit: limit ?? Gzip.defaultLimit(compressedCount: knownSize ?? 0))
                }
            }
            pending = 0
            if available == 0 { break }
            compressedRead += available
            if let decompressor {
                if limit == nil && knownSize == nil { decompressor.limit = Gzip.defaultLimit(compressedCount: compressedRead) }
                do throws(BriefcaseError) {
                    try Gzip.withBytes(chunk, 0..<available) { (raw) throws(BriefcaseError) in
                        try decompressor.decompress(raw) { (piece) throws(BriefcaseError) in
                            try keep(piece, &check, &stopAt)
                            if count >= stopAt { throw Self.enough }
                        }
                    }
                } catch {
                    guard count >= stopAt else { throw error }
                }
            } else {
                try Gzip.withBytes(chunk, 0..<available) { (raw) throws(BriefcaseError) in try keep(raw, &check, &stopAt) }
            }
            if n == 0 { break }
        }
        stoppedEarly = count >= stopAt
        if let decompressor, !stoppedEarly { try decompressor.finish() }
    }

    /// Thrown out of the inflater's sink to stop it once enough is kept.
    private static let enough = BriefcaseError(.io, "enough bytes kept")

    /// Writes `piece` (up to `stopAt`) to the temporary file, checking its shape on the way.
    private func keep(_ piece: UnsafeRawBufferPointer, _ check: inout ShapeCheck, _ stopAt: inout Int) throws(BriefcaseError) {
        if stopAt == Int.max, let impossible = check.scan(piece) {
            stopAt = count + impossible + 1 + Self.context
        }
        let wanted = min(piece.count, stopAt - count)
        var done = 0
        while done < wanted {
            let n = SystemCall.write(descriptor, piece.baseAddress! + done, wanted - done)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw FileIO.ioError("cannot write the temporary copy", "(temporary file)") }
            done += n
        }
        count += wanted
    }
}

/// A `SpoolShape` being checked, byte by byte as the input arrives.
private struct ShapeCheck {
    var shape: SpoolShape
    var json = JSONShapeCheck()
    var offset = 0

    init(_ shape: SpoolShape) { self.shape = shape }

    mutating func scan(_ bytes: UnsafeRawBufferPointer) -> Int? {
        defer { offset += bytes.count }
        switch shape {
        case .any:
            return nil
        case .json:
            return json.scan(bytes)
        case .prefix(let magic):
            guard offset < magic.count else { return nil }
            for index in 0..<min(bytes.count, magic.count - offset) where bytes[index] != magic[offset + index] { return index }
            return nil
        }
    }
}

/// What the bytes of a spooled input must look like (`SpooledInput`), so that reading stops at the
/// first byte that cannot belong: an endless or hostile stream is refused as it arrives instead of
/// being read to its end. The check only decides *when to stop reading*; the format's own reader
/// then reads what was kept and reports the error in its own words (and at its own offset, which is
/// never later: the check is never stricter than the reader).
package enum SpoolShape: Sendable {
    /// Anything: read to the end.
    case any
    /// Starts with these bytes (a binary format's signature).
    case prefix([UInt8])
    /// One JSON document (`JSONShapeCheck`).
    case json
}
