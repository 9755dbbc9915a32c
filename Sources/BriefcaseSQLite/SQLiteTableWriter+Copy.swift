import BriefcaseKit

/// Where a current-rows table's rows come from.
enum CurrentRowsSource {
    /// The rows, bound one by one.
    case rows([Row])
    /// A table with pending changes: its stored rows, already written to `table` (row i with rowid
    /// i + 1), and the replay of its delta. The rows no change touched are copied by SQLite from
    /// there; the rows the changes touched (updated, inserted) are bound.
    case stored(table: String, replay: DeltaReplay, storedCount: Int)
}

extension SQLiteTableWriter {
    /// Fills the current-rows table `name` (already made); returns whether the rowid is the key.
    /// Either way row i of the current rows gets rowid i + 1 unless the rowid is the key.
    func fill(_ name: String, layout: CurrentTableLayout, primaryKey: Bool, from source: CurrentRowsSource) throws(BriefcaseError) -> Bool {
        guard case .stored(let stored, let replay, let storedCount) = source else {
            guard case .rows(let rows) = source else { return false }
            return try insert(rows, into: name, layout: layout, primaryKey: primaryKey)
        }
        // A slot is a stored row (its position) or an inserted one (after them); a slot the
        // replay emptied was deleted. A live slot's current position is its index less the
        // emptied slots before it.
        var touched = Set(replay.changes.compactMap(\.slot))
        var gone: [Int] = []
        for (slot, row) in replay.slots.enumerated() where row == nil {
            gone.append(slot)
            touched.insert(slot)
        }
        try database.execute("""
            CREATE TEMP TABLE IF NOT EXISTS briefcase_touched (slot INTEGER PRIMARY KEY);
            DELETE FROM temp.briefcase_touched
            """)
        let touchedRow = try database.prepare("INSERT INTO temp.briefcase_touched VALUES (?1)")
        for slot in touched where slot < storedCount { try touchedRow.run([.integer(Int64(slot))]) }

        let byKey = primaryKey && layout.keyColumns.count == 1 && layout.types[layout.keyColumns[0]] == "INTEGER"
        let columns = layout.columns.map(SQLiteDatabase.quote)
        let copied = columns.map { "s." + $0 }.joined(separator: ", ")
        let untouched = "FROM \(SQLiteDatabase.quote(stored)) AS s WHERE s.rowid - 1 NOT IN (SELECT slot FROM temp.briefcase_touched)"
        do throws(BriefcaseError) {
            if byKey {
                try database.execute("INSERT INTO \(SQLiteDatabase.quote(name)) (\(columns.joined(separator: ", "))) SELECT \(copied) \(untouched)")
            } else {
                // Between two deleted rows every row moves up by the same count: one range of
                // rowids at a time (a count per row would cost rows × deletions).
                let copy = try database.prepare("""
                    INSERT INTO \(SQLiteDatabase.quote(name)) (rowid, \(columns.joined(separator: ", ")))
                    SELECT s.rowid - ?3, \(copied) \(untouched) AND s.rowid BETWEEN ?1 AND ?2
                    """)
                var first = 0
                for (count, slot) in (gone.filter { $0 < storedCount } + [storedCount]).enumerated() {
                    if slot > first { try copy.run([.integer(Int64(first) + 1), .integer(Int64(slot)), .integer(Int64(count))]) }
                    first = slot + 1
                }
            }
        } catch {
            throw error.inElement(name)
        }
        var rows: [Row] = [], rowIDs: [Int64] = []
        var goneBefore = 0
        for (slot, row) in replay.slots.enumerated() {
            guard let row else { goneBefore += 1; continue }
            guard touched.contains(slot) else { continue }
            rows.append(row)
            rowIDs.append(Int64(slot - goneBefore) + 1)
        }
        _ = try insert(rows, into: name, layout: layout, primaryKey: primaryKey, rowIDs: rowIDs)
        return byKey
    }
}
