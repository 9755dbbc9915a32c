import CZlib
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// gzip (RFC 1952) around any of the formats: whole-buffer and whole-file helpers over
/// `GzipDecompressor` and `GzipCompressor`.
///
/// ```swift
/// let bytes = try Gzip.readFile("Orders.daBriefcase.gz")        // inflated, streamed from disk
/// let file = try BriefcaseFileCodec.decode(bytes)
/// try Gzip.writeFileAtomically(BriefcaseFileCodec.encode(file), to: "Copy.daBriefcase.gz")
/// ```
public enum Gzip {
    /// The first two bytes of every gzip member.
    public static let magic: [UInt8] = [0x1f, 0x8b]

    /// The default compression level (gzip's own).
    public static let defaultLevel = 6

    /// The most any default limit allows: 16 GiB.
    public static let maximumOutput = 16 << 30

    /// Whatever the ratio, a default limit allows at least this much: 64 MiB.
    public static let minimumOutput = 64 << 20

    /// The default bound on the decompressed size of `compressedCount` compressed bytes:
    /// 1000 times the compressed size (deflate cannot do better than about 1032:1, so only
    /// streams built to expand do), but at least 64 MiB and at most 16 GiB.
    public static func defaultLimit(compressedCount: Int) -> Int {
        let (ratio, overflow) = max(0, compressedCount).multipliedReportingOverflow(by: 1000)
        return min(maximumOutput, max(minimumOutput, overflow ? maximumOutput : ratio))
    }

    /// True when `bytes` start like a gzip member (1f 8b).
    public static func hasMagic(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.starts(with: magic)
    }

    /// True when `path` ends in `.gz` (any case).
    public static func hasSuffix(_ path: String) -> Bool {
        path.lowercased().hasSuffix(".gz")
    }

    /// `path` without a trailing `.gz` (any case); `path` itself when it has none.
    public static func removingSuffix(_ path: String) -> String {
        hasSuffix(path) ? String(path.dropLast(3)) : path
    }

    /// Inflates a whole gzip stream (one or more members).
    /// - Parameters:
    ///   - bytes: the compressed stream.
    ///   - limit: the most bytes to produce; default `defaultLimit(compressedCount:)`.
    public static func decompress(_ bytes: [UInt8], limit: Int? = nil) throws(BriefcaseError) -> [UInt8] {
        let decompressor = try GzipDecompressor(limit: limit ?? defaultLimit(compressedCount: bytes.count))
        var output: [UInt8] = []
        output.reserveCapacity(min(decompressor.limit, bytes.count.multipliedReportingOverflow(by: 4).partialValue))
        try decompressor.decompress(bytes) { output.append(contentsOf: $0) }
        try decompressor.finish()
        return output
    }

