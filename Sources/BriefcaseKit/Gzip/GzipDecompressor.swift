import CZlib

/// Streaming gzip inflater over the system's zlib.
///
/// Feed the compressed bytes in chunks of any size with `decompress(_:into:)`; the decompressed
/// bytes go to the sink as they come (in pieces of at most `outputChunkSize`). Then call
/// `finish()`, which fails when the input stopped inside a member.
///
/// - Concatenated gzip members (`cat a.gz b.gz`, `gzip` of appended files) are one stream: their
///   contents follow each other, as `gzip -d` gives them. Bytes after a member that do not start
///   another member are an error (no trailing garbage is ignored).
/// - Every member's CRC-32 and length are checked by zlib (windowBits 15+32: a gzip header, or a
///   zlib one, is recognised by itself).
/// - `limit` bounds the total decompressed size: past it, decompression stops with an error
///   rather than filling memory (a decompression bomb). See `Gzip.defaultLimit(compressedCount:)`.
/// - Errors are `BriefcaseError`s whose `offset` is a byte offset in the *compressed* input:
///   `.truncated` when the input ends inside a member, `.invalidData` for damaged data, bytes that
///   are not gzip, or a broken limit. After an error every call throws it again.
package final class GzipDecompressor {
    /// The most decompressed bytes this decompressor produces before it refuses to go on.
    public var limit: Int
    /// Compressed bytes consumed so far.
    public private(set) var totalIn = 0
    /// Decompressed bytes produced so far.
    public private(set) var totalOut = 0
    /// Complete gzip members read so far.
    public private(set) var members = 0

    /// Size of the pieces handed to the sink.
    public static let outputChunkSize = 256 << 10

    private let zlib = ZlibStream(outputSize: GzipDecompressor.outputChunkSize)
    /// True between the first byte of a member and its end.
    private var inMember = false
    /// Compressed offset where the current (or next) member starts.
    private var memberStart = 0
    private var failure: BriefcaseError?

    /// A decompressor that fails past `limit` inflated bytes.
    public init(limit: Int = Gzip.maximumOutput) throws(BriefcaseError) {
        self.limit = max(0, limit)
        // 15 + 32: a 32 KiB window, and the wrapper (gzip or zlib) detected from the header.
        try zlib.start("inflate", { inflateInit2_($0, 15 + 32, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) },
                       end: inflateEnd)
    }

    /// Inflates `input` (the next compressed bytes), handing what it yields to `sink`.
    public func decompress(_ input: UnsafeRawBufferPointer,
                           into sink: (UnsafeRawBufferPointer) throws(BriefcaseError) -> Void) throws(BriefcaseError) {
        if let failure { throw failure }
        do throws(BriefcaseError) {
            try run(input, sink)
        } catch {
            failure = error
            throw error
        }
    }

    /// Inflates `input` (the next compressed bytes), handing what it yields to `sink`.
    public func decompress(_ input: [UInt8],
                           into sink: (UnsafeRawBufferPointer) throws(BriefcaseError) -> Void) throws(BriefcaseError) {
        try Gzip.withBytes(input) { (raw) throws(BriefcaseError) in try decompress(raw, into: sink) }
    }

    /// Checks that the input ended where a member ends (and that there was one).
    public func finish() throws(BriefcaseError) {
        if let failure { throw failure }
        if inMember {
            failure = BriefcaseError(.truncated, "the gzip stream ends in the middle of a member (cut short?)", offset: totalIn)
        } else if members == 0 {
            failure = BriefcaseError(.truncated, "empty input: no gzip data", offset: 0)
        }
        if let failure { throw failure }
    }

    private func run(_ input: UnsafeRawBufferPointer,
                     _ sink: (UnsafeRawBufferPointer) throws(BriefcaseError) -> Void) throws(BriefcaseError) {
        guard let base = input.baseAddress, input.count > 0 else { return }
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        var position = 0
        while position < input.count {
            if !inMember {
                inMember = true
                memberStart = totalIn
            }
            let available = min(input.count - position, ZlibStream.maximumInput)
            zlib.setInput(bytes + position, count: available)
            var memberEnded = false
            while true {
                let (status, produced) = zlib.step { inflate($0, Z_NO_FLUSH) }
                let inputOffset = totalIn + available - zlib.pendingInput
                if produced.count > 0 {
                    guard produced.count <= limit - totalOut else {
                        totalIn = inputOffset
                        throw BriefcaseError(.invalidData,
                            "gzip: the decompressed data would exceed the limit of \(limit) bytes; refusing to inflate further (a decompression bomb?)",
                            offset: inputOffset)
                    }
                    totalOut += produced.count
                    try sink(produced)
                }
                switch status {
                case Z_STREAM_END:
                    memberEnded = true
                case Z_OK:
                    // More output may be pending when the buffer filled up; else all input is in.
                    if zlib.outputFull || zlib.pendingInput > 0 { continue }
                case Z_BUF_ERROR:
                    // No progress possible: zlib needs more input than this chunk has.
                    break
                default:
                    totalIn = inputOffset
                    throw dataError(status, offset: inputOffset)
                }
                break
            }
            let used = available - zlib.pendingInput
            position += used
            totalIn += used
            if memberEnded {
                members += 1
                inMember = false
                inflateReset(zlib.stream)
            } else if used == 0 && zlib.pendingInput > 0 {
                // Defensive: zlib neither consumed nor failed; never spin.
                throw BriefcaseError(.invalidData, "gzip: zlib made no progress", offset: totalIn)
            }
        }
        zlib.setInput(nil, count: 0)
    }

    private func dataError(_ status: Int32, offset: Int) -> BriefcaseError {
        let reason = zlib.describe(status)
        if status == Z_MEM_ERROR {
            return BriefcaseError(.io, "gzip: out of memory while inflating", offset: offset)
        }
        let headerProblem = reason.contains("header") || reason.contains("compression method")
        if headerProblem && members > 0 {
            return BriefcaseError(.invalidData,
                "gzip: bytes after the end of gzip member \(members) do not start another gzip member (\(reason))",
                offset: memberStart)
        }
        if headerProblem {
            return BriefcaseError(.invalidData, "not gzip data (\(reason))", offset: memberStart)
        }
        return BriefcaseError(.invalidData, "damaged gzip data: \(reason)", offset: offset)
    }
}
