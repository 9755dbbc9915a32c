import BriefcaseKit

extension SQLiteTableWriter {
    /// Rows bound to one INSERT statement (`INSERT … VALUES (…), (…), …`). A statement run row by
    /// row pays SQLite's start and end of a statement (its transaction check, opening the table's
    /// cursor, halting, resetting) for every row; one run of many rows pays them once. (More rows
    /// to a statement cost more to compile than they save: 32 to 128 measured alike.)
    static let rowsPerInsert = 64

    /// Inserts `rows`, `rowsPerInsert` at a time; returns whether the rowid is the key (a single
    /// INTEGER key column, SQLite's rowid alias), else row i has rowid i + 1.
    /// With `rowIDs`, row i gets rowid `rowIDs[i]` (unless the rowid is the key).
    func insert(_ rows: InsertedRows, into name: String, layout: CurrentTableLayout, primaryKey: Bool,
                rowIDs: [Int64]? = nil) throws(BriefcaseError) -> Bool {
        let byKey = layout.rowIDIsKey(primaryKey: primaryKey)
        let names = (byKey ? [] : [layout.rowIDName]) + layout.columns.map(SQLiteDatabase.quote)
        let perRow = names.count
        // (SQLite's limit of parameters per statement bounds the rows of one for a wide table.)
        let batch = max(1, min(Self.rowsPerInsert, database.mostParameters / perRow))
        let head = "INSERT INTO \(SQLiteDatabase.quote(name)) (\(names.joined(separator: ", "))) VALUES "
        let values = "(" + Array(repeating: "?", count: perRow).joined(separator: ", ") + ")"
        func prepared(rows count: Int) throws(BriefcaseError) -> SQLiteStatement {
            try database.prepare(head + Array(repeating: values, count: count).joined(separator: ", "))
        }
        // Compiling a statement costs about what running it once does: the rows after the last
        // full batch go one at a time, with a statement of one row.
        let full = rows.count >= batch ? try prepared(rows: batch) : nil
        let single = rows.count % batch != 0 ? try prepared(rows: 1) : nil
        var start = 0
        while start < rows.count {
            let count = rows.count - start >= batch ? batch : 1
            let statement = count == batch ? full! : single!
            var binding = StoredRowBinding(binder: binder, statement: statement, perRow: perRow, bindsRowID: !byKey, first: start, rowIDs: rowIDs)
            if case .stored(let stored, let storages) = rows, stored.visitStored(start ..< start + count, storages: storages, into: &binding) {
                // (Bound from the bytes.)
                if let failure = binding.failure {
                    binder.finishRows()
                    throw failure
                }
            } else {
                for index in start..<(start + count) {
                    let row = rows.row(index)
                    var parameter = (index - start) * perRow + 1
                    if !byKey {
                        try statement.bindInteger(rowIDs?[index] ?? Int64(index) + 1, at: parameter)
                        parameter += 1
                    }
                    for column in layout.columns.indices {
                        try binder.bind(column < row.count ? row[column] : nil, to: statement, at: parameter + column)
                    }
                }
            }
            do throws(BriefcaseError) {
                while try statement.step() {}
            } catch {
                statement.reset()
                binder.finishRows()
                throw error.inElement(name)
            }
            statement.reset()
            binder.finishRows()
            start += count
        }
        return byKey
    }
}

/// The rows an INSERT of `SQLiteTableWriter` takes: values, or a table's rows kept as bytes,
/// bound from their bytes (`StoredRowBinding`) where they are.
enum InsertedRows {
    case values([Row])
    case stored(Rows, storages: [ValueStorage?])

    /// A table's rows as they are kept.
    init(_ table: Table) { self = .stored(table.rows, storages: table.fields.map(\.type.storage)) }

    var count: Int {
        switch self {
        case .values(let rows): return rows.count
        case .stored(let rows, _): return rows.count
        }
    }

    func row(_ i: Int) -> Row {
        switch self {
        case .values(let rows): return rows[i]
        case .stored(let rows, _): return rows[i]
        }
    }

    /// Whether every row's value of `column` is an integer SQLite holds (the rowid alias takes
    /// nothing else).
    func allIntegers(_ column: Int) -> Bool {
        if case .stored(let rows, let storages) = self {
            var keys = KeyColumn(column: column, capacity: 0, keeping: false)
            if rows.visitStored(rows.indices, storages: storages, into: &keys) { return !keys.failed }
        }
        return (0 ..< count).allSatisfy { i in
            switch row(i)[column] {
            case .integer?: return true
            case .largeUInt(let value)?: return value <= UInt64(Int64.max)
            default: return false
            }
        }
    }
}
