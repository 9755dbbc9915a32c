import BriefcaseKit

/// The edits made with SQL in the current-rows tables, found by comparing each table with the
/// current rows its element and delta give, and recorded by the library's `ChangeTracker` as
/// Data Abstract logs them (Spec/sqlite-mapping.md §5, Spec/change-tracking.md).
extension SQLiteSource {
    /// The table's pending delta with the edits of its current-rows table recorded (nil when
    /// nothing was edited): updates in row order, then deletes, then inserts in row-id order.
    func edits(of table: Table, delta: Delta?, entry: Entry, codePage: CodePage) throws(BriefcaseError) -> (Delta?, TableEdits) {
        let name = entry.currentTable!
        // (The SQL table named in messages where its name is not the element's.)
        let sqlTable = name == entry.name ? "" : "table '\(name)': "
        let layout = CurrentTableLayout(table: table, codePage: codePage)
        let rows = try CurrentRowsCheck(database: database, table: name, layout: layout, rowIDsAreKeys: entry.rowIDsAreKeys,
                                        element: entry.name).statement()
        let image = ValueImage(codePage: codePage, nanAsText: version >= 3)
        let reading = ValueReading(codePage: codePage)
        let match = ShownValueMatch(codePage: codePage)
        // A table as written (the usual case) is told from the rows kept as bytes, with no value
        // made of them: rowids in order, every value as shown. Anything else is compared below.
        let current = ReplayedTable(table, delta: delta).current
        if UneditedRows.check(current, rowIDsAreKeys: entry.rowIDsAreKeys, statement: rows, match: match) {
            return (nil, TableEdits(table: name, inserts: 0, updates: 0, deletes: 0))
        }
        rows.reset()
        // The current rows as the tracker will start from them (the same replay); the tracker
        // itself (its copies of the rows) only once an edit is found.
        let expected = delta.map { table.replaying($0).rows } ?? table.rows.array
        // Row id → current row: the key (row_ids = key), else the position + 1 (no table needed).
        let keys = entry.rowIDsAreKeys ? RowIDKeys(expected.map { image.sql($0[layout.keyColumns[0]]).integer }) : nil
        if let keys, let row = keys.firstNotUnique {
            throw invalid("\(SQLiteMapping.elementsTable).row_ids of table '\(name)' is 'key', but its key is not an integer unique to each row (row \(row))",
                          element: entry.name)
        }
        func index(of rowID: Int64) -> Int? {
            guard let keys else { return rowID >= 1 && rowID <= Int64(expected.count) ? Int(rowID - 1) : nil }
            return keys.index(of: rowID)
        }
        var updates: [(position: Int, row: Row)] = [], inserts: [Row] = []
        var seen = [Bool](repeating: false, count: expected.count)
        var ambiguousNaN = 0
        var lastRowID: Int64 = 0
        var contiguous = true
        while try rows.step() {
            let identity = rows.value(at: 0)
            // (A table with row_ids = key: its key, the rowid alias.)
            func label() -> String { "row with rowid \(identity)" }
            let rowID = identity.integer
            let index = rowID.flatMap(index(of:))
            if let rowID {
                if entry.rowIDsAreKeys, let index, seen[index] {
                    throw invalid("\(sqlTable)two rows have the key \(rowID) (the key of a table is unique)", element: entry.name)
                }
                contiguous = contiguous && rowID == lastRowID + 1
                lastRowID = rowID
            } else if !entry.rowIDsAreKeys {
                throw invalid("\(sqlTable)a row without an integer rowid", element: entry.name)
            }
            // A row SQLite holds as written is its current row: no values made.
            if let index, match.rowMatches(expected[index], in: rows.handle) {
                seen[index] = true
                continue
            }
            var row = Row(repeating: nil, count: table.fields.count)
            for (column, field) in table.fields.enumerated() {
                let stored = rows.value(at: column + 1)
                if let index {
                    let shown = image.sql(expected[index][column])
                    if stored.sameStored(as: shown) {
                        if case .null = stored, expected[index][column] != nil { ambiguousNaN += 1 }
                        row[column] = expected[index][column]
                        continue
                    }
                }
                switch reading.value(stored, type: field.type) {
                case .success(let value): row[column] = value
                case .failure(let mismatch):
                    throw invalid("\(sqlTable)\(label()): field '\(layout.fieldNames[column])': \(mismatch.message)", element: entry.name)
                }
            }
            if let index {
                seen[index] = true
                if row != expected[index] { updates.append((index, row)) }
            } else {
                inserts.append(row)
            }
        }
        let deletes = seen.indices.filter { !seen[$0] }
        var edits = TableEdits(table: name, inserts: inserts.count, updates: updates.count, deletes: deletes.count)
        if ambiguousNaN > 0 {
            edits.notes.append("table '\(name)': \(ambiguousNaN) NaN value(s) show as NULL in this database (version \(version) of the mapping): kept as NaN, since a NULL written there cannot be told from them (convert again for a database that shows NaN as 'NaN')")
        }
        guard edits.hasEdits else { return (nil, edits) }
        if !entry.rowIDsAreKeys, contiguous, !deletes.isEmpty, let shifted = Self.renumbered(updates: updates, expected: expected) {
            throw invalid("table '\(name)': its rowids were renumbered (rowid \(shifted.rowID) holds the row that had rowid \(shifted.was)): SQLite's VACUUM renumbers the rows of a table without an INTEGER PRIMARY KEY, and this table's rows are matched to the briefcase's by rowid, so its edits cannot be told; make them again on a new export, without VACUUM",
                          element: entry.name)
        }
        guard delta != nil || entry.takesNewDelta else {
            throw invalid("table '\(name)' was edited, but a new pending delta for it would be another table's: deltas go to the tables of their name in turn (the k-th delta to the k-th table, names without ASCII case), and the deltas of this name before it are fewer than the tables",
                          element: entry.name)
        }
        var tracker = ChangeTracker(table: table, delta: delta)
        do throws(ChangeTrackingError) {
            try tracker.record(updates: updates, deletes: deletes, inserts: inserts)
            try tracker.verify()
        } catch {
            throw invalid("\(sqlTable)the edits cannot be recorded as pending changes: \(error.message)", element: entry.name)
        }
        return (tracker.hasEdits ? tracker.pendingDelta : nil, edits)
    }

    /// Whether a table's rows look renumbered (the first updated row holds the values of a row
    /// after it, and the row after it those of the one after that): what VACUUM does to the
    /// rowids of a table without an INTEGER PRIMARY KEY once rows were deleted.
    static func renumbered(updates: [(position: Int, row: Row)], expected: [Row]) -> (rowID: Int, was: Int)? {
        guard let first = updates.first else { return nil }
        let position = first.position
        guard let shift = (1...max(1, min(64, expected.count - position - 1))).first(where: { position + $0 < expected.count && expected[position + $0] == first.row }) else {
            return nil
        }
        if updates.count > 1, updates[1].position == position + 1, position + 1 + shift < expected.count, expected[position + 1 + shift] != updates[1].row {
            return nil
        }
        return (position + 1, position + 1 + shift)
    }
}
