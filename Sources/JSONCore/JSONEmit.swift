// The byte forms of JSON text: escaping (see JSONWriter.swift's header), integers, literals.

/// The byte forms of JSON text (escaping, integers, literals), appended to a buffer: the one
/// definition that the writer, the serializer and the value emitters use.
public enum JSONEmit {
    /// Appends the UTF-8 bytes of `s` as they are.
    public static func appendRaw(_ s: String, to out: inout [UInt8]) {
        var s = s
        s.withUTF8 { out.append(contentsOf: $0) }
    }

    /// Appends `null`.
    public static func appendNull(to out: inout [UInt8]) {
        let text: StaticString = "null"
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends `true` or `false`.
    public static func appendBool(_ v: Bool, to out: inout [UInt8]) {
        let text: StaticString = v ? "true" : "false"
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends an unsigned integer in decimal.
    public static func appendUInt64(_ v: UInt64, to out: inout [UInt8]) {
        if v < 10 {
            out.append(UInt8(truncatingIfNeeded: v) &+ UInt8(ascii: "0"))
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            let count = writeDigits(v, to: digits.baseAddress!)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[..<count]))
        }
    }

    /// The decimal digits of `v` (at most 20), written at `destination`; returns how many. The
    /// one definition of integer text, for writers that store through a pointer. (Two digits
    /// per division, from a constant table: integers are a large share of the values written.)
    public static func writeDigits(_ v: UInt64, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        // The length from the bit length (× log10 2 ≈ 1233 / 4096, at most one short), then one
        // comparison with the power of ten it may reach; 0 has one digit.
        let bits = 64 &- (v | 1).leadingZeroBitCount
        let estimate = (bits &* 1233) &>> 12
        let length = max(1, estimate &+ (v >= powersOfTen[estimate] ? 1 : 0))
        let pairs = digitPairs.utf8Start
        var rest = v
        var k = length
        while rest >= 100 {
            let r = Int(truncatingIfNeeded: rest % 100) &* 2
            rest /= 100
            k &-= 2
            destination[k] = pairs[r]; destination[k &+ 1] = pairs[r &+ 1]
        }
        if rest >= 10 {
            let r = Int(truncatingIfNeeded: rest) &* 2
            destination[0] = pairs[r]; destination[1] = pairs[r &+ 1]
        } else {
            destination[0] = UInt8(truncatingIfNeeded: rest) &+ 48
        }
        return length
    }

    /// 10⁰ … 10¹⁹.
    static let powersOfTen: [UInt64] = (0 ..< 20).map { (0 ..< $0).reduce(1) { product, _ in product &* 10 } }

    /// "00", "01", … "99".
    static let digitPairs: StaticString = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    /// Appends a signed integer in decimal.
    public static func appendInt64(_ v: Int64, to out: inout [UInt8]) {
        if v < 0 { out.append(UInt8(ascii: "-")) }
        appendUInt64(v.magnitude, to: &out)
    }

