// libFuzzer target `gzip`: gzip input (`Gzip.decompress`, the streaming `GzipDecompressor`).
//
// The input is inflated whole with a small limit (1 MiB, so a bomb stops early), and again fed
// to a `GzipDecompressor` in pieces whose sizes come from the input's first byte: both must
// agree (same bytes, or both fail). What inflates must compress and inflate back to itself.
//
// Scripts/fuzz.sh gzip SECONDS

import BriefcaseKit

private let limit = 1 << 20

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let whole = try? Gzip.decompress(bytes, limit: limit)

    // The same input in pieces of 1…16 bytes (piece size from the first byte).
    let piece = 1 + Int(bytes.first ?? 0) % 16
    var streamed: [UInt8]? = []
    do {
        let decompressor = try GzipDecompressor(limit: limit)
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + piece)
            try decompressor.decompress(Array(bytes[start ..< end])) { streamed!.append(contentsOf: $0) }
            start = end
        }
        try decompressor.finish()
    } catch {
        streamed = nil
    }
    guard whole == streamed else {
        fuzzFailure("whole-buffer and streamed inflation disagree (\(whole?.count ?? -1) vs \(streamed?.count ?? -1) bytes)")
    }

    if let whole {
        guard let compressed = try? Gzip.compress(whole) else { fuzzFailure("inflated bytes do not compress") }
        guard let back = try? Gzip.decompress(compressed), back == whole else {
            fuzzFailure("compress/decompress changed the bytes")
        }
    }
    return 0
}
