// The bytes of the rows being streamed, written through a pointer: room is made once per
// value (`reserve`), then bytes are stored without a capacity check or a call per byte (an
// `[UInt8]` append costs ~100 instructions per call, which dominated the streamed rows).
// Escaping and number forms are exactly JSONWriter's (`writeString`, `writeInt`, base64url).

import JSONCore
import BriefcaseJSON

struct RowBuffer: ~Copyable {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    var count = 0

    init(capacity: Int = 1 << 17) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit { base.deallocate() }

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Makes room for `n` more bytes.
    @inline(__always)
    mutating func reserve(_ n: Int) {
        if count &+ n > capacity { grow(count + n) }
    }

    private mutating func grow(_ needed: Int) {
        let newCapacity = max(needed, capacity * 2)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    /// One byte (after `reserve`).
    @inline(__always)
    mutating func put(_ byte: UInt8) {
        base[count] = byte
        count &+= 1
    }

    mutating func append(_ text: StaticString) {
        reserve(text.utf8CodeUnitCount)
        (base + count).update(from: text.utf8Start, count: text.utf8CodeUnitCount)
        count &+= text.utf8CodeUnitCount
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let start = bytes.baseAddress else { return }
        reserve(bytes.count)
        (base + count).update(from: start, count: bytes.count)
        count &+= bytes.count
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    mutating func appendInt(_ value: Int64) {
        reserve(20)
        if value < 0 { put(UInt8(ascii: "-")) }
        appendDigits(value.magnitude)
    }

    mutating func appendUInt(_ value: UInt64) {
        reserve(20)
        appendDigits(value)
    }

    /// Decimal digits (room already made).
    @inline(__always)
    private mutating func appendDigits(_ value: UInt64) {
        var digits = 1
        var rest = value
        while rest >= 10 { rest /= 10; digits += 1 }
        var position = count + digits
        rest = value
        repeat {
            position -= 1
            base[position] = UInt8(truncatingIfNeeded: rest % 10) &+ UInt8(ascii: "0")
            rest /= 10
        } while rest != 0
        count += digits
    }

    /// `"…"` of a String, escaped as `JSONWriter.writeString` does.
    mutating func appendString(_ text: String) {
        var text = text
        text.withUTF8 { appendEscaped($0) }
    }

    /// `"…"` of valid UTF-8 `text`, escaped as `JSONWriter.writeString` does: `\"` `\\` `\n` `\r`
    /// `\t` `\b` `\f`, other control characters as `\u00xx`, everything else as it is.
    mutating func appendEscaped(_ text: UnsafeBufferPointer<UInt8>) {
        reserve(text.count * 6 + 2)
        put(UInt8(ascii: "\""))
        for byte in text {
            if byte >= 0x20 && byte != 0x22 && byte != 0x5C {
                put(byte)
                continue
            }
            put(UInt8(ascii: "\\"))
            switch byte {
            case 0x22: put(UInt8(ascii: "\""))
            case 0x5C: put(UInt8(ascii: "\\"))
            case 0x0A: put(UInt8(ascii: "n"))
            case 0x0D: put(UInt8(ascii: "r"))
            case 0x09: put(UInt8(ascii: "t"))
            case 0x08: put(UInt8(ascii: "b"))
            case 0x0C: put(UInt8(ascii: "f"))
            default:
                let hex = ("0123456789abcdef" as StaticString).utf8Start
                put(UInt8(ascii: "u"))
                put(UInt8(ascii: "0"))
                put(UInt8(ascii: "0"))
                put(hex[Int(byte >> 4)])
                put(hex[Int(byte & 0x0F)])
            }
        }
        put(UInt8(ascii: "\""))
    }

    /// A finite double as `JSONWriter.writeDouble` writes it (`description`).
    mutating func appendDouble(_ value: Double) {
        var text = value.description
        text.withUTF8 { append($0) }
    }

    /// `"…"` of the URL-safe base64 of `bytes`, without padding (as `writeURLSafeBase64String`).
    mutating func appendURLSafeBase64(_ bytes: UnsafeBufferPointer<UInt8>) {
        let alphabet = ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_" as StaticString).utf8Start
        reserve((bytes.count + 2) / 3 * 4 + 2)
        put(UInt8(ascii: "\""))
        var i = 0
        let n = bytes.count
        while i + 3 <= n {
            let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            put(alphabet[Int(v >> 18)])
            put(alphabet[Int(v >> 12 & 63)])
            put(alphabet[Int(v >> 6 & 63)])
            put(alphabet[Int(v & 63)])
            i += 3
        }
        if n - i == 1 {
            let v = UInt32(bytes[i]) << 16
            put(alphabet[Int(v >> 18)])
            put(alphabet[Int(v >> 12 & 63)])
        } else if n - i == 2 {
            let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            put(alphabet[Int(v >> 18)])
            put(alphabet[Int(v >> 12 & 63)])
            put(alphabet[Int(v >> 6 & 63)])
        }
        put(UInt8(ascii: "\""))
    }
}
