import BriefcaseKit

/// The edits made with SQL in the current-rows tables, found by comparing each table with the
/// current rows its element and delta give, and recorded by the library's `ChangeTracker` as
/// Data Abstract logs them (Spec/sqlite-mapping.md §5, Spec/change-tracking.md).
extension SQLiteSource {
    /// The elements to give, in order, with each edited table's delta replaced (or a new one
    /// before the table), and what the edits became.
    func plan(_ entries: [Entry], codePage: CodePage) throws(BriefcaseError) -> ([Step], [TableEdits]) {
        let firstDelta = Self.firstDeltas(entries)
        var replaced: [Int: Delta] = [:], before: [Int: Delta] = [:]
        var allEdits: [TableEdits] = []
        for entry in entries where entry.kind == .table && entry.currentTable != nil {
            guard case .table(let table) = try element(entry) else { continue }
            var deltaEntry = firstDelta[entry.name.asciiLowercased]
            var delta: Delta?
            if let candidate = deltaEntry, case .delta(let found) = try element(candidate), namesMatch(found.name, table.name) {
                delta = found
            } else {
                deltaEntry = nil
            }
            let (edited, edits) = try self.edits(of: table, delta: delta, entry: entry, codePage: codePage)
            guard let edited else { continue }
            allEdits.append(edits)
            if let deltaEntry { replaced[deltaEntry.position] = edited } else { before[entry.position] = edited }
        }
        var steps: [Step] = []
        for entry in entries {
            if let delta = before[entry.position] { steps.append(.edited(delta)) }
            steps.append(replaced[entry.position].map(Step.edited) ?? .stored(entry))
        }
        return (steps, allEdits)
    }

    /// The elements into a sink that takes them in stream order, each decoded once: a table is
    /// compared with its current rows when its delta comes (a delta before its table: the table
    /// is decoded then and kept for its turn), or at its own turn (its new delta handed over
    /// first, or kept for its delta's turn). What `plan` does for a sink that needs heads first.
    func stream<Sink: BriefcaseSink>(_ entries: [Entry], codePage: CodePage, into sink: inout Sink) throws(BriefcaseError) -> [TableEdits] {
        let firstDelta = Self.firstDeltas(entries)
        // The tables compared for edits (one per name: the first has the current-rows table) and their deltas.
        var deltaOfTable: [Int: Entry] = [:], tableOfDelta: [Int: Entry] = [:]
        for entry in entries where entry.kind == .table && entry.currentTable != nil {
            guard let delta = firstDelta[entry.name.asciiLowercased] else { continue }
            deltaOfTable[entry.position] = delta
            tableOfDelta[delta.position] = entry
        }
        var held: [Int: Table] = [:], replacements: [Int: Delta] = [:]
        var allEdits: [TableEdits] = []
        var index = 0
        func hand(_ element: Element) throws(BriefcaseError) {
            try sink.element(element, at: index)
            index += 1
        }
        for entry in entries {
            switch entry.kind {
            case .delta:
                if let replacement = replacements.removeValue(forKey: entry.position) {
                    try hand(.delta(replacement))
                    continue
                }
                guard case .delta(var delta) = try element(entry) else { continue }
                if let tableEntry = tableOfDelta[entry.position], tableEntry.position > entry.position,
                   case .table(let table) = try element(tableEntry), namesMatch(delta.name, table.name) {
                    let (edited, edits) = try self.edits(of: table, delta: delta, entry: tableEntry, codePage: codePage)
                    held[tableEntry.position] = table
                    if let edited { delta = edited; allEdits.append(edits) }
                }
                try hand(.delta(delta))
            case .table:
                if let table = held.removeValue(forKey: entry.position) {
                    try hand(.table(table))
                    continue
                }
                guard case .table(let table) = try element(entry) else { continue }
                if entry.currentTable != nil {
                    var delta: Delta?, deltaEntry = deltaOfTable[entry.position]
                    if let later = deltaEntry, later.position > entry.position, case .delta(let found) = try element(later),
                       namesMatch(found.name, table.name) {
                        delta = found
                    } else {
                        deltaEntry = nil
                    }
                    let (edited, edits) = try self.edits(of: table, delta: delta, entry: entry, codePage: codePage)
                    if let edited {
                        allEdits.append(edits)
                        if let deltaEntry { replacements[deltaEntry.position] = edited } else { try hand(.delta(edited)) }
                    } else if let deltaEntry, let delta {
                        replacements[deltaEntry.position] = delta  // decoded already: not again at its turn
                    }
                }
                try hand(.table(table))
            }
        }
        return allEdits
    }

