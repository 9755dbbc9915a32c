import BriefcaseKit
import CSQLite

/// Reads an SQL table's rows beside the current rows they were written from, and tells whether
/// they are all still as written: the same rowids in the same order, no row more or less, every
/// value as `ValueImage` shows it (`ShownValueMatch`). The usual case — a table nobody edited —
/// is so read without making a value of a row kept as bytes; where it says no, the table is
/// compared again through values (`SQLiteSource.edits`), which tells what the edits are.
struct UneditedRows: RowVisitor {
    private let statement: OpaquePointer
    private let match: ShownValueMatch
    /// Whether each row's rowid is its key (`row_ids = key`), else its position + 1.
    private let rowIDsAreKeys: Bool
    /// The current row compared next.
    private var index = 0
    private(set) var same = true

    /// Whether `statement` (a new run of `CurrentRowsCheck.statement()`: the rowid, then the
    /// fields' columns) gives back `rows` as written, each with the rowid its position gives, or
    /// (`rowIDsAreKeys`) its key: then the rowid is the key column itself (SQLite's rowid alias),
    /// compared as that field's value, and since rowids are unique, rows that all read back so
    /// have keys that are integers unique to each. It has read every row, or stopped at the
    /// first difference: reset it before running it again.
    static func check(_ rows: InsertedRows, rowIDsAreKeys: Bool, statement: SQLiteStatement, match: ShownValueMatch) -> Bool {
        var visitor = UneditedRows(statement: statement.handle, match: match, rowIDsAreKeys: rowIDsAreKeys)
        var index = 0
        while index < rows.count && visitor.same {
            if let (stored, storages, run) = rows.storedRun(from: index, before: rows.count),
               stored.visitStored(run, storages: storages, into: &visitor) {
                index += run.count
                continue
            }
            visitor.compare(rows.row(index))
            index += 1
        }
        return visitor.same && sqlite3_step(statement.handle) == SQLITE_DONE
    }

    /// The next SQL row, with the rowid of its position where that is its rowid.
    private mutating func nextRow() -> Bool {
        guard sqlite3_step(statement) == SQLITE_ROW, sqlite3_column_type(statement, 0) == SQLITE_INTEGER else { return false }
        index += 1
        return rowIDsAreKeys || sqlite3_column_int64(statement, 0) == Int64(index)
    }

    private mutating func compare(_ row: Row) {
        same = same && nextRow() && match.rowMatches(row, in: statement)
    }

    // The column compared next (from 1: column 0 is the rowid).
    mutating func beginRow(at position: Int, fieldCount: Int) -> Int32 {
        same = same && nextRow()
        return 1
    }
    mutating func null(_ column: inout Int32) {
        same = same && sqlite3_column_type(statement, column) == SQLITE_NULL
        column += 1
    }
    mutating func bytes(_ storage: ValueStorage, _ source: ByteSource, start: Int, count: Int, base: UnsafePointer<UInt8>,
                        _ column: inout Int32) {
        same = same && match.matches(storage, UnsafeBufferPointer(start: base + start, count: count), statement, column)
        column += 1
    }
    mutating func scalar(_ value: Value, _ column: inout Int32) {
        same = same && match.matches(value, statement, column)
        column += 1
    }
    mutating func decimal(low: UInt32, mid: UInt32, high: UInt32, flags: UInt32, _ column: inout Int32) {
        scalar(.decimal(Decimal96(low: low, mid: mid, high: high, flags: flags)), &column)
    }
    func endRow(_ column: consuming Int32) {}
    mutating func checkedRow(_ values: [Value?], at position: Int) { compare(values) }
}
