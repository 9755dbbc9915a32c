import Testing
@testable import DatastoreKit

/// The wire's integer text (`{"I":…}`, `{"T":…}`) read from bytes (`Wire.canonicalInt64Value`,
/// what the row reader uses) against Swift's own integer parsing and printing: a text is
/// canonical exactly when `Int64(text)` reads it and prints it back the same.
struct CanonicalIntegerTests {
    static func fromBytes(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { Wire.canonicalInt64Value($0) }
    }

    static func expected(_ text: String) -> Int64? {
        guard let value = Int64(text), String(value) == text else { return nil }
        return value
    }

    @Test func edges() {
        for text in ["0", "-0", "00", "01", "-01", "+1", "", "-", "9223372036854775807", "9223372036854775808",
                     "-9223372036854775808", "-9223372036854775809", "12a", " 1", "1 ", "99999999999999999999"] {
            #expect(Self.fromBytes(text) == Self.expected(text), "\(text)")
            // The reasons' reader agrees on what is canonical.
            let reasoned: Int64? = if case .success(let value) = Wire.canonicalInt64(text) { value } else { nil }
            #expect(reasoned == Self.expected(text), "\(text)")
        }
    }

    @Test func randomTexts() {
        var state: UInt64 = 9
        func next() -> UInt64 { state = state &* 6364136223846793005 &+ 1442695040888963407; return state >> 33 }
        let alphabet = Array("0123456789-+0123456789")
        for _ in 0..<20_000 {
            let text = String((0..<Int(1 + next() % 21)).map { _ in alphabet[Int(next() % UInt64(alphabet.count))] })
            #expect(Self.fromBytes(text) == Self.expected(text), "\(text)")
        }
    }
}
