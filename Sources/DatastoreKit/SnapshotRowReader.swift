// A snapshot document's rows read straight from its bytes (Spec/datastore-mapping.md §6.1):
// the members around `rows` are parsed and checked as `SnapshotDocument(json:)` does (by the
// caller, BriefcaseDatastore's `RowBytes.aroundRows`), and the rows are read one by one here.
//
// The reader takes only the common forms — keys and ids without escapes, `tid`, `rowid`, `data`
// in that order, atoms (no lists, no null) — and says nil for anything else. It never accepts
// what `SnapshotDocument(parsing:)` refuses; a caller that gets nil reads the document whole,
// which gives the answer, or the error, for everything it did not take.

import JSONCore

/// The rows of a snapshot document read one by one from its bytes: `nextRow()` gives a row's
/// `tid` and `rowid`, then `nextField(expecting:)` and `value()` its fields, until `nextField` says the
/// row has ended. Every method returns nil (or false) for anything but the common forms; the
/// reader is then of no more use.
package struct SnapshotRowReader {
    private var cursor: JSONCursor
    private let end: Int
    private var rowsBegun = false
    private var fieldsBegun = false

    /// A reader of the `rows` array at `rows` (from its `[` to just past its `]`).
    package init(_ buf: UnsafeBufferPointer<UInt8>, rows: Range<Int>) {
        cursor = JSONCursor(buf, at: rows.lowerBound)
        end = rows.upperBound
        _ = cursor.take(UInt8(ascii: "["))
    }

    /// The next row's table id and record id, both valid ids; nil at the end of the rows
    /// (`atEnd`) or at anything else. The cursor is then on the row's first field.
    package mutating func nextRow() -> (tid: UnsafeBufferPointer<UInt8>, rowid: UnsafeBufferPointer<UInt8>)? {
        cursor.skipWhitespace()
        if rowsBegun {
            guard cursor.take(UInt8(ascii: ",")) else { return nil }
            cursor.skipWhitespace()
        }
        guard cursor.take(UInt8(ascii: "{")), key("tid"), let tid = cursor.plainString(), Self.isValidID(tid),
              separator(), key("rowid"), let rowid = cursor.plainString(), Self.isValidID(rowid),
              separator(), key("data"), cursor.take(UInt8(ascii: "{"))
        else { return nil }
        rowsBegun = true
        fieldsBegun = false
        return (tid, rowid)
    }

    /// Where the reader stands in the document: nothing before is read again, unless the
    /// reader is rewound there.
    package var offset: Int { cursor.i }

    /// Back to `offset`, the first field of the row being read (where `offset` stood after
    /// `nextRow()`), to read the row again.
    package mutating func rewind(to offset: Int) {
        cursor.i = offset
        fieldsBegun = false
    }

    /// True when the rows have ended: the array closes where the caller found its end.
    package mutating func atEnd() -> Bool {
        cursor.skipWhitespace()
        return cursor.take(UInt8(ascii: "]")) && cursor.i == end
    }

    /// What comes next in a row's `data`.
    package enum Field {
        /// The field named as the caller expected.
        case expected
        /// A field of another name (not checked as an id: the caller compares it with names it checked).
        case named(UnsafeBufferPointer<UInt8>)
        /// The row's end: its `data` and itself closed.
        case end
    }

    /// The next field, the cursor then on its value; nil for anything but a field or the row's
    /// end. `expected` (a name without `"` or `\\`, the column that mostly comes next) is
    /// compared where it lies, without reading the name first.
    package mutating func nextField(expecting expected: UnsafeBufferPointer<UInt8>) -> Field? {
        cursor.skipWhitespace()
        if cursor.take(UInt8(ascii: "}")) {
            cursor.skipWhitespace()
            return cursor.take(UInt8(ascii: "}")) ? .end : nil
        }
        if fieldsBegun {
            guard cursor.take(UInt8(ascii: ",")) else { return nil }
            cursor.skipWhitespace()
        }
        fieldsBegun = true
        let field: Field
        let after = cursor.i &+ expected.count &+ 2
        if !expected.isEmpty, after <= cursor.end, cursor.buf[cursor.i] == UInt8(ascii: "\""),
           cursor.buf[after &- 1] == UInt8(ascii: "\""),
           memoryEqual(cursor.buf.baseAddress! + (cursor.i &+ 1), expected.baseAddress!, expected.count)
        {
            cursor.i = after
            field = .expected
        } else {
            guard let name = cursor.plainString() else { return nil }
            field = .named(name)
        }
        cursor.skipWhitespace()
        guard cursor.take(UInt8(ascii: ":")) else { return nil }
        cursor.skipWhitespace()
        return field
    }

    /// 8 bytes at a time (field names are short: most in one or two words).
    @inline(__always)
    private func memoryEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        let x = UnsafeRawPointer(a), y = UnsafeRawPointer(b)
        var k = 0
        while count &- k >= 8 {
            guard x.loadUnaligned(fromByteOffset: k, as: UInt64.self) == y.loadUnaligned(fromByteOffset: k, as: UInt64.self) else {
                return false
            }
            k &+= 8
        }
        while k < count {
            guard a[k] == b[k] else { return false }
            k &+= 1
        }
        return true
    }

    /// A field's value: a string without escapes as its (well-formed UTF-8) bytes, anything else
    /// as the atom it is.
    package enum Value {
        case plainText(UnsafeBufferPointer<UInt8>)
        case atom(DatastoreAtom)
    }

    /// The value at the cursor as `DatastoreAtom(wire:)` reads it (a plain string as its bytes);
    /// nil for a list, null, a wrapper with escapes, and anything that reading refuses.
    package mutating func value() -> Value? {
        guard cursor.i < cursor.end else { return nil }
        switch cursor.buf[cursor.i] {
        case UInt8(ascii: "\""):
            let start = cursor.i
            if let text = cursor.plainString() { return .plainText(text) }
            // Escapes: the parser reads the string (depth: the row and its data are open).
            guard let (value, next) = try? JSONParser.parseValue(cursor.buf, at: start, depth: 3),
                  case .string(let text) = value else { return nil }
            cursor.i = next
            return .atom(.string(text))
        case UInt8(ascii: "t"):
            return cursor.literal("true") ? .atom(.bool(true)) : nil
        case UInt8(ascii: "f"):
            return cursor.literal("false") ? .atom(.bool(false)) : nil
        case UInt8(ascii: "{"):
            return wrapper().map { .atom($0) }
        default:
            guard let text = cursor.number(),
                  let value = JSONNumber.exactDouble(text) ?? Double(String(decoding: text, as: UTF8.self)), value.isFinite
            else { return nil }
            return .atom(.double(value))
        }
    }

    /// `{"I"|"T"|"N"|"B": "text"}`, read as `DatastoreAtom.decodeWrapper` does.
    private mutating func wrapper() -> DatastoreAtom? {
        if let integer = integerWrapper() { return integer }
        cursor.i &+= 1
        cursor.skipWhitespace()
        guard let key = cursor.plainString(), key.count == 1 else { return nil }
        cursor.skipWhitespace()
        guard cursor.take(UInt8(ascii: ":")) else { return nil }
        cursor.skipWhitespace()
        guard let text = cursor.plainString() else { return nil }
        cursor.skipWhitespace()
        guard cursor.take(UInt8(ascii: "}")) else { return nil }
        switch key[0] {
        case UInt8(ascii: "I"), UInt8(ascii: "T"):
            guard let value = Wire.canonicalInt64Value(text) else { return nil }
            return key[0] == UInt8(ascii: "I") ? .int(value) : .date(value)
        case UInt8(ascii: "N"):
            switch String(decoding: text, as: UTF8.self) {
            case "nan": return .double(.nan)
            case "+inf": return .double(.infinity)
            case "-inf": return .double(-.infinity)
            default: return nil
            }
        case UInt8(ascii: "B"):
            return URLSafeBase64.decode(utf8: text).map { .bytes($0) }
        default:
            return nil
        }
    }

    /// `{"I":"…"}` or `{"T":"…"}` written as the export writes them (no space, canonical
    /// digits), read in one pass; nil (the cursor not moved) for anything else.
    @inline(__always)
    private mutating func integerWrapper() -> DatastoreAtom? {
        let b = cursor.buf, i = cursor.i
        guard cursor.end &- i >= 9, b[i &+ 1] == UInt8(ascii: "\""), b[i &+ 3] == UInt8(ascii: "\""),
              b[i &+ 4] == UInt8(ascii: ":"), b[i &+ 5] == UInt8(ascii: "\""),
              b[i &+ 2] == UInt8(ascii: "I") || b[i &+ 2] == UInt8(ascii: "T")
        else { return nil }
        var k = i &+ 6
        while k < cursor.end, b[k] == UInt8(ascii: "-") || JSONCursor.isDigit(b[k]) { k &+= 1 }
        guard k &+ 1 < cursor.end, b[k] == UInt8(ascii: "\""), b[k &+ 1] == UInt8(ascii: "}"),
              let value = Wire.canonicalInt64Value(UnsafeBufferPointer(rebasing: b[(i &+ 6)..<k]))
        else { return nil }
        cursor.i = k &+ 2
        return b[i &+ 2] == UInt8(ascii: "I") ? .int(value) : .date(value)
    }

    /// `"name"` then `:` (with the whitespace around).
    private mutating func key(_ name: StaticString) -> Bool {
        cursor.skipWhitespace()
        guard cursor.take(UInt8(ascii: "\"")), cursor.literal(name), cursor.take(UInt8(ascii: "\"")) else { return false }
        cursor.skipWhitespace()
        guard cursor.take(UInt8(ascii: ":")) else { return false }
        cursor.skipWhitespace()
        return true
    }

    private mutating func separator() -> Bool {
        cursor.skipWhitespace()
        return cursor.take(UInt8(ascii: ","))
    }

    /// `DatastoreIdentifier`'s grammar on bytes: 1–64 allowed characters, or `:` and 1–63.
    package static func isValidID(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = bytes.first == UInt8(ascii: ":") ? 1 : 0
        guard bytes.count > start, bytes.count <= DatastoreIdentifier.maxLength else { return false }
        for index in start..<bytes.count where !DatastoreIdentifier.isAllowedCharacter(bytes[index]) { return false }
        return true
    }
}