    /// Compresses `bytes` into one gzip member.
    public static func compress(_ bytes: [UInt8], level: Int = defaultLevel) throws(BriefcaseError) -> [UInt8] {
        let compressor = try GzipCompressor(level: level)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count / 2 + 64)
        try compressor.compress(bytes) { output.append(contentsOf: $0) }
        try compressor.finish { output.append(contentsOf: $0) }
        return output
    }

    /// Reads and inflates a whole gzip file, streaming: the compressed bytes are read in chunks,
    /// only the decompressed ones are kept. "-" is standard input. Errors name `path`; their
    /// offsets are in the compressed file.
    /// - Parameters:
    ///   - path: the file, or "-" for standard input.
    ///   - limit: the most bytes to produce; default `defaultLimit(compressedCount:)` of the
    ///     file's size.
    public static func readFile(_ path: String, limit: Int? = nil) throws(BriefcaseError) -> [UInt8] {
        do throws(BriefcaseError) {
            let fd = path == "-" ? 0 : try FileIO.openRegularFile(path).descriptor
            defer { if fd != 0 { close(fd) } }
            var info = stat()
            guard fstat(fd, &info) == 0 else { throw FileIO.ioError("cannot read", path) }
            if (info.st_mode & S_IFMT) == S_IFDIR { throw BriefcaseError(.invalidData, "is a directory", file: path) }
            // A pipe's size is known only at its end: its default limit is that of the bytes read
            // so far, so a bomb is refused as it inflates, not after it has been read whole.
            let size = (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil
            let decompressor = try GzipDecompressor(limit: limit ?? defaultLimit(compressedCount: size ?? 0))
            var output: [UInt8] = []
            output.reserveCapacity(min(decompressor.limit, (size ?? 0).multipliedReportingOverflow(by: 4).partialValue))
            var chunk = [UInt8](repeating: 0, count: size == nil ? 64 << 10 : 1 << 20)
            var compressedRead = 0
            while true {
                let n = chunk.withUnsafeMutableBytes { SystemCall.read(fd, $0.baseAddress, $0.count) }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw FileIO.ioError("cannot read", path)
                }
                if n == 0 { break }
                compressedRead += n
                if size == nil && limit == nil { decompressor.limit = defaultLimit(compressedCount: compressedRead) }
                try withBytes(chunk, 0..<n) { (raw) throws(BriefcaseError) in
                    try decompressor.decompress(raw) { output.append(contentsOf: $0) }
                }
            }
            try decompressor.finish()
            return output
        } catch {
            throw error.file == nil ? error.inFile(path) : error
        }
    }

    /// Up to `count` decompressed bytes from the start of a gzip file (for recognising the format
    /// inside). Inflates no more of the file than that needs.
    public static func readPrefix(_ path: String, count: Int) throws(BriefcaseError) -> [UInt8] {
        do throws(BriefcaseError) {
            let fd = try FileIO.openRegularFile(path).descriptor
            defer { close(fd) }
            // Small reads: one read can never inflate to more than about 1032 times itself.
            let decompressor = try GzipDecompressor(limit: maximumOutput)
            var output: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 512)
            while output.count < count {
                let n = chunk.withUnsafeMutableBytes { SystemCall.read(fd, $0.baseAddress, $0.count) }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw FileIO.ioError("cannot read", path)
                }
                if n == 0 {
                    try decompressor.finish()
                    break
                }
                try withBytes(chunk, 0..<n) { (raw) throws(BriefcaseError) in
                    try decompressor.decompress(raw) { piece in
                        if output.count < count { output.append(contentsOf: piece.prefix(count - output.count)) }
                    }
                }
            }
            return output
        } catch {
            throw error.file == nil ? error.inFile(path) : error
        }
    }

    /// Compresses `bytes` and writes them to `path` atomically (see `AtomicOutput`), streaming:
    /// the compressed data goes to disk chunk by chunk. Something already at `path` is an error,
    /// unless `replacing`. "-" is standard output.
    public static func writeFileAtomically(_ bytes: [UInt8], to path: String, level: Int = defaultLevel,
                                           replacing: Bool = false) throws(BriefcaseError) {
        var output = try AtomicOutput(path: path, replacing: replacing)
        do throws(BriefcaseError) {
            try write(bytes, compressedTo: &output, level: level)
            try output.commit()
        } catch {
            output.discard()
            throw error.file == nil ? error.inFile(path) : error
        }
    }

    /// Compresses `bytes` into `output` (whose commit is the caller's), chunk by chunk.
    package static func write(_ bytes: [UInt8], compressedTo output: inout AtomicOutput, level: Int = defaultLevel) throws(BriefcaseError) {
        let compressor = try GzipCompressor(level: level)
        try compressor.compress(bytes) { (piece) throws(BriefcaseError) in try output.write(piece) }
        try compressor.finish { (piece) throws(BriefcaseError) in try output.write(piece) }
    }

    /// `body` over the bytes of `array` (or of `range` of it), keeping the error type.
    static func withBytes(_ array: [UInt8], _ range: Range<Int>? = nil,
                          _ body: (UnsafeRawBufferPointer) throws(BriefcaseError) -> Void) throws(BriefcaseError) {
        let result: Result<Void, BriefcaseError> = array.withUnsafeBytes { raw in
            do throws(BriefcaseError) {
                try body(range.map { UnsafeRawBufferPointer(rebasing: raw[$0]) } ?? raw)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// zlib's message for a status, e.g. "incorrect data check".
    static func describe(_ status: Int32, _ stream: UnsafeMutablePointer<z_stream>) -> String {
        if let message = stream.pointee.msg { return String(cString: message) }
        switch status {
        case Z_STREAM_ERROR: return "inconsistent stream state"
        case Z_DATA_ERROR: return "invalid data"
        case Z_MEM_ERROR: return "out of memory"
        case Z_BUF_ERROR: return "no progress possible"
        case Z_VERSION_ERROR: return "incompatible zlib version"
        case Z_NEED_DICT: return "a preset dictionary is needed"
        default: return "zlib status \(status)"
        }
    }
}
