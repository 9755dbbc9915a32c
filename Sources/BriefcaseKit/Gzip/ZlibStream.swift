import CZlib

/// A zlib stream and the buffer its output goes to, allocated together and freed together: the C
/// state under `GzipCompressor` and `GzipDecompressor`, so that its set-up, its tear-down and the
/// hand-over of input and output are written once.
final class ZlibStream {
    let stream: UnsafeMutablePointer<z_stream>
    let output: UnsafeMutableRawBufferPointer
    /// `deflateEnd` or `inflateEnd`, once `start` has succeeded (zlib holds memory of its own then).
    private var end: ((UnsafeMutablePointer<z_stream>) -> Int32)?

    init(outputSize: Int) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        output = .allocate(byteCount: outputSize, alignment: 16)
    }

    /// Starts zlib's `what` ("deflate", "inflate") with `initialize` (`deflateInit2_`,
    /// `inflateInit2_`); `end` is called when the stream is freed.
    func start(_ what: String, _ initialize: (UnsafeMutablePointer<z_stream>) -> Int32,
               end: @escaping (UnsafeMutablePointer<z_stream>) -> Int32) throws(BriefcaseError) {
        let status = initialize(stream)
        guard status == Z_OK else {
            throw BriefcaseError(.io, "gzip: cannot start zlib's \(what) (\(Gzip.describe(status, stream)))")
        }
        self.end = end
    }

    deinit {
        if let end { _ = end(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
        output.deallocate()
    }

    /// The most input handed to zlib at once (its counts are 32-bit).
    static let maximumInput = Int(UInt32.max >> 1)

    /// Hands zlib the next `count` bytes at `bytes` (nil, 0: none).
    func setInput(_ bytes: UnsafePointer<UInt8>?, count: Int) {
        stream.pointee.next_in = bytes.map { UnsafeMutablePointer(mutating: $0) }
        stream.pointee.avail_in = UInt32(count)
    }

    /// Input bytes zlib has not taken yet.
    var pendingInput: Int { Int(stream.pointee.avail_in) }

    /// Runs `process` (`deflate`, `inflate`) into the whole output buffer; its status and what it wrote.
    func step(_ process: (UnsafeMutablePointer<z_stream>) -> Int32) -> (status: Int32, produced: UnsafeRawBufferPointer) {
        stream.pointee.next_out = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
        stream.pointee.avail_out = UInt32(output.count)
        let status = process(stream)
        return (status, UnsafeRawBufferPointer(start: output.baseAddress, count: output.count - Int(stream.pointee.avail_out)))
    }

    /// The output buffer was filled up (zlib may have more to give).
    var outputFull: Bool { stream.pointee.avail_out == 0 }

    /// zlib's message for `status`, e.g. "incorrect data check".
    func describe(_ status: Int32) -> String { Gzip.describe(status, stream) }
}
