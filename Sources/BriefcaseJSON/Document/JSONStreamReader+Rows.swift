#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import JSONCore
import BriefcaseKit

/// Reads one row in its plain form straight from the bytes: a JSON array with one entry per
/// column, each `null` or the value's usual spelling (§6.2) without escapes or fallback objects.
/// Anything else gives nil, and the caller reads the row with `ValueReader` instead, so this
/// never decides what is accepted: it only takes the common case faster, with the same result.
struct RowReader {
    /// A JSON number the cursor checked (`text`, the cursor standing after it) read where it lies
    /// by the C library (`strtod`/`strtof`, no `String` made) when the byte after it is one the
    /// C reader stops at (`,`, `]`, `}`, white space) and it reads exactly `text`; else (another
    /// locale's decimal point, the end of the buffer) through a `String`, with the same result.
    @inline(__always)
    static func number<T>(_ text: UnsafeBufferPointer<UInt8>, endsBefore cursor: JSONCursor,
                          _ parse: (UnsafePointer<CChar>, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> T,
                          _ fromString: (String) -> T?) -> T? {
        if cursor.i < cursor.end, let start = text.baseAddress {
            switch cursor.buf[cursor.i] {
            case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), 0x20, 0x0A, 0x0D, 0x09:
                var stop: UnsafeMutablePointer<CChar>?
                let value = start.withMemoryRebound(to: CChar.self, capacity: text.count) { parse($0, &stop) }
                if let stop, Int(bitPattern: stop) == Int(bitPattern: start + text.count) { return value }
            default: break
            }
        }
        return fromString(String(decoding: text, as: UTF8.self))
    }

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
        var cursor = JSONCursor(buf, at: position)
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
            case .value(let parsed)?: row.append(parsed.value)
            case nil: return nil
            }
            cursor.skipWhitespace()
            guard cursor.take(c == last ? .closeBracket : .comma) else { return nil }
        }
        position = cursor.i
        return row
    }

    /// Reads one row in its plain form into `rows` as the bytes a Bin2 table stores it in (no
    /// `Value` made of it); false, nothing kept, when it is not in that form.
    func read(_ buf: UnsafeBufferPointer<UInt8>, _ position: inout Int, into rows: inout StoredRowsBuilder) -> Bool {
        var cursor = JSONCursor(buf, at: position)
        guard cursor.take(.openBracket) else { return false }
        cursor.skipWhitespace()
        rows.beginRow()
        if storages.isEmpty {
            guard cursor.take(.closeBracket) else { rows.cancelRow(); return false }
        } else {
            let last = storages.count - 1
            for c in 0...last {
                cursor.skipWhitespace()
                guard let entry = entry(&cursor, storages[c]), write(entry, c, into: &rows) else { rows.cancelRow(); return false }
                cursor.skipWhitespace()
                guard cursor.take(c == last ? .closeBracket : .comma) else { rows.cancelRow(); return false }
            }
        }
        rows.endRow()
        position = cursor.i
        return true
    }

    /// Writes entry `entry` of column `c` into `rows`; false when it cannot be kept as bytes.
    @inline(__always)
    private func write(_ entry: Entry, _ c: Int, into rows: inout StoredRowsBuilder) -> Bool {
        guard case .value(let parsed) = entry else { rows.null(c); return true }
        switch parsed {
        case .scalar(let value):
            switch value {
            case .integer(let x): rows.integer(x, storages[c]!)
            case .largeUInt(let x): rows.scalar(x)
            case .boolean(let x): rows.scalar(x)
            case .currency(let x): rows.scalar(x.scaled)
            case .float(let x): rows.scalar(x.bitPattern)
            case .singleFloat(let x): rows.scalar(x.bitPattern)
            case .dateTime(let x): rows.scalar(x.value.bitPattern)
            default: return false  // (not made by `parse`)
            }
        case .decimal(let x):
            rows.scalar(x.low); rows.scalar(x.mid); rows.scalar(x.high); rows.scalar(x.flags)
        case .text(let text): return rows.lengthPrefixed(text)
        case .encoded(let text): return text.withUnsafeBufferPointer { rows.lengthPrefixed($0) }
        case .wideText(let text): return rows.lengthPrefixed(maximum: text.count &* 2) { Self.utf16LE(text, to: $0) }
        case .blob(let bytes): return bytes.withUnsafeBufferPointer { rows.lengthPrefixed($0) }
        case .guid(let text): rows.raw(text)
        }
        return true
    }

    /// A change in its plain form, as the writer puts it: `{"type": name, "recordID": integer,
    /// "status": name, "message": text, "old": row, "new": row}`, those keys in that order, the
    /// codes by name, the message and the rows in their plain form (`read`). Anything else gives
    /// nil, and the caller reads the change with `ValueReader` instead — as for rows, this only
    /// takes the common case faster, with the same result.
    func change(_ buf: UnsafeBufferPointer<UInt8>, _ position: inout Int) -> DeltaChange? {
        var cursor = JSONCursor(buf, at: position)
        @inline(__always) func key(_ name: StaticString, first: Bool = false) -> Bool {
            cursor.skipWhitespace()
            guard first || cursor.take(.comma) else { return false }
            cursor.skipWhitespace()
            guard cursor.literal(name) else { return false }
            cursor.skipWhitespace()
            guard cursor.take(.colon) else { return false }
            cursor.skipWhitespace()
            return true
        }
        @inline(__always) func code(_ names: [String]) -> Int32? {
            guard let text = cursor.plainString() else { return nil }
            return names.firstIndex { $0.utf8.elementsEqual(text) }.map(Int32.init)
        }
        guard cursor.take(.openBrace), key("\"type\"", first: true), let type = code(ChangeType.names),
              key("\"recordID\""), let id = cursor.integer(), !(id.negative && id.magnitude == 0),
              id.magnitude <= (id.negative ? UInt64(Int32.max) + 1 : UInt64(Int32.max)),
              key("\"status\""), let status = code(ChangeStatus.names),
              key("\"message\""), case .value(let parsedMessage)? = entry(&cursor, .ansiString),
              case .ansiString(let message) = parsedMessage.value,
              key("\"old\"") else { return nil }
        var at = cursor.i
        guard let old = read(buf, &at) else { return nil }
        cursor.i = at
        guard key("\"new\"") else { return nil }
        at = cursor.i
        guard let new = read(buf, &at) else { return nil }
        cursor.i = at
        cursor.skipWhitespace()
        guard cursor.take(.closeBrace) else { return nil }
        position = cursor.i
        let recordID = id.negative ? Int32(truncatingIfNeeded: 0 &- Int64(id.magnitude)) : Int32(id.magnitude)
        return DeltaChange(type: ChangeType(rawValue: type), recordID: recordID, status: ChangeStatus(rawValue: status),
                           message: message, oldValues: old, newValues: new)
    }

    /// One entry of a row (a distinct type, so that "not in the plain form" cannot be confused
    /// with NULL through optional promotion).
    enum Entry {
        case null
        case value(Parsed)
    }

    /// A value as parsed, before it is made a `Value` (`value`) or written as bytes (`write`):
    /// text and blobs as the bytes they are read from, no array made for the bytes path.
    enum Parsed {
        /// Any value of a fixed size but a decimal.
        case scalar(Value)
        /// A decimal (unboxed: the `Value` case is indirect).
        case decimal(Decimal96)
        /// 8-bit text in UTF-8: the bytes as they are.
        case text(UnsafeBufferPointer<UInt8>)
        /// 8-bit text in another code page, encoded.
        case encoded(ByteString)
        /// A wide string's text, in UTF-8 (valid: the cursor checked it).
        case wideText(UnsafeBufferPointer<UInt8>)
        case blob([UInt8])
        case guid(UnsafeBufferPointer<UInt8>)

        /// The value.
        var value: Value {
            switch self {
            case .scalar(let value): return value
            case .decimal(let x): return .decimal(x)
            case .text(let text): return .ansiString(ByteString(Array(text)))
            case .encoded(let text): return .ansiString(text)
            case .wideText(let text): return .wideString(ByteString(RowReader.utf16LE(text)))
            case .blob(let bytes): return .blob(ByteString(bytes))
            case .guid(let text): return .guid(ByteString(Array(text)))
            }
        }
    }

    /// The entry at the cursor; nil when it is not in its plain form.
    @inline(__always)
    private func entry(_ cursor: inout JSONCursor, _ storage: ValueStorage?) -> Entry? {
        guard cursor.i < cursor.end else { return nil }
        if cursor.buf[cursor.i] == UInt8(ascii: "n") {
            return cursor.literal("null") ? .null : nil
        }
        guard let storage, let value = parse(&cursor, storage) else { return nil }
        return .value(value)
    }

    /// A non-NULL value in its plain form, or nil.
    @inline(__always)
    private func parse(_ cursor: inout JSONCursor, _ storage: ValueStorage) -> Parsed? {
        let byte = cursor.buf[cursor.i]
        switch storage {
        case .ansiString:
            guard let text = cursor.plainString() else { return nil }
            if isUTF8 { return .text(text) }
            return codePage.encode(String(decoding: text, as: UTF8.self)).map { .encoded($0) }
        case .wideString:
            guard let text = cursor.plainString() else { return nil }
            return .wideText(text)
        case .blob:
            guard let text = cursor.plainString(), let bytes = Base64.decode(utf8: text) else { return nil }
            return .blob(bytes)
        case .guid:
            guard let text = cursor.plainString(), text.count == 36 else { return nil }
            return .guid(text)
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
            return result.fits(storage) ? .scalar(result) : nil
        case .uint64:
            guard let (negative, magnitude) = cursor.integer(), !negative else { return nil }
            return .scalar(.largeUInt(magnitude))
        case .boolean:
            if byte == UInt8(ascii: "t") { return cursor.literal("true") ? .scalar(.boolean(1)) : nil }
            if byte == UInt8(ascii: "f") { return cursor.literal("false") ? .scalar(.boolean(0)) : nil }
            return nil
        case .currency:
            guard let text = cursor.plainString(), let value = Currency(utf8: text) else { return nil }
            return .scalar(.currency(value))
        case .decimal:
            guard let text = cursor.plainString(), let value = Decimal96(utf8: text) else { return nil }
            return .decimal(value)
        case .float64:
            // Not finite: out of range, which `ValueReader` refuses with its message.
            guard let text = cursor.number(), let value = Self.number(text, endsBefore: cursor, strtod, { Double($0) }), value.isFinite else { return nil }
            return .scalar(.float(value))
        case .float32:
            guard let text = cursor.number(), let value = Self.number(text, endsBefore: cursor, strtof, { Float($0) }), value.isFinite else { return nil }
            return .scalar(.singleFloat(value))
        case .dateTime:
            guard let text = cursor.plainString(), let value = OLEDateTime(isoText: text) else { return nil }
            return .scalar(.dateTime(value))
        }
    }

    /// UTF-16LE of valid UTF-8 (what `WideText.encode` gives for the same text).
    static func utf16LE(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: text.count * 2) { out, initialized in
            initialized = text.isEmpty ? 0 : utf16LE(text, to: out.baseAddress!)
        }
    }

    /// Writes the UTF-16LE of valid UTF-8 `text` at `out`, which has room for twice its bytes;
    /// returns how many bytes it wrote.
    static func utf16LE(_ text: UnsafeBufferPointer<UInt8>, to out: UnsafeMutablePointer<UInt8>) -> Int {
        do {
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
}

