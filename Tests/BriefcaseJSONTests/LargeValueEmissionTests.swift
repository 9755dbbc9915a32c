@testable import BriefcaseJSON
import BriefcaseKit
import BriefcaseTestSupport
import JSONCore
import Testing

@Suite struct LargeValueEmissionTests {
    /// Large blobs take the six-bytes-at-a-time base64 path and a grown scratch buffer: the text
    /// is what `Base64.encode` gives, at every length around the loop's edges.
    @Test func largeBlobsEncodeAsBase64Does() {
        var generator = SplitMix64(state: 3)
        for count in [0, 5, 6, 7, 8, 9, 13, 14, 15, 70_001, 300_000, 1 << 20] {
            let bytes = (0 ..< count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: .utf8)
            encoder.writeValue(.blob(ByteString(bytes)), type: .blob)
            try? encoder.writer.flush()
            #expect(encoder.writer.sink.bytes == Array(("\"" + Base64.encode(bytes) + "\"").utf8), "\(count) bytes")
        }
    }
}

extension LargeValueEmissionTests {
    /// Integers at every digit-count edge, and rows mixing them, as `description` writes them.
    @Test func integersAtEveryLengthEdge() throws {
        var edges: [UInt64] = [0, 1, 9, 10, 11, 99, 100, 101, UInt64.max, UInt64.max - 1]
        var power: UInt64 = 1
        for _ in 0 ..< 19 { power *= 10; edges += [power - 1, power, power + 1] }
        for value in edges {
            var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: .utf8)
            encoder.writeValue(.largeUInt(value), type: .largeUInt)
            if value <= UInt64(Int64.max) {
                encoder.writeValue(.integer(Int64(value)), type: .largeInt)
                encoder.writeValue(.integer(-Int64(value)), type: .largeInt)
            }
            try encoder.writer.flush()
            let expected = value <= UInt64(Int64.max) ? "\(value)\(value)-\(value)".replacingOccurrences(of: "-0", with: "0") : "\(value)"
            #expect(String(decoding: encoder.writer.sink.bytes, as: UTF8.self) == expected)
        }
        var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: .utf8)
        encoder.writeValue(.integer(Int64.min), type: .largeInt)
        try encoder.writer.flush()
        #expect(String(decoding: encoder.writer.sink.bytes, as: UTF8.self) == "\(Int64.min)")
    }
}
