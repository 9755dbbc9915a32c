import BriefcaseJSON
import BriefcaseKit
import CSQLite
import Foundation

/// Tells, without making an `SQLValue` or a Swift string, that a column of a statement's
/// current row holds a value as `ValueImage.sql` shows it: the fast way through the comparison
/// of an SQL table with the current rows (Spec/sqlite-mapping.md §5).
///
/// It says "the same" only where `SQLValue.sameStored(as:)` would: the same storage class and
/// the same integer, double or bytes (equal UTF-8 bytes make equal strings). Anything else — a
/// NaN, 8-bit text of another code page that is not ASCII, text with an unpaired surrogate, a
/// REAL where an INTEGER was written, a date beyond ISO text — is "not known", and the caller
/// compares through values as before, so what an edit becomes does not depend on this type.
final class ShownValueMatch {
    /// Whether 8-bit text shows as its own bytes: UTF-8, or ASCII in a code page that keeps it.
    private let textIsUTF8: Bool
    private let asciiIsIdentity: Bool
    private var scratch: UnsafeMutablePointer<UInt8>
    private var capacity: Int

    init(codePage: CodePage) {
        textIsUTF8 = codePage.isUTF8
        asciiIsIdentity = codePage.asciiIsIdentity
        capacity = max(DecimalText.longest, OLEDateTime.isoTextLength, 4096)
        scratch = .allocate(capacity: capacity)
    }

    deinit { scratch.deallocate() }

    /// Whether column `column` of the current row of `statement` holds `row[i]` as shown, for
    /// every field `i` (column `i + 1`: column 0 is the row id).
    func rowMatches(_ row: Row, in statement: OpaquePointer) -> Bool {
        for (index, value) in row.enumerated() where !matches(value, statement, Int32(index + 1)) { return false }
        return true
    }

    /// Whether column `column` of the current row of `statement` holds `value` as shown.
    func matches(_ value: Value?, _ statement: OpaquePointer, _ column: Int32) -> Bool {
        let type = sqlite3_column_type(statement, column)
        guard let value else { return type == SQLITE_NULL }
        switch value {
        case .integer(let number): return type == SQLITE_INTEGER && sqlite3_column_int64(statement, column) == number
        case .boolean(let byte): return type == SQLITE_INTEGER && sqlite3_column_int64(statement, column) == (byte != 0 ? 1 : 0)
        case .largeUInt(let number):
            return number <= UInt64(Int64.max) && type == SQLITE_INTEGER && sqlite3_column_int64(statement, column) == Int64(number)
        case .float(let number): return !number.isNaN && type == SQLITE_FLOAT && sqlite3_column_double(statement, column) == number
        case .singleFloat(let number):
            return !number.isNaN && type == SQLITE_FLOAT && sqlite3_column_double(statement, column) == Double(number)
        case .blob(let bytes): return bytes.withUnsafeBufferPointer { matches(.blob, $0, statement, column, type: type) }
        case .guid(let bytes): return bytes.withUnsafeBufferPointer { matches(.guid, $0, statement, column, type: type) }
        case .ansiString(let bytes): return bytes.withUnsafeBufferPointer { matches(.ansiString, $0, statement, column, type: type) }
        case .wideString(let bytes): return bytes.withUnsafeBufferPointer { matches(.wideString, $0, statement, column, type: type) }
        case .currency, .decimal:
            guard type == SQLITE_TEXT, let count = DecimalText.write(value, to: scratch) else { return false }
            return Self.same(UnsafeBufferPointer(start: scratch, count: count), textOf: statement, column)
        case .dateTime(let date):
            guard type == SQLITE_TEXT, date.writeISOText(to: scratch) else { return false }
            return Self.same(UnsafeBufferPointer(start: scratch, count: OLEDateTime.isoTextLength), textOf: statement, column)
        }
    }

    /// Whether column `column` holds, as shown, the string, blob or GUID whose bytes (as stored
    /// in a row: 8-bit, UTF-16LE or UTF-8 text, or bytes) are `bytes`.
    func matches(_ storage: ValueStorage, _ bytes: UnsafeBufferPointer<UInt8>, _ statement: OpaquePointer, _ column: Int32) -> Bool {
        matches(storage, bytes, statement, column, type: sqlite3_column_type(statement, column))
    }

    /// `matches(_:_:_:_:)` with the column's storage class already read.
    private func matches(_ storage: ValueStorage, _ bytes: UnsafeBufferPointer<UInt8>, _ statement: OpaquePointer, _ column: Int32,
                         type: Int32) -> Bool {
        switch storage {
        case .blob: return type == SQLITE_BLOB && Self.same(bytes, blobOf: statement, column)
        // The image decodes a GUID's bytes as UTF-8 (repairing): equal bytes show as equal text.
        case .guid: return type == SQLITE_TEXT && Self.same(bytes, textOf: statement, column)
        case .ansiString:
            return type == SQLITE_TEXT && Self.same(bytes, textOf: statement, column) && (textIsUTF8 || asciiIsIdentity && Self.isASCII(bytes))
        case .wideString:
            guard type == SQLITE_TEXT else { return false }
            let start = room(bytes.count / 2 * 3)
            guard let count = WideText.utf8(fromUTF16LE: bytes, to: start) else { return false }
            return Self.same(UnsafeBufferPointer(start: start, count: count), textOf: statement, column)
        default: return false
        }
    }

    private func room(_ count: Int) -> UnsafeMutablePointer<UInt8> {
        if count > capacity {
            scratch.deallocate()
            capacity = max(count, capacity * 2)
            scratch = .allocate(capacity: capacity)
        }
        return scratch
    }

    private static func same(_ bytes: UnsafeBufferPointer<UInt8>, textOf statement: OpaquePointer, _ column: Int32) -> Bool {
        // (The text first, then its length: the order SQLite's documentation asks for.)
        let text = sqlite3_column_text(statement, column)
        return same(bytes, UnsafeRawPointer(text), Int(sqlite3_column_bytes(statement, column)))
    }

    private static func same(_ bytes: UnsafeBufferPointer<UInt8>, blobOf statement: OpaquePointer, _ column: Int32) -> Bool {
        let blob = sqlite3_column_blob(statement, column)
        return same(bytes, blob, Int(sqlite3_column_bytes(statement, column)))
    }

    private static func same(_ bytes: UnsafeBufferPointer<UInt8>, _ stored: UnsafeRawPointer?, _ count: Int) -> Bool {
        guard bytes.count == count else { return false }
        guard count > 0 else { return true }
        guard let stored, let base = bytes.baseAddress else { return false }
        return memcmp(base, stored, count) == 0
    }

    private static func isASCII(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        buffer.allSatisfy { $0 < 0x80 }
    }
}
