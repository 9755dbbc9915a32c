import Foundation
import Testing
import BriefcaseTestSupport
import JSONCore

/// `JSONNumber.exactDouble` (Clinger's fast path) against the C library's `strtod`, which rounds
/// correctly: the same bits whenever it answers, and it answers for the common numbers.
struct JSONNumberTests {
    static func strtodValue(_ text: String) -> Double { text.withCString { strtod($0, nil) } }

    static func exact(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { JSONNumber.exactDouble($0) }
    }

    @Test func handPickedNumbers() {
        for text in ["0", "-0", "1", "-3", "12.5", "131402.8984", "0.1", "0.0001", "100.0", "9007199254740992",
                     "1e22", "1e-22", "-4.5e3", "0.3000000000000004", "2E+5", "7e-0"] {
            let value = Self.exact(text)
            #expect(value?.bitPattern == Self.strtodValue(text).bitPattern, "\(text)")
        }
        // Outside the fast path: nil, for the caller's reader.
        for text in ["9007199254740993", "123456789012345678", "0.30000000000000004", "1e23", "1e-23", "12345678901234567890", "1e00001"] {
            #expect(Self.exact(text) == nil, "\(text)")
        }
    }

    @Test func randomNumbersGiveStrtodsBits() {
        var random = SplitMix64(seed: 11)
        var answered = 0
        for _ in 0..<50_000 {
            let digits = 1 + Int(random.next() % 17)
            var mantissa = String(1 + random.next() % 9)
            for _ in 1..<digits { mantissa += String(random.next() % 10) }
            let point = Int(random.next() % UInt64(digits + 1))
            var text = point == digits ? mantissa : String(mantissa.prefix(point).isEmpty ? "0" : mantissa.prefix(point)) + "." + mantissa.dropFirst(point)
            if random.next() % 3 == 0 { text += "e" + String(Int(random.next() % 50) - 25) }
            if random.next() % 2 == 0 { text = "-" + text }
            guard let value = Self.exact(text) else { continue }
            answered += 1
            #expect(value.bitPattern == Self.strtodValue(text).bitPattern, "\(text)")
        }
        #expect(answered > 25_000, "answered \(answered) of 50,000")
    }
}
