import Testing
import BriefcaseKit

/// `WideText`'s UTF-16 → UTF-8 conversion (the SQLite writer binds its output, `decode` makes
/// strings of it) against the Swift standard library's transcoding, an independent
/// implementation: equal bytes for well-formed UTF-16, nil for the rest.
@Suite struct WideTextTests {
    private func utf8(_ utf16le: [UInt8]) -> [UInt8]? {
        let room = UnsafeMutablePointer<UInt8>.allocate(capacity: utf16le.count / 2 * 3 + 1)
        defer { room.deallocate() }
        return utf16le.withUnsafeBufferPointer { source in
            WideText.utf8(fromUTF16LE: source, to: room).map { Array(UnsafeBufferPointer(start: room, count: $0)) }
        }
    }

    private func le(_ units: [UInt16]) -> [UInt8] { units.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } }

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
        var state: UInt64 = 15
        func next() -> UInt64 { state = state &* 6364136223846793005 &+ 1442695040888963407; return state >> 33 }
        for _ in 0..<2000 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int(next() % 40) {
                let ranges: [ClosedRange<UInt32>] = [0...0x7F, 0x80...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFF, 0x10000...0x10FFFF]
                let range = ranges[Int(next() % 5)]
                scalars.append(Unicode.Scalar(range.lowerBound + UInt32(next() % UInt64(range.count)))!)
            }
            let text = String(scalars)
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
}