    /// True if any of the 8 bytes is `"`, `\`, < 0x20 or DEL, or 0xC2 or 0xE2, which begin the
    /// C1 controls and the bidirectional controls (exact; other non-ASCII bytes are fine).
    @inline(__always)
    public static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func has(_ byte: UInt64) -> UInt64 {
            let x = word ^ (ones &* byte)
            return (x &- ones) & ~x
        }
        let control = (word &- ones &* 0x20) & ~word
        // DEL: its low seven bits all set, its high bit clear.
        let delete = ((word & ~high) &+ ones) & ~word
        // 0xC2 and 0xE2 differ only in bit 5: one test finds both.
        let lead = word & (ones &* 0xDF) ^ (ones &* 0xC2)
        return (control | has(0x22) | has(0x5C) | delete | (lead &- ones) & ~lead) & high != 0
    }

    /// `needsEscape` for a word of ASCII bytes (its high bits clear): `"`, `\`, < 0x20 or DEL.
    @inlinable @inline(__always)
    public static func asciiNeedsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* 0x22)
        let backslashes = word ^ (ones &* 0x5C)
        let control = (word &- ones &* 0x20) & ~word
        let quote = (quotes &- ones) & ~quotes
        let backslash = (backslashes &- ones) & ~backslashes
        let delete = word &+ ones // only 0x7F reaches the high bit: no byte is above it
        return (control | quote | backslash | delete) & high != 0
    }

    /// True for U+202A…U+202E (E2 80 AA…AE) and U+2066…U+2069 (E2 81 A6…A9), the bidirectional
    /// embeddings, overrides and isolates, from the second and third bytes of their UTF-8.
    @inlinable @inline(__always)
    public static func isBidiControl(_ second: UInt8, _ third: UInt8) -> Bool {
        (second == 0x80 && third &- 0xAA < 5) || (second == 0x81 && third &- 0xA6 < 4)
    }

    /// Appends `s` as a JSON string, quoted and escaped.
    public static func appendString(_ s: String, to out: inout [UInt8]) {
        var s = s
        s.withUTF8 { appendEscaped($0, to: &out) }
    }

    /// Appends `"…"` with JSON escaping of valid UTF-8 `text` (`writeEscaped`, a slice at a time
    /// through a buffer on the stack — 1 KiB, beyond which it would be allocated on the heap —
    /// so that no room for the worst case of a long text is ever made).
    public static func appendEscaped(_ text: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.reserveCapacity(out.count + text.count + 2)
        out.append(UInt8(ascii: "\""))
        let slice = 1024 / 6
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: escapedCapacity(slice)) { room in
            var start = 0
            while start < text.count {
                let end = min(start + slice, text.count)
                let count = writeEscaped(UnsafeBufferPointer(rebasing: text[start..<end]), to: room.baseAddress!)
                out.append(contentsOf: UnsafeBufferPointer(rebasing: room[..<count]))
                start = end
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// The most bytes `writeEscaped` writes for `count` bytes of text (each may become `\u00xx`).
    @inline(__always)
    public static func escapedCapacity(_ count: Int) -> Int { count &* 6 }

    /// Valid UTF-8 `text` escaped for a JSON string (see the file header), without the quotes,
    /// written at `destination`, which has room for `escapedCapacity(text.count)` bytes; returns
    /// how many were written. The one definition of JSON escaping, for writers that store
    /// through a pointer.
    public static func writeEscaped(_ text: UnsafeBufferPointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        var out = destination
        let count = text.count
        var runStart = 0
        var k = 0
        @inline(__always) func flush(_ end: Int) {
            guard runStart < end, let base = text.baseAddress else { return }
            out.update(from: base + runStart, count: end &- runStart)
            out += end &- runStart
        }
        while k < count {
            if let base = text.baseAddress {
                let raw = UnsafeRawPointer(base)
                while count &- k >= 8 && !needsEscape(raw.loadUnaligned(fromByteOffset: k, as: UInt64.self)) {
                    k &+= 8
                }
                if k >= count { break }
            }
            let byte = text[k]
            if byte >= 0x20 && byte != 0x22 && byte != 0x5C && byte != 0x7F {
                // A C1 control (C2 80…9F) or a bidirectional control: `\u0085`, `\u202e`.
                if byte == 0xC2 && k &+ 1 < count && text[k &+ 1] < 0xA0 {
                    flush(k)
                    out += writeUnicodeEscape(UInt16(text[k &+ 1]), to: out)
                    k &+= 2
                    runStart = k
                } else if byte == 0xE2 && k &+ 2 < count && isBidiControl(text[k &+ 1], text[k &+ 2]) {
                    flush(k)
                    out += writeUnicodeEscape(0x2000 | UInt16(text[k &+ 1] & 0x3F) << 6 | UInt16(text[k &+ 2] & 0x3F), to: out)
                    k &+= 3
                    runStart = k
                } else {
                    k &+= 1
                }
                continue
            }
            flush(k)
            out += writeEscape(byte, to: out)
            k &+= 1
            runStart = k
        }
        flush(count)
        return out - destination
    }

    /// `\uXXXX` (lower-case hex) for `unit`, written at `destination` (room for 6 bytes); returns 6.
    @inlinable @inline(__always)
    public static func writeUnicodeEscape(_ unit: UInt16, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        let hex = ("0123456789abcdef" as StaticString).utf8Start
        destination[0] = UInt8(ascii: "\\"); destination[1] = UInt8(ascii: "u")
        destination[2] = hex[Int(unit >> 12)]; destination[3] = hex[Int(unit >> 8 & 0xF)]
        destination[4] = hex[Int(unit >> 4 & 0xF)]; destination[5] = hex[Int(unit & 0xF)]
        return 6
    }

    /// The escape of an ASCII byte that needs one (`"`, `\\`, a control character, DEL), written
    /// at `destination` (room for 6 bytes); returns how many bytes it took.
    @inline(__always)
    public static func writeEscape(_ byte: UInt8, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        destination[0] = UInt8(ascii: "\\")
        switch byte {
        case 0x22: destination[1] = UInt8(ascii: "\"")
        case 0x5C: destination[1] = UInt8(ascii: "\\")
        case 0x0A: destination[1] = UInt8(ascii: "n")
        case 0x0D: destination[1] = UInt8(ascii: "r")
        case 0x09: destination[1] = UInt8(ascii: "t")
        case 0x08: destination[1] = UInt8(ascii: "b")
        case 0x0C: destination[1] = UInt8(ascii: "f")
        default:
            let hex = ("0123456789abcdef" as StaticString).utf8Start
            destination[1] = UInt8(ascii: "u"); destination[2] = UInt8(ascii: "0"); destination[3] = UInt8(ascii: "0")
            destination[4] = hex[Int(byte >> 4)]; destination[5] = hex[Int(byte & 0x0F)]
            return 6
        }
        return 2
    }

    /// Appends a line break and `indent` levels of indentation.
    public static func appendNewline(indent: Int, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent))
    }

    /// Appends `value` as JSON text, compact or pretty-printed.
    public static func appendValue(_ value: JSONValue, pretty: Bool, indent: Int, to out: inout [UInt8]) {
        switch value {
        case .null:
            appendNull(to: &out)
        case .bool(let v):
            appendBool(v, to: &out)
        case .number(let text):
            appendRaw(text, to: &out)
        case .string(let s):
            appendString(s, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            if elements.isEmpty {
                out.append(UInt8(ascii: "]"))
                return
            }
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                if pretty { appendNewline(indent: indent + 2, to: &out) }
                appendValue(element, pretty: pretty, indent: indent + 2, to: &out)
            }
            if pretty { appendNewline(indent: indent, to: &out) }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            if object.members.isEmpty {
                out.append(UInt8(ascii: "}"))
                return
            }
            for (index, member) in object.members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                if pretty { appendNewline(indent: indent + 2, to: &out) }
                appendString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                if pretty { out.append(UInt8(ascii: " ")) }
                appendValue(member.value, pretty: pretty, indent: indent + 2, to: &out)
            }
            if pretty { appendNewline(indent: indent, to: &out) }
            out.append(UInt8(ascii: "}"))
        }
    }
}
