/// Why `ChangeTracker` could not record an edit. Nothing is changed when it throws.
public struct ChangeTrackingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why an edit was refused.
    public enum Kind: Sendable, Equatable {
        /// No current row at that position.
        case noSuchRow
        /// A row (or key) with the wrong number of values, or a column that does not exist.
        case rowWidth
        /// A value the column's data type cannot hold (`Value.fits`).
        case valueDoesNotFit
        /// A value for a column the delta does not log: a change could not carry it.
        case notLogged
        /// Setting a value to NULL in a reduced delta, where an absent new value means unchanged.
        case nullInReducedDelta
        /// Finding a row by key in a table without a key.
        case noKey
        /// A key that matches no current row, or several.
        case keyMatches
        /// The next record id would not fit an Int32.
        case recordIDsExhausted
        /// The delta does not replay to the edited rows (`verify()`).
        case notReplayable
    }

    /// Why the edit was refused.
    public var kind: Kind
    /// What is wrong, in one line.
    public var message: String
    /// The position of the row in the current rows, when the problem is about one.
    public var row: Int?
    /// The table column, when the problem is about one.
    public var column: Int?

    /// An error of `kind`, naming the row position and column where known.
    public init(_ kind: Kind, _ message: String, row: Int? = nil, column: Int? = nil) {
        self.kind = kind
        self.message = message
        self.row = row
        self.column = column
    }

    /// The message.
    public var description: String { message }
}

extension ChangeTracker {
    /// Checks a new version of a row: a value per column, each fitting its column, and no value
    /// changed in a column the delta does not log.
    func check(_ row: Row, against old: Row, row position: Int) throws(ChangeTrackingError) {
        guard row.count == table.fields.count else {
            throw ChangeTrackingError(.rowWidth, "a row has \(table.fields.count) values, not \(row.count)", row: position)
        }
        for (column, value) in row.enumerated() {
            let field = table.fields[column]
            if let value, !(field.type.storage.map(value.fits) ?? false) {
                throw ChangeTrackingError(.valueDoesNotFit, "field '\(field.name)' (\(field.type)) cannot hold \(value)", row: position, column: column)
            }
            if loggedPosition[column] == nil, value != old[column] {
                throw ChangeTrackingError(.notLogged, "field '\(field.name)' is not logged by the delta, so a change cannot carry its value", row: position, column: column)
            }
        }
        try checkLogged(row, row: position)
        try checkLogged(old, row: position)
    }

    /// Checks that a row's values fit the types the delta logs them as (a delta may log a field
    /// as another type than the table's: a change could not carry such a value).
    func checkLogged(_ row: Row, row position: Int) throws(ChangeTrackingError) {
        for (p, column) in loggedColumns.enumerated() {
            guard let column, let value = row[column] else { continue }
            let logged = delta.loggedFields[p]
            if !(logged.type.storage.map(value.fits) ?? false) {
                throw ChangeTrackingError(.valueDoesNotFit, "field '\(table.fields[column].name)' is logged by the delta as \(logged.type), which cannot hold \(value)",
                                          row: position, column: column)
            }
        }
    }

    /// A row's values by logged position (all absent for nil).
    func logged(_ row: Row?) -> [Value?] {
        loggedColumns.map { column in column.flatMap { row?[$0] } }
    }

    /// The old and new values of an update from `old` to `new` (Spec/change-tracking.md §4); nil
    /// when no logged value differs. A full delta carries every logged value on both sides. A
    /// reduced delta carries the key and the changed fields, both sides; a table without a key
    /// carries every old value, which is how its row is found again.
    func updateValues(from old: Row, to new: Row, row position: Int) throws(ChangeTrackingError) -> (old: [Value?], new: [Value?])? {
        let changed = loggedColumns.indices.filter { p in loggedColumns[p].map { old[$0] != new[$0] } ?? false }
        guard !changed.isEmpty else { return nil }
        let oldValues = logged(old), newValues = logged(new)
        guard delta.isReduced else { return (oldValues, newValues) }
        if let p = changed.first(where: { newValues[$0] == nil }) {
            let field = delta.loggedFields[p].name
            throw ChangeTrackingError(.nullInReducedDelta, "field '\(field)' cannot be set to NULL in a reduced delta (an absent new value means unchanged)",
                                      row: position, column: loggedColumns[p])
        }
        let carried = Set(changed).union(keyLogged)
        let oldCarried = keyLogged.isEmpty ? Set(loggedColumns.indices) : carried
        return (oldValues.indices.map { oldCarried.contains($0) ? oldValues[$0] : nil },
                newValues.indices.map { carried.contains($0) ? newValues[$0] : nil })
    }

    /// The index of the slot's own pending change, which a new edit of the row updates instead
    /// of adding another: a pending insert or update (never one resolved or failed).
    func mergeable(_ slot: Int) -> Int? {
        guard let index = owner[slot] else { return nil }
        let change = delta.changes[index]
        guard change.status == .pending, change.type == .insert || change.type == .update else { return nil }
        return index
    }

    mutating func freshRecordID() throws(ChangeTrackingError) -> Int32 {
        guard let id = Int32(exactly: nextRecordID) else {
            throw ChangeTrackingError(.recordIDsExhausted, "the delta's record ids have reached \(Int32.max)")
        }
        nextRecordID += 1
        return id
    }

    mutating func record(_ change: DeltaChange, before row: Row?, slot: Int) {
        delta.changes.append(change)
        before.append(row)
        changeSlots.append(slot)
        owner[slot] = delta.changes.count - 1
        edited()
    }

    mutating func replaceChange(_ index: Int, with change: DeltaChange) {
        delta.changes[index] = change
        edited()
    }

    /// Drops change `index` (its row is as if it never happened); later changes move up one, and
    /// its row's owner becomes the change before it on that row, if any.
    mutating func removeChange(_ index: Int) {
        delta.changes.remove(at: index)
        before.remove(at: index)
        let slot = changeSlots.remove(at: index)
        var moved: [Int: Int] = [:]
        for (slot, change) in owner where change != index { moved[slot] = change > index ? change - 1 : change }
        owner = moved
        if let slot, let previous = changeSlots.lastIndex(of: slot) { owner[slot] = previous }
        edited()
    }

    /// The counts are written again (a `countOnly` or mismatched layout no longer fits them).
    mutating func edited() {
        hasEdits = true
        delta.layout = .full
    }
}
