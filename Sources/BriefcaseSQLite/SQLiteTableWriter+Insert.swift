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
            try timed(phases, .bind) { () throws(BriefcaseError) in
                try bind(rows, start ..< start + count, to: statement, perRow: perRow, rowIDs: byKey ? nil : .some(rowIDs), layout: layout)
            }
            do throws(BriefcaseError) {
                try timed(phases, .insert) { () throws(BriefcaseError) in while try statement.step() {} }
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

extension SQLiteTableWriter {
    /// Binds rows `range` of `rows` to `statement`, `perRow` parameters each: first the rowid
    /// (`rowIDs` not nil: its value, or the row's place + 1), then the columns. Stored rows are
    /// bound from their bytes, a run of them at once.
    func bind(_ rows: InsertedRows, _ range: Range<Int>, to statement: SQLiteStatement, perRow: Int,
              rowIDs: [Int64]??, layout: CurrentTableLayout) throws(BriefcaseError) {
        var binding = StoredRowBinding(binder: binder, statement: statement, perRow: perRow, bindsRowID: rowIDs != nil,
                                       first: range.lowerBound, rowIDs: rowIDs ?? nil)
        func bindValues(_ row: Row, at index: Int) throws(BriefcaseError) {
            var parameter = (index - range.lowerBound) * perRow + 1
            if let rowIDs {
                try statement.bindInteger(rowIDs?[index] ?? Int64(index) + 1, at: parameter)
                parameter += 1
            }
            for column in layout.columns.indices {
                try binder.bind(column < row.count ? row[column] : nil, to: statement, at: parameter + column)
            }
        }
        if case .values(let values) = rows {
            for index in range { try bindValues(values[index], at: index) }
            return
        }
        var index = range.lowerBound
        while index < range.upperBound {
            // A run of stored rows, bound from their bytes.
            if let (stored, storages, run) = rows.storedRun(from: index, before: range.upperBound) {
                binding.row = index - range.lowerBound
                if stored.visitStored(run, storages: storages, into: &binding) {
                    if let failure = binding.failure {
                        binder.finishRows()
                        throw failure
                    }
                    index += run.count
                    continue
                }
            }
            try bindValues(rows.row(index), at: index)
            index += 1
        }
    }
}

/// The rows an INSERT of `SQLiteTableWriter` takes: values, or a table's rows kept as bytes,
/// bound from their bytes (`StoredRowBinding`) where they are.
enum InsertedRows {
    case values([Row])
    case stored(Rows, storages: [ValueStorage?])
    /// A table's rows kept as bytes with some made values (`TouchedReplay`): row i from `sources[i]`.
    case patched(Rows, storages: [ValueStorage?], sources: [CurrentRowSource], values: [Row])

    /// A table's rows as they are kept.
    init(_ table: Table) { self = .stored(table.rows, storages: table.fields.map(\.type.storage)) }

    var count: Int {
        switch self {
        case .values(let rows): return rows.count
        case .stored(let rows, _): return rows.count
        case .patched(_, _, let sources, _): return sources.count
        }
    }

    func row(_ i: Int) -> Row {
        switch self {
        case .values(let rows): return rows[i]
        case .stored(let rows, _): return rows[i]
        case .patched(let rows, _, let sources, let values):
            switch sources[i] {
            case .stored(let slot): return rows[slot]
            case .value(let k): return values[k]
            }
        }
    }

    /// The stored rows that rows `index ..< limit` begin with, consecutive in both (nil: row
    /// `index` is values).
    func storedRun(from index: Int, before limit: Int) -> (Rows, [ValueStorage?], Range<Int>)? {
        switch self {
        case .values: return nil
        case .stored(let rows, let storages): return (rows, storages, index ..< limit)
        case .patched(let rows, let storages, let sources, _):
            guard case .stored(let first) = sources[index] else { return nil }
            var end = index + 1
            while end < limit, case .stored(let slot) = sources[end], slot == first + (end - index) { end += 1 }
            return (rows, storages, first ..< first + (end - index))
        }
    }

    /// Whether every row's value of `column` is an integer SQLite holds (the rowid alias takes
    /// nothing else).
    func allIntegers(_ column: Int) -> Bool { integers(column, keeping: false) != nil }

    /// Every row's value of `column`, when each is an integer SQLite holds (else nil); with
    /// `keeping` false, an empty array for yes. Rows kept as bytes are read from their bytes.
    func integers(_ column: Int, keeping: Bool = true) -> [Int64]? {
        var keys = KeyColumn(column: column, capacity: keeping ? count : 0, keeping: keeping)
        var index = 0
        while index < count && !keys.failed {
            if let (stored, storages, run) = storedRun(from: index, before: count), stored.visitStored(run, storages: storages, into: &keys) {
                index += run.count
                continue
            }
            switch row(index)[column] {
            case .integer(let value)?: if keeping { keys.keys.append(value) }
            case .largeUInt(let value)? where value <= UInt64(Int64.max): if keeping { keys.keys.append(Int64(value)) }
            default: return nil
            }
            index += 1
        }
        return keys.failed ? nil : keys.keys
    }
}
