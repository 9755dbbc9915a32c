import JSONCore
import BriefcaseKit

/// The document's text of values and 8-bit strings (Spec/json-format.md §6), appended to a byte
/// buffer: what `JSONDocumentEncoder` writes for every row and change.
///
/// Not generic (the encoder is generic over its sink, and generic code called from another module
/// runs unspecialized), and it builds no `String` for the common forms — UTF-8 and UTF-16 text,
/// base64, integers, currency, decimals, ISO dates: a row's worst-case size is reserved once and
/// its values are written through a pointer. The output is byte for byte what the String-based
/// forms (`description`, `isoText`, `WideText.decode`, `Base64.encode`,
/// `CodePage.decodeReversibly`) give.
struct JSONValueEmitter {
    let codePage: CodePage
    let isUTF8: Bool
    /// Where values are written before being appended to the output (see `reserve`).
    let scratch = Scratch()

    init(codePage: CodePage) {
        self.codePage = codePage
        isUTF8 = codePage.isUTF8
    }

    /// A growable buffer of uninitialised bytes, reused for every row.
    final class Scratch {
        /// Set when an 8-bit string written as UTF-8 text was not valid UTF-8 (it went out as
        /// bytes): what a streaming writer that chose UTF-8 from the heads must know.
        var sawInvalidUTF8 = false
        private(set) var pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: 1 << 16)
        private(set) var capacity = 1 << 16

        /// A pointer to at least `count` bytes (their contents are not kept when it grows).
        @inline(__always)
        func room(_ count: Int) -> UnsafeMutablePointer<UInt8> {
            if count > capacity {
                pointer.deallocate()
                capacity = max(count, capacity * 2)
                pointer = .allocate(capacity: capacity)
            }
            return pointer
        }

