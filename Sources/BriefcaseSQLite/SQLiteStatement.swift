import BriefcaseKit
import CSQLite

/// A value as SQLite stores it: one of its five storage classes.
public enum SQLValue: Sendable, Equatable, CustomStringConvertible {
    /// NULL.
    case null
    /// A signed 64-bit integer.
    case integer(Int64)
    /// An IEEE double (SQLite has no NaN: it stores NULL).
    case real(Double)
    /// Text (UTF-8 in the database).
    case text(String)
    /// Bytes.
    case blob([UInt8])

    /// The text, when the value is text.
    public var text: String? { if case .text(let text) = self { return text } else { return nil } }
    /// The integer, when the value is an integer.
    public var integer: Int64? { if case .integer(let value) = self { return value } else { return nil } }

    /// The storage class's name, as SQLite's `typeof()` says it.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .integer: return "integer"
        case .real: return "real"
        case .text: return "text"
        case .blob: return "blob"
        }
    }

    /// The value as an SQL literal that SQLite reads back as this value: NULL, an integer, a real
    /// (infinities as ±9e999), text in single quotes (`CAST(X'…' AS TEXT)` when it holds NUL), a
    /// blob as `X'…'`.
    public var literal: String {
        func hex(_ bytes: [UInt8]) -> String {
            let digits = Array("0123456789ABCDEF".utf8)
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count * 2)
            for byte in bytes { out.append(digits[Int(byte >> 4)]); out.append(digits[Int(byte & 15)]) }
            return String(decoding: out, as: UTF8.self)
        }
        switch self {
        case .null: return "NULL"
        case .integer(let i): return String(i)
        case .real(let d):
            if d.isInfinite { return d < 0 ? "-9e999" : "9e999" }
            let text = "\(d)"
            return text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) ? text : text + ".0"
        case .text(let s):
            guard !s.utf8.contains(0) else { return "CAST(X'\(hex(Array(s.utf8)))' AS TEXT)" }
            return "'" + s.replacing("'", with: "''") + "'"
        case .blob(let bytes): return "X'\(hex(bytes))'"
        }
    }

    /// The value as SQL would spell it (text quoted), for messages.
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .text(let text): return "'\(text)'"
        case .blob(let bytes): return "a blob of \(bytes.count) bytes"
        }
    }

    /// Whether SQLite would hold the two as the same number or the same value: an INTEGER and
    /// a REAL of equal value are the same (NUMERIC affinity turns 5.0 into 5), -0.0 is 0.0
    /// (SQLite stores a whole REAL as an integer on disk).
    public func sameStored(as other: SQLValue) -> Bool {
        switch (self, other) {
        case (.integer(let a), .real(let b)), (.real(let b), .integer(let a)): return Double(a) == b && Int64(exactly: b) == a
        case (.real(let a), .real(let b)): return a == b
        default: return self == other
        }
    }
}

/// A prepared statement: bind, step, read columns, reset to run it again.
public final class SQLiteStatement {
    let handle: OpaquePointer
    let database: SQLiteDatabase

    init(_ handle: OpaquePointer, database: SQLiteDatabase) {
        self.handle = handle
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    /// Whether the statement changes nothing in the database (`sqlite3_stmt_readonly`).
    public var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }

    /// How many columns a row of the result has.
    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// The name of result column `index` (from 0).
    public func columnName(_ index: Int) -> String {
        sqlite3_column_name(handle, Int32(index)).map { String(cString: $0) } ?? ""
    }

    /// Binds `value` to parameter `index` (from 1).
    public func bind(_ value: SQLValue, at index: Int) throws(BriefcaseError) {
        let position = Int32(index)
        let status: Int32
        switch value {
        case .null: status = sqlite3_bind_null(handle, position)
        case .integer(let value): status = sqlite3_bind_int64(handle, position, value)
        case .real(let value): status = sqlite3_bind_double(handle, position, value)
        case .text(var text):
            status = text.withUTF8 { buffer in
                // A pointer for empty text too: a nil pointer would bind NULL.
                let start = UnsafeRawPointer(buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self)
                return sqlite3_bind_text64(handle, position, start, sqlite3_uint64(buffer.count), briefcase_sqlite_transient(), UInt8(SQLITE_UTF8))
            }
        case .blob(let bytes):
            status = bytes.withUnsafeBytes { buffer in
                // A pointer for an empty blob too: a nil pointer would bind NULL.
                sqlite3_bind_blob64(handle, position, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, sqlite3_uint64(buffer.count),
                                    briefcase_sqlite_transient())
            }
        }
        guard status == SQLITE_OK else { throw database.lastError() }
    }

    /// Binds bytes SQLite does not copy (`SQLITE_STATIC`): text (`SQLITE_UTF8`, `SQLITE_UTF16LE`)
    /// or, with `encoding` nil, a blob. The caller keeps them unchanged until the statement has
    /// run and been reset (`RowBinder`'s buffer).
    func bindStatic(_ start: UnsafePointer<UInt8>, count: Int, encoding: Int32?, at index: Int) throws(BriefcaseError) {
        let status = if let encoding {
            sqlite3_bind_text64(handle, Int32(index), UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self), sqlite3_uint64(count),
                                nil, UInt8(encoding))
        } else {
            sqlite3_bind_blob64(handle, Int32(index), start, sqlite3_uint64(count), nil)
        }
        guard status == SQLITE_OK else { throw database.lastError() }
    }

    /// Binds an integer to parameter `index` (from 1), without an `SQLValue`.
    func bindInteger(_ value: Int64, at index: Int) throws(BriefcaseError) {
        guard sqlite3_bind_int64(handle, Int32(index), value) == SQLITE_OK else { throw database.lastError() }
    }

    /// Binds a double to parameter `index` (from 1), without an `SQLValue`.
    func bindReal(_ value: Double, at index: Int) throws(BriefcaseError) {
        guard sqlite3_bind_double(handle, Int32(index), value) == SQLITE_OK else { throw database.lastError() }
    }

    /// Runs the statement one step: true when a row is ready to read, false when it is done.
    @discardableResult
    public func step() throws(BriefcaseError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw database.lastError()
        }
    }

    /// Ready to run again, with the same bindings unless bound anew.
    public func reset() {
        sqlite3_reset(handle)
    }

    /// Binds `values` from parameter 1, runs the statement to its end and resets it.
    public func run(_ values: [SQLValue]) throws(BriefcaseError) {
        for (index, value) in values.enumerated() { try bind(value, at: index + 1) }
        defer { reset() }
        while try step() {}
    }

    /// Column `index` (from 0) of the current row, in its storage class.
    public func value(at index: Int) -> SQLValue {
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard let pointer = sqlite3_column_text(handle, column) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let pointer = sqlite3_column_blob(handle, column)
            let count = Int(sqlite3_column_bytes(handle, column))
            guard let pointer, count > 0 else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: pointer, count: count)))
        default: return .null
        }
    }
}
