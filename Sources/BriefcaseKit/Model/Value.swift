/// One non-NULL field value, exactly as stored. NULL is `nil` in a `Value?`.
///
/// Each case keeps what the bytes say, never a lossy conversion: 8-bit and wide strings keep their
/// bytes (decode them with `CodePage` / `wideText`), DateTime keeps its double, Currency its scaled
/// integer, Decimal its 96-bit magnitude and flags, Boolean its byte.
public enum Value: Hashable, Sendable {
    /// `datString`, `datMemo`, `datFixedChar`: bytes in the writer's code page.
    case ansiString(ByteString)
    /// `datWideString`, `datWideMemo`, `datFixedWideChar`, `datXml`: UTF-16LE bytes.
    case wideString(ByteString)
    /// `datDateTime`: an OLE date.
    case dateTime(OLEDateTime)
    /// `datFloat`. The bit pattern is kept (NaN payloads included).
    case float(Double)
    /// `datSingleFloat`.
    case singleFloat(Float)
    /// `datCurrency`: fixed point, four decimals.
    case currency(Currency)
    /// Every integer type that fits Int64: AutoInc, Integer, LargeInt, LargeAutoInc, Byte,
    /// ShortInt, Word, SmallInt, Cardinal. The column type says the width on disk.
    case integer(Int64)
    /// `datLargeUInt`.
    case largeUInt(UInt64)
    /// `datBoolean`: the stored byte (0 = false, anything else = true; writers use 1).
    case boolean(UInt8)
    /// `datBlob`, `datCursor`.
    case blob(ByteString)
    /// `datGuid`: the 36 stored bytes (`XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX`).
    case guid(ByteString)
    /// Boxed (`indirect`): its 16 bytes have no spare bits, so stored inline they would make every
    /// value 24 bytes instead of 16 (a table's rows are mostly values; see ByteString).
    indirect case decimal(Decimal96)

    /// A `datBoolean` value (1 for true, 0 for false).
    public static func bool(_ value: Bool) -> Value { .boolean(value ? 1 : 0) }

    /// Values are equal when they store the same thing: floats compare by bit pattern, so a NaN
    /// equals itself and -0.0 differs from 0.0 (the model is about bytes, not arithmetic).
    public static func == (a: Value, b: Value) -> Bool {
        switch (a, b) {
        case (.float(let x), .float(let y)): return x.bitPattern == y.bitPattern
        case (.singleFloat(let x), .singleFloat(let y)): return x.bitPattern == y.bitPattern
        case (.ansiString(let x), .ansiString(let y)), (.wideString(let x), .wideString(let y)),
             (.blob(let x), .blob(let y)), (.guid(let x), .guid(let y)): return x == y
        case (.dateTime(let x), .dateTime(let y)): return x == y
        case (.currency(let x), .currency(let y)): return x == y
        case (.integer(let x), .integer(let y)): return x == y
        case (.largeUInt(let x), .largeUInt(let y)): return x == y
        case (.boolean(let x), .boolean(let y)): return x == y
        case (.decimal(let x), .decimal(let y)): return x == y
        default: return false
        }
    }

    /// Hashes the value as `==` compares it.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .float(let x): hasher.combine(0); hasher.combine(x.bitPattern)
        case .singleFloat(let x): hasher.combine(1); hasher.combine(x.bitPattern)
        case .ansiString(let x): hasher.combine(2); hasher.combine(x)
        case .wideString(let x): hasher.combine(3); hasher.combine(x)
        case .blob(let x): hasher.combine(4); hasher.combine(x)
        case .guid(let x): hasher.combine(5); hasher.combine(x)
        case .dateTime(let x): hasher.combine(6); hasher.combine(x)
        case .currency(let x): hasher.combine(7); hasher.combine(x)
        case .integer(let x): hasher.combine(8); hasher.combine(x)
        case .largeUInt(let x): hasher.combine(9); hasher.combine(x)
        case .boolean(let x): hasher.combine(10); hasher.combine(x)
        case .decimal(let x): hasher.combine(11); hasher.combine(x)
        }
    }
    /// A UTF-16 text value of `text`.
    public static func wide(_ text: String) -> Value { .wideString(WideText.encode(text)) }

    /// The storage this value needs, to check it against a column type.
    public func fits(_ storage: ValueStorage) -> Bool {
        switch (self, storage) {
        case (.ansiString, .ansiString), (.wideString, .wideString), (.dateTime, .dateTime),
             (.float, .float64), (.singleFloat, .float32), (.currency, .currency),
             (.largeUInt, .uint64), (.boolean, .boolean), (.blob, .blob), (.decimal, .decimal):
            return true
        case (.guid(let bytes), .guid):
            return bytes.count == 36
        case (.integer(let value), _):
            return storage.integerRange?.contains(value) ?? false
        default:
            return false
        }
    }
}

