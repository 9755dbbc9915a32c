// The bytes of the rows being streamed, written through a pointer: room is made once per
// value (`reserve`), then bytes are stored without a capacity check or a call per byte (the same
// rows appended to an `[UInt8]` cost 9 % more instructions for the 10 MB bench briefcase).
// Escaping, integers and base64url are JSONCore's, the one definition (`JSONEmit`, `Base64Codec`).

import JSONCore

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
        count &+= JSONEmit.writeDigits(value.magnitude, to: base + count)
    }

    mutating func appendUInt(_ value: UInt64) {
        reserve(20)
        count &+= JSONEmit.writeDigits(value, to: base + count)
    }

    /// `Double(scaled) / 10_000`'s `description` for `|scaled|` below 10^15 (a currency's
    /// double, `SnapshotStreamer.double(_:)`), written from the integer: the double's shortest
    /// digits are the amount's own (at most 15 significant digits come back from a double
    /// unchanged), and between 10^-4 and 2^53 `description` writes them without an exponent,
    /// with at least one fraction digit (`7.0`, `0.0001`, `-131402.8984`).
    mutating func appendCurrencyDouble(_ scaled: Int64) {
        reserve(24)
        if scaled < 0 { put(UInt8(ascii: "-")) }
        let magnitude = scaled.magnitude
        count &+= JSONEmit.writeDigits(magnitude / 10_000, to: base + count)
        put(UInt8(ascii: "."))
        var fraction = magnitude % 10_000
        guard fraction != 0 else {
            put(UInt8(ascii: "0"))
            return
        }
        var digits = 4
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        // The fraction's digits with their leading zeros (0.0500 → "05").
        var k = digits
        while k > 0 {
            k -= 1
            base[count &+ k] = UInt8(ascii: "0") &+ UInt8(fraction % 10)
            fraction /= 10
        }
        count &+= digits
    }

    /// `"…"` of a String, escaped as `JSONWriter.writeString` does.
    mutating func appendString(_ text: String) {
        var text = text
        text.withUTF8 { appendEscaped($0) }
    }

    /// `"…"` of valid UTF-8 `text`, escaped as `JSONWriter.writeString` does.
    mutating func appendEscaped(_ text: UnsafeBufferPointer<UInt8>) {
        reserve(JSONEmit.escapedCapacity(text.count) + 2)
        put(UInt8(ascii: "\""))
        count &+= JSONEmit.writeEscaped(text, to: base + count)
        put(UInt8(ascii: "\""))
    }

    /// A finite double as `JSONWriter.writeDouble` writes it (`description`).
    mutating func appendDouble(_ value: Double) {
        var text = value.description
        text.withUTF8 { append($0) }
    }

    /// `"…"` of the URL-safe base64 of `bytes`, without padding (as `writeURLSafeBase64String`).
    mutating func appendURLSafeBase64(_ bytes: UnsafeBufferPointer<UInt8>) {
        let length = Base64Codec.encodedLength(bytes.count, padded: false)
        reserve(length + 2)
        put(UInt8(ascii: "\""))
        Base64Codec.encode(bytes, to: base + count, alphabet: Base64Codec.urlSafeAlphabet.utf8Start, padded: false)
        count &+= length
        put(UInt8(ascii: "\""))
    }
}