        /// A pointer to at least `count` bytes whose first `kept` bytes are those written so far.
        func grow(keeping kept: Int, to count: Int) -> UnsafeMutablePointer<UInt8> {
            guard count > capacity else { return pointer }
            let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: max(count, capacity * 2))
            bigger.update(from: pointer, count: kept)
            pointer.deallocate()
            pointer = bigger
            capacity = max(count, capacity * 2)
            return pointer
        }

        deinit { pointer.deallocate() }
    }

    /// A positional array; the model must match its columns (as decoded models always do).
    ///
    /// One pass over the row, each value read once (copying a `Value` out of the row retains its
    /// bytes, and that was a tenth of the conversion's time when the row was walked twice), into
    /// the scratch buffer grown to each value's worst case; then one append. A value that does not
    /// fit its column throws after what came before it was written, as the value-by-value form
    /// did; 8-bit text in another code page than UTF-8 is written by `writeAnsi` in between.
    /// `storages`: `types.map(\.storage)`, worked out once per table by the caller.
    func writeValues(_ values: [Value?], _ types: [DataType], storages: [ValueStorage?], to out: inout [UInt8]) throws(BriefcaseError) {
        guard values.count == types.count, storages.count == types.count else {
            throw BriefcaseError(.invalidModel, "\(values.count) values for \(types.count) fields")
        }
        var o = 0
        var d = scratch.room(values.count &* 8 &+ 16)
        d[o] = UInt8(ascii: "["); o += 1
        for i in 0..<values.count {
            // Room for the separator, `null` and the closing bracket.
            if o &+ 8 > scratch.capacity { d = scratch.grow(keeping: o, to: o &+ 8) }
            if i > 0 { d[o] = UInt8(ascii: ","); d[o &+ 1] = UInt8(ascii: " "); o &+= 2 }
            guard let value = values[i] else { Self.put("null", d, &o); continue }
            guard let storage = storages[i], value.fits(storage) else {
                out.append(contentsOf: UnsafeBufferPointer(start: d, count: o))
                throw BriefcaseError(.invalidModel, "value \(value) does not fit a \(types[i].name) field")
            }
            if let size = maximumSize(value) {
                if o &+ size &+ 8 > scratch.capacity { d = scratch.grow(keeping: o, to: o &+ size &+ 8) }
                if !Self.put(value, d, &o) { scratch.sawInvalidUTF8 = true }
            } else {
                out.append(contentsOf: UnsafeBufferPointer(start: d, count: o))
                o = 0
                writeValue(value, type: types[i], to: &out) // may use (and move) the scratch buffer
                d = scratch.room(16)
            }
        }
        d[o] = UInt8(ascii: "]"); o += 1
        out.append(contentsOf: UnsafeBufferPointer(start: d, count: o))
    }

    /// An 8-bit string: text when the code page maps it reversibly, else `{"bytes": base64}`.
    func writeAnsi(_ string: ByteString, to out: inout [UInt8]) {
        if isUTF8 {
            reserve(Self.textBound(string.count), in: &out) { d in
                var o = 0
                if !Self.putUTF8Text(string, d, &o) { scratch.sawInvalidUTF8 = true }
                return o
            }
        } else if let text = codePage.decodeReversibly(string) {
            JSONEmit.appendString(text, to: &out)
        } else {
            writeBytesObject("bytes", string, to: &out)
        }
    }

    func writeBytesObject(_ key: StaticString, _ bytes: ByteString, to out: inout [UInt8]) {
        reserve(Self.objectBound(bytes.count), in: &out) { d in
            var o = 0
            Self.putBytesObject(key, bytes, d, &o)
            return o
        }
    }

    func writeValue(_ value: Value, type: DataType, to out: inout [UInt8]) {
        guard let size = maximumSize(value) else {
            // 8-bit text in a code page other than UTF-8.
            if case .ansiString(let string) = value { writeAnsi(string, to: &out) }
            return
        }
        reserve(size, in: &out) { d in
            var o = 0
            if !Self.put(value, d, &o) { scratch.sawInvalidUTF8 = true }
            return o
        }
    }

    // MARK: sizes

    /// The most bytes `put` writes for `value`; nil for 8-bit text in another code page than UTF-8
    /// (its UTF-8 size is not known before decoding it).
    @inline(__always)
    func maximumSize(_ value: Value) -> Int? {
        switch value {
        case .ansiString(let s): return isUTF8 ? Self.textBound(s.count) : nil
        case .wideString(let s), .guid(let s): return Self.textBound(s.count)
        case .blob(let s): return Self.base64Length(s.count) + 2
        case .integer, .largeUInt: return 21
        case .boolean: return 16
        case .currency: return 32
        case .decimal: return 300
        case .float, .singleFloat: return 48
        case .dateTime: return 64
        }
    }

    /// Escaped text of `count` input bytes (every byte as `\u00XX` at worst, a UTF-16 unit as 3
    /// UTF-8 bytes), or the bytes object when the text is not valid.
    @inline(__always)
    static func textBound(_ count: Int) -> Int { max(count * 6 + 2, objectBound(count)) }

    /// `{"decimalBytes": "…"}` and its shorter kin.
    @inline(__always)
    static func objectBound(_ count: Int) -> Int { base64Length(count) + 24 }

    @inline(__always)
    static func base64Length(_ count: Int) -> Int { (count + 2) / 3 * 4 }

    /// Lets `body` write at most `bound` bytes through a pointer and return how many it wrote,
    /// and appends those. The pointer is the scratch buffer, not `out`: an array cannot grow by
    /// uninitialised bytes, and making room in it by appending zeros cost the whole worst case
    /// (six times the text, a large blob byte by byte), where copying what was written costs
    /// only its size.
    @inline(__always)
    func reserve(_ bound: Int, in out: inout [UInt8], _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        let d = scratch.room(bound)
        let written = body(d)
        precondition(written <= bound, "JSONValueEmitter: a value outgrew its bound")
        out.append(contentsOf: UnsafeBufferPointer(start: d, count: written))
    }

    // MARK: writing through a pointer

    /// Every value but 8-bit text in a code page other than UTF-8. False when it was 8-bit text
    /// that is not valid UTF-8 (written as the bytes object).
    @discardableResult
    static func put(_ value: Value, _ d: UnsafeMutablePointer<UInt8>, _ o: inout Int) -> Bool {
        switch value {
        case .ansiString(let s): return putUTF8Text(s, d, &o)
        case .wideString(let s): s.withUnsafeBufferPointer { putWideText($0, d, &o) }
        case .blob(let s): putBase64String(s, d, &o)
        case .guid(let s): s.withUnsafeBufferPointer { putGUID($0, d, &o) }
        case .integer(let i): putInt64(i, d, &o)
        case .largeUInt(let u): putUInt64(u, d, &o)
        case .boolean(let b):
            switch b {
            case 0: put("false", d, &o)
            case 1: put("true", d, &o)
            default:
                put("{\"byte\": ", d, &o)
                putUInt64(UInt64(b), d, &o)
                d[o] = UInt8(ascii: "}"); o += 1
            }
        case .currency(let c):
            d[o] = UInt8(ascii: "\""); o += 1
            putCurrency(c, d, &o)
            d[o] = UInt8(ascii: "\""); o += 1
        case .decimal(let x): putDecimalValue(x, d, &o)
        case .float(let f):
            if f.isFinite { putText(f.description, d, &o) } else { putQuoted(FloatText.special(f), d, &o) }
        case .singleFloat(let f):
            if f.isFinite { putText(f.description, d, &o) } else { putQuoted(FloatText.special(f), d, &o) }
        case .dateTime(let x):
            if let fields = x.exactISOFields {
                d[o] = UInt8(ascii: "\""); o += 1
                putDigits(fields.year, 4, d, &o); d[o] = UInt8(ascii: "-"); o += 1
                putDigits(fields.month, 2, d, &o); d[o] = UInt8(ascii: "-"); o += 1
                putDigits(fields.day, 2, d, &o); d[o] = UInt8(ascii: "T"); o += 1
                putDigits(fields.hour, 2, d, &o); d[o] = UInt8(ascii: ":"); o += 1
                putDigits(fields.minute, 2, d, &o); d[o] = UInt8(ascii: ":"); o += 1
                putDigits(fields.second, 2, d, &o); d[o] = UInt8(ascii: "."); o += 1
                putDigits(fields.millisecond, 3, d, &o)
                d[o] = UInt8(ascii: "\""); o += 1
            } else {
                put("{\"oleDate\": ", d, &o)
                if x.value.isFinite { putText(x.value.description, d, &o) } else { putQuoted(FloatText.special(x.value), d, &o) }
                d[o] = UInt8(ascii: "}"); o += 1
            }
        }
        return true
    }

    /// A wide string: its text, or the bytes object when it is not well-formed UTF-16LE.
    @inline(__always)
    static func putWideText(_ s: UnsafeBufferPointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, _ o: inout Int) {
        if !putUTF16LEText(UnsafeRawBufferPointer(s), d, &o) { putBytesObject("utf16le", s, d, &o) }
    }

    /// A GUID: its text when every byte is printable ASCII, else the bytes object.
    @inline(__always)
    static func putGUID(_ s: UnsafeBufferPointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, _ o: inout Int) {
        if s.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { putEscaped(s, d, &o) } else { putBytesObject("bytes", s, d, &o) }
    }

    /// A decimal: its text when that reads back exactly, else its 16 bytes.
    static func putDecimalValue(_ x: Decimal96, _ d: UnsafeMutablePointer<UInt8>, _ o: inout Int) {
        if x.isTextReversible {
            d[o] = UInt8(ascii: "\""); o += 1
            putDecimal(x, d, &o)
            d[o] = UInt8(ascii: "\""); o += 1
        } else {
            var raw = ByteWriter()
            raw.writeInteger(x.low); raw.writeInteger(x.mid); raw.writeInteger(x.high); raw.writeInteger(x.flags)
            raw.bytes.withUnsafeBufferPointer { putBytesObject("decimalBytes", $0, d, &o) }
        }
    }

    @inline(__always)
    static func put(_ text: StaticString, _ d: UnsafeMutablePointer<UInt8>, _ o: inout Int) {
        (d + o).update(from: text.utf8Start, count: text.utf8CodeUnitCount)
        o += text.utf8CodeUnitCount
    }

    /// Text that needs no escaping (number spellings).
    static func putText(_ text: String, _ d: UnsafeMutablePointer<UInt8>, _ o: inout Int) {
        var text = text
        text.withUTF8 { utf8 in
            (d + o).update(from: utf8.baseAddress!, count: utf8.count)
            o += utf8.count
        }
    }

    static func putQuoted(_ text: String, _ d: UnsafeMutablePointer<UInt8>, _ o: inout Int) {
        d[o] = UInt8(ascii: "\""); o += 1
        putText(text, d, &o)
        d[o] = UInt8(ascii: "\""); o += 1
    }

    /// `value` in exactly `width` digits (zero-padded).
    @inline(__always)
    static func putDigits(_ value: Int, _ width: Int, _ d: UnsafeMutablePointer<UInt8>, _ o: inout Int) {
        var rest = value
        var k = o + width - 1
        while k >= o {
            d[k] = UInt8(truncatingIfNeeded: rest % 10) &+ 48
            rest /= 10
            k -= 1
        }
        o += width
    }

    @inline(__always)
    static func putUInt64(_ value: UInt64, _ d: UnsafeMutablePointer<UInt8>, _ o: inout Int) {
        o &+= JSONEmit.writeDigits(value, to: d + o)
    }

    static func putInt64(_ value: Int64, _ d: UnsafeMutablePointer<UInt8>, _ o: inout Int) {
        if value < 0 { d[o] = UInt8(ascii: "-"); o += 1 }
        putUInt64(value.magnitude, d, &o)
    }

    /// `Currency.description`: decimal text, trailing fractional zeros dropped (`2.5`, `-0.0001`, `3`).
    static func putCurrency(_ currency: Currency, _ d: UnsafeMutablePointer<UInt8>, _ o: inout Int) {
        let magnitude = currency.scaled.magnitude
        if currency.scaled < 0 { d[o] = UInt8(ascii: "-"); o += 1 }
        putUInt64(magnitude / 10_000, d, &o)
        var fraction = magnitude % 10_000
        guard fraction != 0 else { return }
        var digits = 4
        while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
        d[o] = UInt8(ascii: "."); o += 1
        putDigits(Int(fraction), digits, d, &o)
    }

    /// `Decimal96.description`: the magnitude with exactly `scale` fraction digits, `-` when the
    /// sign bit is set (`1.50`, `201403`, `-0.001`).
    static func putDecimal(_ decimal: Decimal96, _ d: UnsafeMutablePointer<UInt8>, _ o: inout Int) {
        // At most 29 digits for 96 bits, least significant first.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { digits in
            var count = 0
            if decimal.high == 0 {
                var rest = UInt64(decimal.mid) << 32 | UInt64(decimal.low)
                repeat {
                    digits[count] = UInt8(truncatingIfNeeded: rest % 10) &+ 48
                    count += 1
                    rest /= 10
                } while rest != 0
            } else {
                var limbs = (decimal.high, decimal.mid, decimal.low)
                while limbs != (0, 0, 0) {
                    var current = UInt64(limbs.0)
                    limbs.0 = UInt32(current / 10)
                    current = (current % 10) << 32 | UInt64(limbs.1)
                    limbs.1 = UInt32(current / 10)
                    current = (current % 10) << 32 | UInt64(limbs.2)
                    limbs.2 = UInt32(current / 10)
                    digits[count] = UInt8(current % 10) + 48
                    count += 1
                }
            }
            let scale = decimal.scale
            if decimal.isNegative { d[o] = UInt8(ascii: "-"); o += 1 }
            if scale > 0 && count <= scale {
                d[o] = UInt8(ascii: "0"); d[o + 1] = UInt8(ascii: "."); o += 2
                for _ in 0..<(scale - count) { d[o] = UInt8(ascii: "0"); o += 1 }
                for k in stride(from: count - 1, through: 0, by: -1) { d[o] = digits[k]; o += 1 }
            } else {
                for k in stride(from: count - 1, through: 0, by: -1) {
                    if scale > 0 && k == scale - 1 { d[o] = UInt8(ascii: "."); o += 1 }
                    d[o] = digits[k]; o += 1
                }
            }
        }
    }

    /// Notes an 8-bit string written elsewhere (an element encoded ahead) that was not valid UTF-8.
    func noteInvalidUTF8() { scratch.sawInvalidUTF8 = true }

    /// Whether an 8-bit string written as UTF-8 text since the last call was not valid UTF-8;
    /// clears the flag.
    func takeInvalidUTF8() -> Bool {
        defer { scratch.sawInvalidUTF8 = false }
        return scratch.sawInvalidUTF8
    }
}

/// Single values as the JSON document writes them (Spec/json-format.md §6), for tools that
/// print a value apart from a document (`briefcase diff --format jsonl`).
public enum JSONDocumentValue {
    /// The JSON text of `value` of a field of `type` (`null` for nil), 8-bit text in `codePage`.
    public static func text(_ value: Value?, type: DataType, codePage: CodePage) -> String {
        guard let value else { return "null" }
        var out: [UInt8] = []
        JSONValueEmitter(codePage: codePage).writeValue(value, type: type, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
