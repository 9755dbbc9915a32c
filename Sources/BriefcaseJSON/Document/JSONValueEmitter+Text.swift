import JSONCore
import BriefcaseKit

/// Text, base64 and the bytes objects, written through a pointer (`JSONValueEmitter.put`): the
/// forms of strings, blobs and GUIDs, for values and for bytes where they lie (`JSONRowVisitor`).
extension JSONValueEmitter {
    static func putBase64String(_ bytes: ByteString, _ d: UnsafeMutablePointer<UInt8>, _ o: inout Int) {
        bytes.withUnsafeBufferPointer { putBase64String($0, d, &o) }
    }

    static func putBase64String(_ source: UnsafeBufferPointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, _ o: inout Int) {
        d[o] = UInt8(ascii: "\""); o += 1
        do {
            var s = 0
            var out = d + o
            // Blobs are most of a typical document: six bytes at a time, one 8-byte load and four
            // lookups of two characters each (half the work of a character per lookup).
            if let base = source.baseAddress, source.count >= 8 {
                let raw = UnsafeRawPointer(base)
                base64Pairs.withUnsafeBufferPointer { pairs in
                    while source.count &- s >= 8 {
                        let v = UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: s, as: UInt64.self))
                        let word = UInt64(pairs[Int(truncatingIfNeeded: v >> 52)])
                            | UInt64(pairs[Int(truncatingIfNeeded: v >> 40 & 0xFFF)]) << 16
                            | UInt64(pairs[Int(truncatingIfNeeded: v >> 28 & 0xFFF)]) << 32
                            | UInt64(pairs[Int(truncatingIfNeeded: v >> 16 & 0xFFF)]) << 48
                        UnsafeMutableRawPointer(out).storeBytes(of: word.littleEndian, as: UInt64.self)
                        s &+= 6
                        out += 8
                    }
                }
            }
            Base64Codec.encode(UnsafeBufferPointer(rebasing: source[s...]), to: out,
                               alphabet: Base64Codec.standardAlphabet.utf8Start, padded: true)
        }
        o += base64Length(source.count)
        d[o] = UInt8(ascii: "\""); o += 1
    }

    /// The standard alphabet's characters for every 12-bit group, first character in the low byte.
    static let base64Pairs: [UInt16] = {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        return (0 ..< 4096).map { UInt16(alphabet[$0 >> 6]) | UInt16(alphabet[$0 & 63]) << 8 }
    }()

    static func putBytesObject(_ key: StaticString, _ bytes: ByteString, _ d: UnsafeMutablePointer<UInt8>, _ o: inout Int) {
        bytes.withUnsafeBufferPointer { putBytesObject(key, $0, d, &o) }
    }

    static func putBytesObject(_ key: StaticString, _ bytes: UnsafeBufferPointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, _ o: inout Int) {
        put("{\"", d, &o)
        put(key, d, &o)
        put("\": ", d, &o)
        putBase64String(bytes, d, &o)
        d[o] = UInt8(ascii: "}"); o += 1
    }

    /// UTF-8 text as a JSON string when the bytes are strict UTF-8, else the bytes object.
    @discardableResult
    static func putUTF8Text(_ string: ByteString, _ d: UnsafeMutablePointer<UInt8>, _ o: inout Int) -> Bool {
        string.withUnsafeBufferPointer { putUTF8Text($0, d, &o) }
    }

    @discardableResult @inline(__always)
    static func putUTF8Text(_ text: UnsafeBufferPointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, _ o: inout Int) -> Bool {
        // ASCII that needs no escape, eight bytes at a time: valid, and copied as it is, in one
        // pass (most text is). The rest is checked, then escaped, as a whole text would be.
        var i = 0
        if let base = text.baseAddress {
            let raw = UnsafeRawPointer(base), out = UnsafeMutableRawPointer(d + o + 1)
            while text.count &- i >= 8 {
                let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                guard word & 0x8080_8080_8080_8080 == 0, !JSONEmit.asciiNeedsEscape(word) else { break }
                out.storeBytes(of: word, toByteOffset: i, as: UInt64.self)
                i &+= 8
            }
        }
        let rest = UnsafeBufferPointer(rebasing: text[i...])
        // Strict UTF-8 decodes one to one: the text's bytes are the stored bytes.
        guard UTF8Validation.isValid(rest) else { putBytesObject("bytes", text, d, &o); return false }
        d[o] = UInt8(ascii: "\""); o &+= 1 &+ i
        o &+= JSONEmit.writeEscaped(rest, to: d + o)
        d[o] = UInt8(ascii: "\""); o &+= 1
        return true
    }

    /// `"…"` with JSON's escaping (`JSONEmit`), for valid UTF-8.
    static func putEscaped(_ text: UnsafeBufferPointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, _ o: inout Int) {
        d[o] = UInt8(ascii: "\""); o += 1
        o &+= JSONEmit.writeEscaped(text, to: d + o)
        d[o] = UInt8(ascii: "\""); o += 1
    }

    /// `"…"`: UTF-16LE bytes as escaped UTF-8 (what `appendString` writes for the text
    /// `WideText.decode` gives), and true; nothing and false when the bytes are not well-formed
    /// UTF-16LE (odd length, unpaired surrogate).
    static func putUTF16LEText(_ source: UnsafeRawBufferPointer, _ d: UnsafeMutablePointer<UInt8>, _ o: inout Int) -> Bool {
        guard source.count % 2 == 0 else { return false }
        let units = source.count / 2
        let start = o
        let ok = { () -> Bool in
            d[o] = UInt8(ascii: "\""); o += 1
            var i = 0
            @inline(__always) func unit(_ k: Int) -> UInt32 {
                UInt32(source[2 &* k]) | UInt32(source[2 &* k &+ 1]) << 8
            }
            let raw = UnsafeRawPointer(source.baseAddress ?? UnsafeRawPointer(d))
            while i < units {
                // Four units of ASCII that needs no escape at a time: their low bytes, packed.
                while units &- i >= 4 {
                    let w = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 2 &* i, as: UInt64.self))
                    guard w & 0xFF80_FF80_FF80_FF80 == 0 else { break }
                    let packed = w & 0xFF | w >> 8 & 0xFF00 | w >> 16 & 0xFF_0000 | w >> 24 & 0xFF00_0000
                    guard !JSONEmit.asciiNeedsEscape(packed | 0x4141_4141_0000_0000) else { break }
                    UnsafeMutableRawPointer(d + o).storeBytes(of: UInt32(truncatingIfNeeded: packed).littleEndian, as: UInt32.self)
                    o &+= 4
                    i &+= 4
                }
                guard i < units else { break }
                let u = unit(i)
                i &+= 1
                if u < 0x80 {
                    let byte = UInt8(truncatingIfNeeded: u)
                    if byte >= 0x20 && byte != 0x22 && byte != 0x5C && byte != 0x7F {
                        d[o] = byte; o &+= 1
                    } else {
                        o &+= JSONEmit.writeEscape(byte, to: d + o)
                    }
                } else if u < 0xA0 || u &- 0x202A < 5 || u &- 0x2066 < 4 {
                    // C1 (U+0080…009F), bidirectional (U+202A…202E, U+2066…2069): as JSONEmit escapes them.
                    o &+= JSONEmit.writeUnicodeEscape(UInt16(truncatingIfNeeded: u), to: d + o)
                } else if u < 0x800 {
                    d[o] = UInt8(truncatingIfNeeded: 0xC0 | u >> 6)
                    d[o &+ 1] = UInt8(truncatingIfNeeded: 0x80 | u & 0x3F)
                    o &+= 2
                } else if u & 0xF800 != 0xD800 {
                    d[o] = UInt8(truncatingIfNeeded: 0xE0 | u >> 12)
                    d[o &+ 1] = UInt8(truncatingIfNeeded: 0x80 | u >> 6 & 0x3F)
                    d[o &+ 2] = UInt8(truncatingIfNeeded: 0x80 | u & 0x3F)
                    o &+= 3
                } else {
                    // A high surrogate followed by a low one; anything else is ill-formed.
                    guard u <= 0xDBFF, i < units else { return false }
                    let low = unit(i)
                    guard low & 0xFC00 == 0xDC00 else { return false }
                    i &+= 1
                    let scalar = 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00)
                    d[o] = UInt8(truncatingIfNeeded: 0xF0 | scalar >> 18)
                    d[o &+ 1] = UInt8(truncatingIfNeeded: 0x80 | scalar >> 12 & 0x3F)
                    d[o &+ 2] = UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F)
                    d[o &+ 3] = UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F)
                    o &+= 4
                }
            }
            d[o] = UInt8(ascii: "\""); o += 1
            return true
        }()
        if !ok { o = start }
        return ok
    }
}