    /// The table's pending delta with the edits of its current-rows table recorded (nil when
    /// nothing was edited): updates in row order, then deletes, then inserts in rowid order.
    func edits(of table: Table, delta: Delta?, entry: Entry, codePage: CodePage) throws(BriefcaseError) -> (Delta?, TableEdits) {
        let name = entry.currentTable!
        let layout = CurrentTableLayout(table: table, name: name, codePage: codePage, taken: [])
        let image = ValueImage(codePage: codePage)
        let reading = ValueReading(codePage: codePage)
        // The current rows as the tracker will start from them (the same replay); the tracker
        // itself (its copies of the rows) only once an edit is found.
        let expected = delta.map { table.replaying($0).rows } ?? table.rows.array
        // rowid → current row: the key (SQLite's rowid alias), else the position + 1.
        var indexOfRowID: [Int64: Int] = [:]
        indexOfRowID.reserveCapacity(expected.count)
        for (index, row) in expected.enumerated() {
            let rowID = entry.rowIDsAreKeys && layout.keyColumns.count == 1 ? image.sql(row[layout.keyColumns[0]]).integer : Int64(index) + 1
            guard let rowID else { throw invalid("the key of row \(index) is not an integer", element: name) }
            indexOfRowID[rowID] = index
        }
        let columns = layout.columns.map(SQLiteDatabase.quote).joined(separator: ", ")
        let statement = try database.prepare("SELECT rowid, \(columns) FROM \(SQLiteDatabase.quote(name)) ORDER BY rowid")
        guard statement.columnCount == layout.columns.count + 1 else { throw invalid("the table's columns are not the briefcase's fields", element: name) }

        var updates: [(Int, Row)] = [], inserts: [Row] = []
        var seen = [Bool](repeating: false, count: expected.count)
        while try statement.step() {
            guard let rowID = statement.value(at: 0).integer else { throw invalid("a row without an integer rowid", element: name) }
            let index = indexOfRowID[rowID].flatMap { seen[$0] ? nil : $0 }
            var row = Row(repeating: nil, count: table.fields.count)
            for (column, field) in table.fields.enumerated() {
                let stored = statement.value(at: column + 1)
                if let index, stored.sameStored(as: image.sql(expected[index][column])) {
                    row[column] = expected[index][column]
                    continue
                }
                switch reading.value(stored, type: field.type) {
                case .success(let value): row[column] = value
                case .failure(let mismatch):
                    throw invalid("row with rowid \(rowID): field '\(layout.columns[column])': \(mismatch.message)", element: name)
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
        guard !(updates.isEmpty && inserts.isEmpty && deletes.isEmpty) else { return (nil, edits) }
        var tracker = ChangeTracker(table: table, delta: delta)
        do throws(ChangeTrackingError) {
            for (index, row) in updates { try tracker.update(at: index, to: row) }
            for (done, index) in deletes.enumerated() { try tracker.delete(at: index - done) }
            for row in inserts { try tracker.insert(row) }
            try tracker.verify()
        } catch {
            throw invalid("the edits cannot be recorded as pending changes: \(error.message)", element: name)
        }
        edits.table = name
        return (tracker.hasEdits ? tracker.pendingDelta : nil, edits)
    }

    /// The first delta of each name (ASCII case-insensitive, as names match): the one a table's
    /// edits join.
    static func firstDeltas(_ entries: [Entry]) -> [String: Entry] {
        var first: [String: Entry] = [:]
        for entry in entries where entry.kind == .delta && first[entry.name.asciiLowercased] == nil {
            first[entry.name.asciiLowercased] = entry
        }
        return first
    }
}