/// UTF-16LE text of wide strings.
package enum WideText {
    /// The text, or nil when the bytes are not well-formed UTF-16LE (odd length, unpaired surrogate).
    public static func decode(_ string: ByteString) -> String? {
        let count = string.count
        guard count % 2 == 0 else { return nil }
        guard count > 0 else { return "" }
        // Transcoded into the string's own storage (a String appended one scalar at a time cost
        // more than all the rest of reading an SQLite database back).
        var wellFormed = true
        let text = string.withUnsafeBufferPointer { source in
            String(unsafeUninitializedCapacity: count / 2 * 3) { buffer in
                guard let written = utf8(fromUTF16LE: source, to: buffer.baseAddress!) else {
                    wellFormed = false
                    return 0
                }
                return written
            }
        }
        return wellFormed ? text : nil
    }

    /// Well-formed UTF-16LE `source` (an even length, every surrogate paired: what SQLite and
    /// `WideText.decode` turn into the same text) as UTF-8 at `d`, which has room for 3 bytes per
    /// 2 of `source`; returns the UTF-8 length, nil when `source` is not well-formed.
    public static func utf8(fromUTF16LE source: UnsafeBufferPointer<UInt8>, to d: UnsafeMutablePointer<UInt8>) -> Int? {
        guard source.count % 2 == 0 else { return nil }
        var i = 0, o = 0
        while i < source.count {
            let unit = UInt32(source[i]) | UInt32(source[i + 1]) << 8
            i += 2
            if unit < 0x80 {
                d[o] = UInt8(unit)
                o += 1
            } else if unit < 0x800 {
                d[o] = UInt8(0xC0 | unit >> 6); d[o + 1] = UInt8(0x80 | unit & 0x3F)
                o += 2
            } else if unit & 0xF800 == 0xD800 {
                guard unit < 0xDC00, i < source.count else { return nil }
                let low = UInt32(source[i]) | UInt32(source[i + 1]) << 8
                guard low & 0xFC00 == 0xDC00 else { return nil }
                i += 2
                let scalar = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                d[o] = UInt8(0xF0 | scalar >> 18); d[o + 1] = UInt8(0x80 | scalar >> 12 & 0x3F)
                d[o + 2] = UInt8(0x80 | scalar >> 6 & 0x3F); d[o + 3] = UInt8(0x80 | scalar & 0x3F)
                o += 4
            } else {
                d[o] = UInt8(0xE0 | unit >> 12); d[o + 1] = UInt8(0x80 | unit >> 6 & 0x3F); d[o + 2] = UInt8(0x80 | unit & 0x3F)
                o += 3
            }
        }
        return o
    }

    /// The UTF-16LE bytes of `text`.
    public static func encode(_ text: String) -> ByteString {
        var text = text
        return text.withUTF8 { encode(utf8: $0) }
    }

    /// The UTF-16LE bytes of well-formed UTF-8 (a `String`'s, or bytes a JSON reader checked).
    package static func encode(utf8 text: UnsafeBufferPointer<UInt8>) -> ByteString {
        ByteString([UInt8](unsafeUninitializedCapacity: text.count * 2) { out, written in
            written = text.isEmpty ? 0 : writeUTF16LE(ofUTF8: text, to: out.baseAddress!)
        })
    }

    /// Writes the UTF-16LE of well-formed UTF-8 `text` at `out`, which has room for twice its
    /// bytes (each sequence gives at most two bytes per byte of it); returns how many it wrote.
    package static func writeUTF16LE(ofUTF8 text: UnsafeBufferPointer<UInt8>, to out: UnsafeMutablePointer<UInt8>) -> Int {
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
        return o
    }
}
