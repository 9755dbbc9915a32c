import Testing
import BriefcaseKit

/// `WideText`'s UTF-16 → UTF-8 conversion (the SQLite writer binds its output, `decode` makes
/// strings of it) and its UTF-8 → UTF-16LE one (`encode`, the JSON and snapshot readers' wide
/// strings) against the Swift standard library's transcoding, an independent implementation:
/// equal bytes for well-formed text, nil for ill-formed UTF-16.
@Suite struct WideTextTests {
    private func utf8(_ utf16le: [UInt8]) -> [UInt8]? {
        let room = UnsafeMutablePointer<UInt8>.allocate(capacity: utf16le.count / 2 * 3 + 1)
        defer { room.deallocate() }
        return utf16le.withUnsafeBufferPointer { source in
            WideText.utf8(fromUTF16LE: source, to: room).map { Array(UnsafeBufferPointer(start: room, count: $0)) }
        }
    }

    private func le(_ units: [UInt16]) -> [UInt8] { units.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } }

    /// 2,000 texts of up to `longest` scalars, every UTF-8 length among them.
    private func randomTexts(seed: UInt64, longest: UInt64) -> [String] {
        var state = seed
        func next() -> UInt64 { state = state &* 6364136223846793005 &+ 1442695040888963407; return state >> 33 }
        return (0..<2000).map { _ in
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int(next() % longest) {
                let ranges: [ClosedRange<UInt32>] = [0...0x7F, 0x80...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFF, 0x10000...0x10FFFF]
                let range = ranges[Int(next() % 5)]
                scalars.append(Unicode.Scalar(range.lowerBound + UInt32(next() % UInt64(range.count)))!)
            }
            return String(scalars)
        }
    }

    @Test func edgesOfEachLength() {
        // U+0000, U+007F | U+0080, U+07FF | U+0800, U+D7FF, U+E000, U+FFFF | U+10000, U+10FFFF.
        let scalars: [UInt32] = [0x0, 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFF, 0x10000, 0x10FFFF, 0x1F600]
        for value in scalars {
            let text = String(Unicode.Scalar(value)!)
            #expect(utf8(le(Array(text.utf16))) == Array(text.utf8), "U+\(String(value, radix: 16))")
        }
        #expect(utf8([]) == [])
    }

    @Test func randomTextAsTheStandardLibrary() {
        for text in randomTexts(seed: 15, longest: 40) {
            #expect(utf8(le(Array(text.utf16))) == Array(text.utf8))
            #expect(WideText.decode(ByteString(le(Array(text.utf16)))).map { Array($0.utf8) } == Array(text.utf8))
        }
    }

    @Test func illFormedIsNil() {
        #expect(utf8([0x41]) == nil)                             // odd length
        #expect(utf8(le([0x41, 0xD83D])) == nil)                 // high surrogate at the end
        #expect(utf8(le([0xD83D, 0x41])) == nil)                 // high surrogate without its low one
        #expect(utf8(le([0xDE00, 0x41])) == nil)                 // low surrogate first
        #expect(utf8(le([0xD83D, 0xD83D, 0xDE00])) == nil)       // two high surrogates
        #expect(utf8(le([0xD83D, 0xDE00])) == Array("😀".utf8))  // (the pair itself is fine)
        #expect(WideText.decode(ByteString([0x41])) == nil)
        #expect(WideText.decode(ByteString(le([0xD83D, 0x41]))) == nil)
        #expect(WideText.decode(ByteString([])) == "")
        #expect(WideText.decode(ByteString(le([0x47, 0xFC, 0xD83D, 0xDE00]))) == "Gü😀")
    }

    /// UTF-16LE of `text` by Swift's own UTF-16 view, unit by unit, low byte first.
    private func expectedLE(_ text: String) -> [UInt8] { le(Array(text.utf16)) }

    @Test func encodeWritesUTF16LE() {
        // Hand-computed: "A" 41 00; "é" E9 00; "中" 2D 4E; "😀" (U+1F600) D83D DE00 → 3D D8 00 DE.
        #expect(Array(WideText.encode("Aé中😀").bytes) == [0x41, 0x00, 0xE9, 0x00, 0x2D, 0x4E, 0x3D, 0xD8, 0x00, 0xDE])
        #expect(WideText.encode("").bytes.isEmpty)
        for text in ["plain", "Grüße 😀", "\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}", "\0nul"] {
            #expect(Array(WideText.encode(text).bytes) == expectedLE(text), "\(text)")
        }
        for text in randomTexts(seed: 3, longest: 20) {
            #expect(Array(WideText.encode(text).bytes) == expectedLE(text))
        }
    }
}
