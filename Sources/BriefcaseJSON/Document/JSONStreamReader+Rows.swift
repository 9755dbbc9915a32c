import JSONCore
import BriefcaseKit

/// Reads one row in its plain form straight from the bytes: a JSON array with one entry per
/// column, each `null` or the value's usual spelling (§6.2) without escapes or fallback objects.
/// Anything else gives nil, and the caller reads the row with `ValueReader` instead, so this
/// never decides what is accepted: it only takes the common case faster, with the same result.
struct RowReader {
    let types: [DataType]
    let storages: [ValueStorage?]
    let codePage: CodePage
    let isUTF8: Bool

    init(types: [DataType], codePage: CodePage) {
        self.types = types
        self.storages = types.map(\.storage)
        self.codePage = codePage
        self.isUTF8 = codePage.isUTF8
    }

    func read(_ buf: UnsafeBufferPointer<UInt8>, _ position: inout Int) -> Row? {
        var cursor = Cursor(buf: buf, i: position)
        guard cursor.take(.openBracket) else { return nil }
        cursor.skipWhitespace()
        if storages.isEmpty {
            guard cursor.take(.closeBracket) else { return nil }
            position = cursor.i
            return []
        }
        var row: Row = []
        row.reserveCapacity(storages.count)
        let last = storages.count - 1
        for c in 0...last {
            cursor.skipWhitespace()
            switch entry(&cursor, storages[c]) {
            case .null?: row.append(nil)
            case .value(let value)?: row.append(value)
            case nil: return nil
            }
            cursor.skipWhitespace()
            guard cursor.take(c == last ? .closeBracket : .comma) else { return nil }
        }
        position = cursor.i
        return row
    }

    /// One entry of a row (a distinct type, so that "not in the plain form" cannot be confused
    /// with NULL through optional promotion).
    enum Entry {
        case null
        case value(Value)
    }

    /// The entry at the cursor; nil when it is not in its plain form.
    @inline(__always)
    private func entry(_ cursor: inout Cursor, _ storage: ValueStorage?) -> Entry? {
        guard cursor.i < cursor.end else { return nil }
        if cursor.buf[cursor.i] == UInt8(ascii: "n") {
            return cursor.literal("null") ? .null : nil
        }
        guard let storage, let value = value(&cursor, storage) else { return nil }
        return .value(value)
    }

    /// A non-NULL value in its plain form, or nil.
    @inline(__always)
    private func value(_ cursor: inout Cursor, _ storage: ValueStorage) -> Value? {
        let byte = cursor.buf[cursor.i]
        switch storage {
        case .ansiString:
            guard let text = cursor.string() else { return nil }
            if isUTF8 { return .ansiString(ByteString(Array(text))) }
            return codePage.encode(String(decoding: text, as: UTF8.self)).map { .ansiString($0) }
        case .wideString:
            guard let text = cursor.string() else { return nil }
            return .wideString(ByteString(Self.utf16LE(text)))
        case .blob:
            guard let text = cursor.string(), let bytes = Base64.decode(utf8: text) else { return nil }
            return .blob(ByteString(bytes))
        case .guid:
            guard let text = cursor.string(), text.count == 36 else { return nil }
            return .guid(ByteString(Array(text)))
        case .int8, .int16, .int32, .int64, .uint8, .uint16, .uint32:
            guard let (negative, magnitude) = cursor.integer() else { return nil }
            let value: Int64
            if negative {
                guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
                value = magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude)
            } else {
                guard magnitude <= UInt64(Int64.max) else { return nil }
                value = Int64(magnitude)
            }
            let result = Value.integer(value)
            return result.fits(storage) ? result : nil
        case .uint64:
            guard let (negative, magnitude) = cursor.integer(), !negative else { return nil }
            return .largeUInt(magnitude)
        case .boolean:
            if byte == UInt8(ascii: "t") { return cursor.literal("true") ? .boolean(1) : nil }
            if byte == UInt8(ascii: "f") { return cursor.literal("false") ? .boolean(0) : nil }
            return nil
        case .currency:
            guard let text = cursor.string(), let value = Currency(String(decoding: text, as: UTF8.self)) else { return nil }
            return .currency(value)
        case .decimal:
            guard let text = cursor.string(), let value = Decimal96(String(decoding: text, as: UTF8.self)) else { return nil }
            return .decimal(value)
        case .float64:
            // Not finite: out of range, which `ValueReader` refuses with its message.
            guard let text = cursor.number(), let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else { return nil }
            return .float(value)
        case .float32:
            guard let text = cursor.number(), let value = Float(String(decoding: text, as: UTF8.self)), value.isFinite else { return nil }
            return .singleFloat(value)
        case .dateTime:
            guard let text = cursor.string(), let value = OLEDateTime(isoText: String(decoding: text, as: UTF8.self)) else { return nil }
            return .dateTime(value)
        }
    }

    /// UTF-16LE of valid UTF-8 (what `WideText.encode` gives for the same text).
    static func utf16LE(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: text.count * 2) { out, initialized in
            var o = 0
            var k = 0
            let n = text.count
            @inline(__always) func put(_ unit: UInt32) {
                out[o] = UInt8(truncatingIfNeeded: unit)
                out[o + 1] = UInt8(truncatingIfNeeded: unit >> 8)
                o += 2
            }
            while k < n {
                let lead = UInt32(text[k])
                if lead < 0x80 {
                    put(lead); k += 1
                } else if lead < 0xE0 {
                    put((lead & 0x1F) << 6 | UInt32(text[k + 1]) & 0x3F); k += 2
                } else if lead < 0xF0 {
                    put((lead & 0x0F) << 12 | (UInt32(text[k + 1]) & 0x3F) << 6 | UInt32(text[k + 2]) & 0x3F); k += 3
                } else {
                    let scalar = (lead & 0x07) << 18 | (UInt32(text[k + 1]) & 0x3F) << 12
                        | (UInt32(text[k + 2]) & 0x3F) << 6 | UInt32(text[k + 3]) & 0x3F
                    let v = scalar - 0x10000
                    put(0xD800 | v >> 10); put(0xDC00 | v & 0x3FF); k += 4
                }
            }
            initialized = o
        }
    }
}

