import CZlib

/// Streaming gzip deflater over the system's zlib: one gzip member (RFC 1952 header with no file
/// name and modification time 0, so the same input always gives the same bytes), level 6 by
/// default.
///
/// Feed the bytes in chunks of any size with `compress(_:into:)`, then call `finish(into:)` once,
/// which writes what deflate still holds and the CRC-32/length trailer. The compressed bytes go
/// to the sink as they come, in pieces of at most `outputChunkSize`.
public final class GzipCompressor {
    /// Uncompressed bytes taken so far.
    public private(set) var totalIn = 0
    /// Compressed bytes handed to the sink so far.
    public private(set) var totalOut = 0
    /// True once `finish(into:)` has written the trailer.
    public private(set) var isFinished = false

    /// Size of the pieces handed to the sink.
    public static let outputChunkSize = 256 << 10

    private let stream: UnsafeMutablePointer<z_stream>
    private let buffer: UnsafeMutableRawBufferPointer
    private var initialized = false

    /// - Parameter level: 0 (store) to 9 (smallest); 6 is gzip's default.
    public init(level: Int = 6) throws(BriefcaseError) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        buffer = .allocate(byteCount: Self.outputChunkSize, alignment: 16)
        guard (0...9).contains(level) else {
            throw BriefcaseError(.invalidModel, "gzip: compression level \(level) is not between 0 and 9")
        }
        // 15 + 16: a 32 KiB window with a gzip header and trailer; memLevel 8 is zlib's default.
        let status = deflateInit2_(stream, Int32(level), Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY,
                                   zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            throw BriefcaseError(.io, "gzip: cannot start zlib's deflate (\(Gzip.describe(status, stream)))")
        }
        initialized = true
    }

    deinit {
        if initialized { deflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
        buffer.deallocate()
    }

    /// Compresses the next `input` bytes; what deflate emits goes to `sink`.
    public func compress(_ input: UnsafeRawBufferPointer,
                         into sink: (UnsafeRawBufferPointer) throws(BriefcaseError) -> Void) throws(BriefcaseError) {
        guard !isFinished else { throw BriefcaseError(.invalidModel, "gzip: compress after finish") }
        guard let base = input.baseAddress, input.count > 0 else { return }
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        var position = 0
        while position < input.count {
            let available = min(input.count - position, Int(UInt32.max >> 1))
            stream.pointee.next_in = UnsafeMutablePointer(mutating: bytes + position)
            stream.pointee.avail_in = UInt32(available)
            try pump(Z_NO_FLUSH, sink)
            let used = available - Int(stream.pointee.avail_in)
            guard used > 0 else { throw BriefcaseError(.io, "gzip: zlib's deflate made no progress") }
            position += used
            totalIn += used
        }
        stream.pointee.next_in = nil
        stream.pointee.avail_in = 0
    }

    /// Compresses the next `input` bytes; what deflate emits goes to `sink`.
    public func compress(_ input: [UInt8],
                         into sink: (UnsafeRawBufferPointer) throws(BriefcaseError) -> Void) throws(BriefcaseError) {
        try Gzip.withBytes(input) { (raw) throws(BriefcaseError) in try compress(raw, into: sink) }
    }

    /// Ends the member: the rest of the compressed data and the trailer go to `sink`.
    public func finish(into sink: (UnsafeRawBufferPointer) throws(BriefcaseError) -> Void) throws(BriefcaseError) {
        guard !isFinished else { return }
        stream.pointee.next_in = nil
        stream.pointee.avail_in = 0
        try pump(Z_FINISH, sink)
        isFinished = true
    }

    /// Runs deflate until it has taken all input (and, for Z_FINISH, written the trailer).
    private func pump(_ flush: Int32, _ sink: (UnsafeRawBufferPointer) throws(BriefcaseError) -> Void) throws(BriefcaseError) {
        while true {
            stream.pointee.next_out = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
            stream.pointee.avail_out = UInt32(buffer.count)
            let status = deflate(stream, flush)
            let produced = buffer.count - Int(stream.pointee.avail_out)
            if produced > 0 {
                totalOut += produced
                try sink(UnsafeRawBufferPointer(start: buffer.baseAddress, count: produced))
            }
            switch status {
            case Z_STREAM_END:
                return
            case Z_OK, Z_BUF_ERROR:
                // Z_BUF_ERROR: no progress possible, i.e. deflate has nothing more to do for now.
                if flush == Z_FINISH {
                    if status == Z_BUF_ERROR && produced == 0 {
                        throw BriefcaseError(.io, "gzip: deflate cannot finish (\(Gzip.describe(status, stream)))")
                    }
                    continue
                }
                if status == Z_OK && (stream.pointee.avail_out == 0 || stream.pointee.avail_in > 0) { continue }
                return
            default:
                throw BriefcaseError(.io, "gzip: deflate failed (\(Gzip.describe(status, stream)))")
            }
        }
    }
}
