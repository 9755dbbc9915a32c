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
    /// (a double `JSONNumber.exactDouble` cannot read exactly, for a float any)
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
        var values = RowValues(capacity: storages.count)
        guard read(buf, &position, into: &values) else { return nil }
        return values.row
    }

    /// Reads one row in its plain form into `rows` as the bytes a Bin2 table stores it in (no
    /// `Value` made of it); false, nothing kept, when it is not in that form.
    func read(_ buf: UnsafeBufferPointer<UInt8>, _ position: inout Int, into rows: StoredRowsBuilder) -> Bool {
        var output = rows
        rows.beginRow()
        guard read(buf, &position, into: &output) else { rows.cancelRow(); return false }
        rows.endRow()
        return true
    }

    /// The row's entries into `output`; false when the row is not in its plain form (`output`
    /// then holds part of it).
    @inline(__always)
    private func read<Output: ParsedValues>(_ buf: UnsafeBufferPointer<UInt8>, _ position: inout Int, into output: inout Output) -> Bool {
        var cursor = JSONCursor(buf, at: position)
        guard cursor.take(.openBracket) else { return false }
        cursor.skipWhitespace()
        if storages.isEmpty {
            guard cursor.take(.closeBracket) else { return false }
        } else {
            let last = storages.count - 1
            for c in 0...last {
                cursor.skipWhitespace()
                guard entry(&cursor, c, storages[c], into: &output) else { return false }
                cursor.skipWhitespace()
                guard cursor.take(c == last ? .closeBracket : .comma) else { return false }
            }
        }
        position = cursor.i
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
              key("\"message\""), case .ansiString(let message)? = messageText(&cursor),
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

    /// A change's message, in the plain form of an 8-bit text (not NULL).
    private func messageText(_ cursor: inout JSONCursor) -> Value? {
        var value = RowValues(capacity: 1)
        guard cursor.i < cursor.end, cursor.buf[cursor.i] != UInt8(ascii: "n"),
              entry(&cursor, 0, .ansiString, into: &value) else { return nil }
        return value.row[0] ?? nil
    }

    /// The entry of column `column` at the cursor into `output`; false when it is not in its
    /// plain form.
    @inline(__always)
    private func entry<Output: ParsedValues>(_ cursor: inout JSONCursor, _ column: Int, _ storage: ValueStorage?,
                                              into output: inout Output) -> Bool {
        guard cursor.i < cursor.end else { return false }
        if cursor.buf[cursor.i] == UInt8(ascii: "n") {
            guard cursor.literal("null") else { return false }
            output.null(column)
            return true
        }
        guard let storage else { return false }
        return parse(&cursor, column, storage, into: &output)
    }

    /// A non-NULL value in its plain form, into `output`; false when it is not in that form.
    @inline(__always)
    private func parse<Output: ParsedValues>(_ cursor: inout JSONCursor, _ c: Int, _ storage: ValueStorage,
                                             into output: inout Output) -> Bool {
        let byte = cursor.buf[cursor.i]
        switch storage {
        case .ansiString:
            guard let text = cursor.plainString() else { return false }
            if isUTF8 { return output.text(text, c) }
            guard let encoded = codePage.encode(String(decoding: text, as: UTF8.self)) else { return false }
            return output.encodedText(encoded, c)
        case .wideString:
            guard let text = cursor.plainString() else { return false }
            return output.wideText(text, c)
        case .blob:
            guard let text = cursor.plainString(), let bytes = Base64.decode(utf8: text) else { return false }
            return output.blob(bytes, c)
        case .guid:
            guard let text = cursor.plainString(), text.count == 36 else { return false }
            output.guid(text, c)
            return true
        case .int8, .int16, .int32, .int64, .uint8, .uint16, .uint32:
            guard let (negative, magnitude) = cursor.integer() else { return false }
            let value: Int64
            if negative {
                guard magnitude <= UInt64(Int64.max) + 1 else { return false }
                value = magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude)
            } else {
                guard magnitude <= UInt64(Int64.max) else { return false }
                value = Int64(magnitude)
            }
            guard Value.integer(value).fits(storage) else { return false }
            output.integer(value, storage, c)
            return true
        case .uint64:
            guard let (negative, magnitude) = cursor.integer(), !negative else { return false }
            output.scalar(.largeUInt(magnitude), c)
            return true
        case .boolean:
            let value: UInt8
            if byte == UInt8(ascii: "t") { guard cursor.literal("true") else { return false }; value = 1 }
            else if byte == UInt8(ascii: "f") { guard cursor.literal("false") else { return false }; value = 0 }
            else { return false }
            output.scalar(.boolean(value), c)
            return true
        case .currency:
            guard let text = cursor.plainString(), let value = Currency(utf8: text) else { return false }
            output.scalar(.currency(value), c)
            return true
        case .decimal:
            guard let text = cursor.plainString(), let value = Decimal96(utf8: text) else { return false }
            output.decimal(value, c)
            return true
        case .float64:
            // Not finite: out of range, which `ValueReader` refuses with its message.
            guard let text = cursor.number(),
                  let value = JSONNumber.exactDouble(text) ?? Self.number(text, endsBefore: cursor, strtod, { Double($0) }), value.isFinite
            else { return false }
            output.scalar(.float(value), c)
            return true
        case .float32:
            guard let text = cursor.number(), let value = Self.number(text, endsBefore: cursor, strtof, { Float($0) }), value.isFinite else { return false }
            output.scalar(.singleFloat(value), c)
            return true
        case .dateTime:
            guard let text = cursor.plainString(), let value = OLEDateTime(isoText: text) else { return false }
            output.scalar(.dateTime(value), c)
            return true
        }
    }
}


