/// `datCurrency`: a fixed-point number stored as Int64 = value × 10 000.
public struct Currency: Hashable, Sendable, CustomStringConvertible {
    /// The stored integer (value × 10 000).
    public var scaled: Int64
    public init(scaled: Int64) { self.scaled = scaled }

    /// Decimal text with trailing fractional zeros dropped: `2.5`, `-0.0001`, `3`.
    public var description: String {
        let magnitude = scaled.magnitude
        let whole = magnitude / 10_000
        var fraction = magnitude % 10_000
        var text = (scaled < 0 ? "-" : "") + String(whole)
        if fraction != 0 {
            var digits = 4
            while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
            let raw = String(fraction)
            text += "." + String(repeating: "0", count: digits - raw.count) + raw
        }
        return text
    }

    /// Parses decimal text with at most 4 fractional digits (`-12.5`, `3`, `0.0001`).
    public init?(_ text: String) {
        guard let parsed = DecimalText(text), parsed.fractionDigits.count <= 4 else { return nil }
        let digits = parsed.integerDigits + parsed.fractionDigits + String(repeating: "0", count: 4 - parsed.fractionDigits.count)
        guard let magnitude = UInt64(digits) else { return nil }
        if parsed.isNegative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            self.scaled = magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        } else {
            guard let value = Int64(exactly: magnitude) else { return nil }
            self.scaled = value
        }
    }
}

/// The parts of `[-]digits[.digits]` text (no exponent, no `+`).
struct DecimalText {
    var isNegative: Bool
    var integerDigits: String
    var fractionDigits: String

    init?(_ text: String) {
        var rest = Substring(text)
        isNegative = rest.first == "-"
        if isNegative { rest = rest.dropFirst() }
        let parts = rest.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = parts.first, !first.isEmpty, first.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        integerDigits = String(first)
        if parts.count == 2 {
            guard !parts[1].isEmpty, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            fractionDigits = String(parts[1])
        } else {
            fractionDigits = ""
        }
    }
}
