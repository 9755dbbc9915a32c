// The common JSON numbers read exactly without the C library: Clinger's fast path.
//
// When a number's significant digits, as an integer m, are below 2^53 and its decimal exponent
// e is within ±22, both m and 10^|e| are exact doubles, so one multiplication (e ≥ 0) or one
// division (e < 0), rounded once, is the correctly rounded value of m × 10^e — what `strtod`
// gives. Every other number is left to the caller's reader (nil).

/// Exact reading of the numbers most documents hold (`12.5`, `-3`, `131402.8984`).
public enum JSONNumber {
    /// 10^0 … 10^22, each exact in a double.
    @usableFromInline static let powersOfTen: [Double] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                        1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]

    /// The double nearest the number `text` (one `JSONCursor.number()` checked), when the fast
    /// path applies; nil otherwise.
    @inlinable
    public static func exactDouble(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0
        let negative = i < text.count && text[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var exponent = 0
        while i < text.count, JSONCursor.isDigit(text[i]) {
            mantissa = mantissa &* 10 &+ UInt64(text[i] &- UInt8(ascii: "0"))
            digits += 1
            i += 1
        }
        if i < text.count, text[i] == UInt8(ascii: ".") {
            i += 1
            while i < text.count, JSONCursor.isDigit(text[i]) {
                mantissa = mantissa &* 10 &+ UInt64(text[i] &- UInt8(ascii: "0"))
                digits += 1
                exponent -= 1
                i += 1
            }
        }
        if i < text.count {
            // An exponent: [eE][+-]?digits (at most 4 of them; more are not the common case).
            i += 1
            var sign = 1
            if i < text.count, text[i] == UInt8(ascii: "-") || text[i] == UInt8(ascii: "+") {
                if text[i] == UInt8(ascii: "-") { sign = -1 }
                i += 1
            }
            var value = 0
            var count = 0
            while i < text.count, JSONCursor.isDigit(text[i]) {
                value = value * 10 + Int(text[i] &- UInt8(ascii: "0"))
                count += 1
                i += 1
            }
            guard count > 0, count <= 4 else { return nil }
            exponent += sign * value
        }
        guard i == text.count, digits > 0, digits <= 19, mantissa <= 1 << 53, exponent >= -22, exponent <= 22 else { return nil }
        var value = Double(mantissa)
        value = exponent >= 0 ? value * powersOfTen[exponent] : value / powersOfTen[-exponent]
        return negative ? -value : value
    }
}
