import CZlib

/// Streaming gzip deflater over the system's zlib: one gzip member (RFC 1952 header with no file
/// name and modification time 0, so the same input always gives the same bytes), level 6 by
/// default.
///
/// Feed the bytes in chunks of any size with `compress(_:into:)`, then call `finish(into:)` once,
/// which writes what deflate still holds and the CRC-32/length trailer. The compressed bytes go
/// to the sink as they come, in pieces of at most `outputChunkSize`.
package final class GzipCompressor {
    /// Uncompressed bytes taken so far.
    public private(set) var totalIn = 0
    /// Compressed bytes handed to the sink so far.
    public private(set) var totalOut = 0
    /// True once `finish(into:)` has written the trailer.
    public private(set) var isFinished = false

    /// Size of the pieces handed to the sink.
    public static let outputChunkSize = 256 << 10

    private let zlib = ZlibStream(outputSize: GzipCompressor.outputChunkSize)

    /// A compressor writing one gzip member.
    /// - Parameter level: 0 (store) to 9 (smallest); 6 is gzip's default.
    public init(level: Int = 6) throws(BriefcaseError) {
        guard (0...9).contains(level) else {
            throw BriefcaseError(.invalidModel, "gzip: compression level \(level) is not between 0 and 9")
        }
        // 15 + 16: a 32 KiB window with a gzip header and trailer; memLevel 8 is zlib's default.
        try zlib.start("deflate", {
            deflateInit2_($0, Int32(level), Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        }, end: deflateEnd)
    }

    /// Compresses the next `input` bytes; what deflate emits goes to `sink`.
    public func compress(_ input: UnsafeRawBufferPointer,
                         into sink: (UnsafeRawBufferPointer) throws(BriefcaseError) -> Void) throws(BriefcaseError) {
        guard !isFinished else { throw BriefcaseError(.invalidModel, "gzip: compress after finish") }
        guard let base = input.baseAddress, input.count > 0 else { return }
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        var position = 0
        while position < input.count {
            let available = min(input.count - position, ZlibStream.maximumInput)
            zlib.setInput(bytes + position, count: available)
            try pump(Z_NO_FLUSH, sink)
            let used = available - zlib.pendingInput
            guard used > 0 else { throw BriefcaseError(.io, "gzip: zlib's deflate made no progress") }
            position += used
            totalIn += used
        }
        zlib.setInput(nil, count: 0)
    }

    /// Compresses the next `input` bytes; what deflate emits goes to `sink`.
    public func compress(_ input: [UInt8],
                         into sink: (UnsafeRawBufferPointer) throws(BriefcaseError) -> Void) throws(BriefcaseError) {
        try Gzip.withBytes(input) { (raw) throws(BriefcaseError) in try compress(raw, into: sink) }
    }

    /// Ends the member: the rest of the compressed data and the trailer go to `sink`.
    public func finish(into sink: (UnsafeRawBufferPointer) throws(BriefcaseError) -> Void) throws(BriefcaseError) {
        guard !isFinished else { return }
        zlib.setInput(nil, count: 0)
        try pump(Z_FINISH, sink)
        isFinished = true
    }

    /// Runs deflate until it has taken all input (and, for Z_FINISH, written the trailer).
    private func pump(_ flush: Int32, _ sink: (UnsafeRawBufferPointer) throws(BriefcaseError) -> Void) throws(BriefcaseError) {
        while true {
            let (status, produced) = zlib.step { deflate($0, flush) }
            if produced.count > 0 {
                totalOut += produced.count
                try sink(produced)
            }
            switch status {
            case Z_STREAM_END:
                return
            case Z_OK, Z_BUF_ERROR:
                // Z_BUF_ERROR: no progress possible, i.e. deflate has nothing more to do for now.
                if flush == Z_FINISH {
                    if status == Z_BUF_ERROR && produced.count == 0 {
                        throw BriefcaseError(.io, "gzip: deflate cannot finish (\(zlib.describe(status)))")
                    }
                    continue
                }
                if status == Z_OK && (zlib.outputFull || zlib.pendingInput > 0) { continue }
                return
            default:
                throw BriefcaseError(.io, "gzip: deflate failed (\(zlib.describe(status)))")
            }
        }
    }
}