/// A position in the document's bytes, for the plain forms of values.
struct Cursor {
    let buf: UnsafeBufferPointer<UInt8>
    let end: Int
    var i: Int

    init(buf: UnsafeBufferPointer<UInt8>, i: Int) {
        self.buf = buf
        self.end = buf.count
        self.i = i
    }

    @inline(__always)
    mutating func take(_ byte: UInt8) -> Bool {
        guard i < end, buf[i] == byte else { return false }
        i &+= 1
        return true
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while i < end {
            switch buf[i] {
            case 0x20, 0x0A, 0x0D, 0x09: i &+= 1
            default: return
            }
        }
    }

    mutating func literal(_ text: StaticString) -> Bool {
        let n = text.utf8CodeUnitCount
        guard end - i >= n else { return false }
        for k in 0..<n where buf[i + k] != text.utf8Start[k] { return false }
        i += n
        return true
    }

    /// The content of a string without escapes, checked as the parser checks it (no control
    /// characters, valid UTF-8); nil for anything else (an escape included).
    @inline(__always)
    mutating func string() -> UnsafeBufferPointer<UInt8>? {
        guard i < end, buf[i] == .quote else { return nil }
        i &+= 1
        let start = i
        let raw = UnsafeRawPointer(buf.baseAddress!)
        while true {
            while end &- i >= 8 {
                if Self.needsAttention(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) { break }
                i &+= 8
            }
            guard i < end else { return nil }
            let byte = buf[i]
            if byte == .quote {
                let text = UnsafeBufferPointer(rebasing: buf[start..<i])
                i &+= 1
                return text
            } else if byte == UInt8(ascii: "\\") || byte < 0x20 {
                return nil
            } else if byte < 0x80 {
                i &+= 1
            } else if !skipUTF8Sequence() {
                return nil
            }
        }
    }

    /// True if any of the 8 bytes is `"`, `\`, < 0x20 or >= 0x80 (as in `JSONParser`).
    @inline(__always)
    static func needsAttention(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* UInt64(UInt8.quote))
        let backslashes = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        return ((word &- ones &* 0x20) | (quotes &- ones) | (backslashes &- ones) | word) & high != 0
    }

    /// One multi-byte UTF-8 sequence at `i`, with the parser's rules (`UTF8Validation`).
    mutating func skipUTF8Sequence() -> Bool {
        let length = UTF8Validation.sequenceLength(buf.baseAddress!, at: i, end: end)
        guard length > 0 else { return false }
        i &+= length
        return true
    }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    /// A JSON number's text (RFC 8259 grammar), or nil.
    mutating func number() -> UnsafeBufferPointer<UInt8>? {
        let start = i
        if i < end && buf[i] == UInt8(ascii: "-") { i += 1 }
        guard i < end, Self.isDigit(buf[i]) else { return nil }
        if buf[i] == UInt8(ascii: "0") {
            i += 1
            if i < end && Self.isDigit(buf[i]) { return nil }
        } else {
            while i < end && Self.isDigit(buf[i]) { i += 1 }
        }
        if i < end && buf[i] == UInt8(ascii: ".") {
            i += 1
            guard i < end, Self.isDigit(buf[i]) else { return nil }
            while i < end && Self.isDigit(buf[i]) { i += 1 }
        }
        if i < end && (buf[i] | 0x20) == UInt8(ascii: "e") {
            i += 1
            if i < end && (buf[i] == UInt8(ascii: "+") || buf[i] == UInt8(ascii: "-")) { i += 1 }
            guard i < end, Self.isDigit(buf[i]) else { return nil }
            while i < end && Self.isDigit(buf[i]) { i += 1 }
        }
        return UnsafeBufferPointer(rebasing: buf[start..<i])
    }

    /// A JSON integer (`-?(0|[1-9][0-9]*)`, not followed by a fraction or exponent) as sign and
    /// magnitude; nil for other numbers and on overflow.
    mutating func integer() -> (negative: Bool, magnitude: UInt64)? {
        var negative = false
        if i < end && buf[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        guard i < end, Self.isDigit(buf[i]) else { return nil }
        var magnitude: UInt64 = 0
        if buf[i] == UInt8(ascii: "0") {
            i += 1
        } else {
            while i < end && Self.isDigit(buf[i]) {
                let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times10.addingReportingOverflow(UInt64(buf[i] &- UInt8(ascii: "0")))
                guard !o1, !o2 else { return nil }
                magnitude = sum
                i += 1
            }
        }
        if i < end && (Self.isDigit(buf[i]) || buf[i] == UInt8(ascii: ".") || buf[i] | 0x20 == UInt8(ascii: "e")) { return nil }
        return (negative, magnitude)
    }
}
