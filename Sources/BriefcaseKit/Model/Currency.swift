/// `datCurrency`: a fixed-point number stored as Int64 = value × 10 000.
public struct Currency: Hashable, Sendable, CustomStringConvertible {
    /// The stored integer (value × 10 000).
    public var scaled: Int64
    /// A currency value of `scaled` / 10 000.
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
        var text = text
        guard let value = text.withUTF8({ Currency(utf8: $0) }) else { return nil }
        self = value
    }

    /// The same, from the text's UTF-8 bytes (no `String` made: what the JSON reader has).
    public init?(utf8 text: UnsafeBufferPointer<UInt8>) {
        let parsed: Int64?? = DecimalText.scan(text) { negative, integer, fraction -> Int64? in
            guard fraction.count <= 4 else { return nil }
            // The digits, then zeros up to 4 fraction digits, as one UInt64 (nil on overflow).
            var magnitude: UInt64 = 0
            func append(_ part: UnsafeBufferPointer<UInt8>) -> Bool {
                for digit in part {
                    let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
                    let (sum, o2) = times10.addingReportingOverflow(UInt64(digit &- 48))
                    guard !o1, !o2 else { return false }
                    magnitude = sum
                }
                return true
            }
            guard append(integer), append(fraction) else { return nil }
            for _ in fraction.count..<4 {
                let (times10, overflow) = magnitude.multipliedReportingOverflow(by: 10)
                guard !overflow else { return nil }
                magnitude = times10
            }
            if negative {
                guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
                return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
            }
            return Int64(exactly: magnitude)
        }
        guard let scaled = parsed ?? nil else { return nil }
        self.scaled = scaled
    }
}

/// The parts of `[-]digits[.digits]` text (no exponent, no `+`, ASCII digits only).
enum DecimalText {
    /// Calls `body` with the sign and the UTF-8 digits of the integer and fraction parts (the
    /// fraction empty when there is no point); nil when `utf8` is not of that form.
    static func scan<T>(_ utf8: UnsafeBufferPointer<UInt8>, _ body: (_ negative: Bool, _ integer: UnsafeBufferPointer<UInt8>, _ fraction: UnsafeBufferPointer<UInt8>) -> T) -> T? {
        let count = utf8.count
        @inline(__always) func isDigit(_ byte: UInt8) -> Bool { byte &- 48 < 10 }
        var i = 0
        let negative = count > 0 && utf8[0] == UInt8(ascii: "-")
        if negative { i = 1 }
        let integerStart = i
        while i < count, isDigit(utf8[i]) { i += 1 }
        let integerEnd = i
        guard integerEnd > integerStart else { return nil }
        var fractionStart = i, fractionEnd = i
        if i < count {
            guard utf8[i] == UInt8(ascii: ".") else { return nil }
            i += 1
            fractionStart = i
            while i < count, isDigit(utf8[i]) { i += 1 }
            fractionEnd = i
            guard fractionEnd > fractionStart, i == count else { return nil }
        }
        return body(negative, UnsafeBufferPointer(rebasing: utf8[integerStart..<integerEnd]),
                    UnsafeBufferPointer(rebasing: utf8[fractionStart..<fractionEnd]))
    }
}
