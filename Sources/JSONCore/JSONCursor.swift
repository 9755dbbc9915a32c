// The one tokenizer of JSON text: a position in the bytes and the grammar's pieces read at it
// (whitespace, literals, numbers, the plain runs of strings). `JSONParser` builds values and
// messages on it; readers that take a common form straight from the bytes (the briefcase
// document's rows) read with it too, so both follow exactly the same grammar.

/// A position in JSON bytes, and the pieces of RFC 8259's grammar read at it.
public struct JSONCursor {
    /// The JSON bytes.
    public let buf: UnsafeBufferPointer<UInt8>
    /// The index after the last byte.
    public let end: Int
    /// The reading position.
    public var i: Int

    /// A cursor over `buf` at index `i`.
    @inlinable
    public init(_ buf: UnsafeBufferPointer<UInt8>, at i: Int = 0) {
        self.buf = buf
        self.end = buf.count
        self.i = i
    }

    /// Whether the byte at the position is `byte`.
    @inlinable @inline(__always)
    public func at(_ byte: UInt8) -> Bool { i < end && buf[i] == byte }

    /// Steps over `byte` when it is there.
    @inlinable @inline(__always)
    public mutating func take(_ byte: UInt8) -> Bool {
        guard i < end, buf[i] == byte else { return false }
        i &+= 1
        return true
    }

    /// Space, tab, LF and CR.
    @inlinable @inline(__always)
    public mutating func skipWhitespace() {
        while i < end {
            switch buf[i] {
            case 0x20, 0x0A, 0x0D, 0x09: i &+= 1
            default: return
            }
        }
    }

    /// `literal` (`true`, `false`, `null`) at the position, stepped over; false (not moved)
    /// when the bytes differ or end first.
    @inlinable
    public mutating func literal(_ literal: StaticString) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard end &- i >= n else { return false }
        for k in 0..<n where buf[i &+ k] != literal.utf8Start[k] { return false }
        i &+= n
        return true
    }

    // MARK: strings

    /// True if any of the 8 bytes is `"`, `\`, < 0x20 or >= 0x80 (exact: no false negatives,
    /// and no false positives when all bytes are ASCII).
    @inlinable @inline(__always)
    public static func needsAttention(_ word: UInt64) -> Bool { attentionMask(word) != 0 }

    /// The high bit of each byte of `word` (little-endian: byte 0 lowest) that needs attention,
    /// as `needsAttention` tests. The lowest bit set is exact — a borrow only carries upward, and
    /// a byte >= 0x80 is flagged anyway — so it tells which byte is the first to look at.
    @inlinable @inline(__always)
    public static func attentionMask(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let backslashes = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        // With no high bits in `word`, x &- ones*n sets a high bit iff some byte of x is < n.
        return ((word &- ones &* 0x20) | (quotes &- ones) | (backslashes &- ones) | word) & high
    }

    /// Steps over the plain text of a string: ASCII but `"`, `\` and control characters, and
    /// well-formed UTF-8 sequences. Stops at the first other byte (the closing quote, an escape,
    /// a control character, a byte that starts no well-formed sequence) or at the end.
    @inlinable @inline(__always)
    public mutating func skipPlainText() {
        let raw = UnsafeRawPointer(buf.baseAddress!)
        while true {
            while end &- i >= 8 {
                let mask = Self.attentionMask(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
                // Straight to the first byte that needs a look (the closing quote, most often).
                if mask != 0 { i &+= mask.trailingZeroBitCount &>> 3; break }
                i &+= 8
            }
            guard i < end else { return }
            let byte = buf[i]
            if byte >= 0x80 {
                let length = UTF8Validation.sequenceLength(buf.baseAddress!, at: i, end: end)
                guard length > 0 else { return }
                i &+= length
            } else if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                return
            } else {
                i &+= 1
            }
        }
    }

    /// The content of a string without escapes at the position (on its opening quote), stepped
    /// over; nil for anything else (an escape included: the parser reads those).
    @inlinable @inline(__always)
    public mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
        guard at(UInt8(ascii: "\"")) else { return nil }
        i &+= 1
        let start = i
        skipPlainText()
        guard at(UInt8(ascii: "\"")) else { return nil }
        i &+= 1
        return UnsafeBufferPointer(rebasing: buf[start..<(i &- 1)])
    }

    // MARK: numbers

    /// True for an ASCII digit.
    @inlinable @inline(__always)
    public static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    /// What is wrong with a number, and where.
    public enum NumberProblem: Equatable, Sendable {
        /// The input ends inside it.
        case end
        /// `0` followed by a digit, at the `0`.
        case leadingZero(Int)
        /// A byte where a digit must be.
        case notADigit(Int)
    }

    /// Steps over a number (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`) starting at the
    /// position; nil when it is whole, else what is wrong.
    @inlinable
    public mutating func scanNumber() -> NumberProblem? {
        if i < end && buf[i] == UInt8(ascii: "-") { i &+= 1 }
        guard i < end else { return .end }
        if buf[i] == UInt8(ascii: "0") {
            i &+= 1
            if i < end && Self.isDigit(buf[i]) { return .leadingZero(i &- 1) }
        } else if let problem = digits() {
            return problem
        }
        if i < end && buf[i] == UInt8(ascii: ".") {
            i &+= 1
            if let problem = digits() { return problem }
        }
        if i < end && (buf[i] | 0x20) == UInt8(ascii: "e") {
            i &+= 1
            if i < end && (buf[i] == UInt8(ascii: "+") || buf[i] == UInt8(ascii: "-")) { i &+= 1 }
            if let problem = digits() { return problem }
        }
        return nil
    }

    /// At least one digit, then any more.
    @inlinable @inline(__always)
    mutating func digits() -> NumberProblem? {
        guard i < end else { return .end }
        guard Self.isDigit(buf[i]) else { return .notADigit(i) }
        while i < end && Self.isDigit(buf[i]) { i &+= 1 }
        return nil
    }

    /// A number's text at the position, stepped over; nil (position unspecified) when it is not
    /// a whole number.
    @inlinable
    public mutating func number() -> UnsafeBufferPointer<UInt8>? {
        let start = i
        guard scanNumber() == nil else { return nil }
        return UnsafeBufferPointer(rebasing: buf[start..<i])
    }

    /// A JSON integer (`-?(0|[1-9][0-9]*)`, not followed by a fraction or exponent) as sign and
    /// magnitude, stepped over; nil for other numbers and on overflow.
    @inlinable
    public mutating func integer() -> (negative: Bool, magnitude: UInt64)? {
        var negative = false
        if i < end && buf[i] == UInt8(ascii: "-") { negative = true; i &+= 1 }
        guard i < end, Self.isDigit(buf[i]) else { return nil }
        var magnitude: UInt64 = 0
        if buf[i] == UInt8(ascii: "0") {
            i &+= 1
        } else {
            while i < end && Self.isDigit(buf[i]) {
                let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times10.addingReportingOverflow(UInt64(buf[i] &- UInt8(ascii: "0")))
                guard !o1, !o2 else { return nil }
                magnitude = sum
                i &+= 1
            }
        }
        if i < end && (Self.isDigit(buf[i]) || buf[i] == UInt8(ascii: ".") || buf[i] | 0x20 == UInt8(ascii: "e")) { return nil }
        return (negative, magnitude)
    }
}