/// Where the row reader puts each value it parsed: a `Value` in a row (`RowValues`), or the
/// bytes of a Bin2 row (`StoredRowsBuilder`). One parser, two outputs; the `Bool`s say whether
/// the value could be kept so (a string of 2 GiB or more cannot be bytes).
protocol ParsedValues {
    mutating func null(_ column: Int)
    /// Any value of a fixed size but integers of a column's width and decimals.
    mutating func scalar(_ value: Value, _ column: Int)
    /// An integer that fits `storage`.
    mutating func integer(_ value: Int64, _ storage: ValueStorage, _ column: Int)
    mutating func decimal(_ value: Decimal96, _ column: Int)
    /// 8-bit text in UTF-8: the bytes as they are.
    mutating func text(_ bytes: UnsafeBufferPointer<UInt8>, _ column: Int) -> Bool
    /// 8-bit text encoded in another code page.
    mutating func encodedText(_ bytes: ByteString, _ column: Int) -> Bool
    /// A wide string, as its (valid) UTF-8 text.
    mutating func wideText(_ utf8: UnsafeBufferPointer<UInt8>, _ column: Int) -> Bool
    mutating func blob(_ bytes: [UInt8], _ column: Int) -> Bool
    /// A GUID's 36 bytes.
    mutating func guid(_ bytes: UnsafeBufferPointer<UInt8>, _ column: Int)
}

/// The values of a row.
struct RowValues: ParsedValues {
    var row: Row = []
    init(capacity: Int) { row.reserveCapacity(capacity) }
    mutating func null(_ column: Int) { row.append(nil) }
    mutating func scalar(_ value: Value, _ column: Int) { row.append(value) }
    mutating func integer(_ value: Int64, _ storage: ValueStorage, _ column: Int) { row.append(.integer(value)) }
    mutating func decimal(_ value: Decimal96, _ column: Int) { row.append(.decimal(value)) }
    mutating func text(_ bytes: UnsafeBufferPointer<UInt8>, _ column: Int) -> Bool { row.append(.ansiString(ByteString(Array(bytes)))); return true }
    mutating func encodedText(_ bytes: ByteString, _ column: Int) -> Bool { row.append(.ansiString(bytes)); return true }
    mutating func wideText(_ utf8: UnsafeBufferPointer<UInt8>, _ column: Int) -> Bool {
        row.append(.wideString(WideText.encode(utf8: utf8)))
        return true
    }
    mutating func blob(_ bytes: [UInt8], _ column: Int) -> Bool { row.append(.blob(ByteString(bytes))); return true }
    mutating func guid(_ bytes: UnsafeBufferPointer<UInt8>, _ column: Int) { row.append(.guid(ByteString(Array(bytes)))) }
}

/// The bytes of a Bin2 row (begun and ended by the reader).
extension StoredRowsBuilder: ParsedValues {
    func scalar(_ value: Value, _ column: Int) {
        switch value {
        case .largeUInt(let x): scalar(x)
        case .boolean(let x): scalar(x)
        case .currency(let x): scalar(x.scaled)
        case .float(let x): scalar(x.bitPattern)
        case .singleFloat(let x): scalar(x.bitPattern)
        case .dateTime(let x): scalar(x.value.bitPattern)
        case .integer(let x): scalar(x)
        default: preconditionFailure("RowReader: \(value) is not a scalar")
        }
    }
    func integer(_ value: Int64, _ storage: ValueStorage, _ column: Int) { integer(value, storage) }
    func decimal(_ value: Decimal96, _ column: Int) {
        scalar(value.low); scalar(value.mid); scalar(value.high); scalar(value.flags)
    }
    func text(_ bytes: UnsafeBufferPointer<UInt8>, _ column: Int) -> Bool { lengthPrefixed(bytes) }
    func encodedText(_ bytes: ByteString, _ column: Int) -> Bool { bytes.withUnsafeBufferPointer { lengthPrefixed($0) } }
    func wideText(_ utf8: UnsafeBufferPointer<UInt8>, _ column: Int) -> Bool {
        lengthPrefixed(maximum: utf8.count &* 2) { WideText.writeUTF16LE(ofUTF8: utf8, to: $0) }
    }
    func blob(_ bytes: [UInt8], _ column: Int) -> Bool { bytes.withUnsafeBufferPointer { lengthPrefixed($0) } }
    func guid(_ bytes: UnsafeBufferPointer<UInt8>, _ column: Int) { raw(bytes) }
}
