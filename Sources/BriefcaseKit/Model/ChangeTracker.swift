/// Edits of a table's current rows, recorded as the pending changes Data Abstract logs: the one
/// mechanism by which edits become a delta (Spec/change-tracking.md).
///
/// It starts from a table's stored rows and its pending delta (if any), replays the delta to get
/// the current rows (as `cat` shows them), and then each edit — an insert, an update, a delete —
/// changes the current rows and the delta together: a new change (a fresh record id, status
/// pending), or the row's own pending change brought up to date, so that the delta replayed over
/// the stored rows always gives the current rows. The stored rows never change.
///
/// ```swift
/// var tracker = ChangeTracker(table: orders, delta: pending)
/// try tracker.update(at: 0, setting: [2: .currency(Currency(scaled: 80_000))])
/// try tracker.verify()
/// briefcaseTable.delta = tracker.pendingDelta
/// ```
public struct ChangeTracker: Sendable {
    /// The stored rows (the dataset element), never changed by edits.
    public let table: Table
    /// The delta: the pending changes given, with the edits recorded.
    public internal(set) var delta: Delta
    /// Whether an edit changed `delta`.
    public internal(set) var hasEdits = false
    /// The changes of the delta given that could not be replayed (they are kept as they are).
    public let problems: [DeltaApplicationProblem]
    /// For each logged field of `delta`, the table column it logs (nil: no column of that name).
    public let loggedColumns: [Int?]
    /// The table columns of the key changes are found by (the delta's key fields, else the
    /// schema's `InPrimaryKey` fields, as the replay does); empty when the table has no key.
    public let keyColumns: [Int]

    let keyLogged: [Int]
    /// Table column → its logged position (nil when the delta does not log it).
    let loggedPosition: [Int?]
    let deltaWasGiven: Bool
    /// Every row that existed at some point (as `DeltaReplay.slots`); nil = deleted.
    var slots: [Row?]
    /// The current rows, in order, as slots.
    var live: [Int]
    /// For a slot, the last change that touched it.
    var owner: [Int: Int] = [:]
    /// For each change, the row as it was before it (nil for an insert, or a change not applied).
    var before: [Row?]
    /// For each change, the slot it touched (nil: not applied).
    var changeSlots: [Int?]
    var nextRecordID: Int64

    /// Record ids of a delta that has none yet start here ("usually starts with 1100", the
    /// Cocoa documentation; .NET briefcases number 1100, 1101, …).
    public static let firstRecordID: Int32 = 1100

    /// Tracks edits of `table` on top of `delta`. Without a delta, the first edit starts one that
    /// logs the fields whose schema says `LogChanges` (all of them without a schema), with the
    /// `InPrimaryKey` fields as key fields; `reducedDelta` says whether it is a reduced delta
    /// (Spec/change-tracking.md §4: a full one by default).
    public init(table: Table, delta: Delta?, reducedDelta: Bool = false) {
        self.table = table
        deltaWasGiven = delta != nil
        let delta = delta ?? Self.newDelta(for: table, reduced: reducedDelta)
        self.delta = delta
        let replay = table.replaying(delta)
        problems = replay.problems
        slots = replay.slots
        live = replay.slots.indices.filter { replay.slots[$0] != nil }
        before = replay.changes.map(\.before)
        changeSlots = replay.changes.map(\.slot)
        for (index, change) in replay.changes.enumerated() {
            if let slot = change.slot { owner[slot] = index }
        }

        var columnByName: [[UInt8]: Int] = [:]
        for (column, field) in table.fields.enumerated() where columnByName[nameKey(field.name)] == nil {
            columnByName[nameKey(field.name)] = column
        }
        let loggedColumns = delta.loggedFields.map { columnByName[nameKey($0.name)] }
        self.loggedColumns = loggedColumns
        var loggedPosition = [Int?](repeating: nil, count: table.fields.count)
        for (position, column) in loggedColumns.enumerated() {
            if let column, loggedPosition[column] == nil { loggedPosition[column] = position }
        }
        self.loggedPosition = loggedPosition
        keyLogged = (table.keyPositions(delta) ?? []).filter { loggedColumns[$0] != nil }
        keyColumns = keyLogged.compactMap { loggedColumns[$0] }
        nextRecordID = delta.changes.map { Int64($0.recordID) + 1 }.max() ?? Int64(Self.firstRecordID)
    }

    /// The delta of a table that has none: what `init` starts from.
    static func newDelta(for table: Table, reduced: Bool) -> Delta {
        var logged: [LoggedField] = []
        for (column, field) in table.fields.enumerated() {
            let properties = table.schema.flatMap { column < $0.fields.count ? $0.fields[column] : nil } ?? []
            if properties.value(named: "LogChanges")?.lowercased() != "false" {
                logged.append(LoggedField(name: field.name, type: field.type))
            }
        }
        let keys = table.primaryKeyColumns.map { table.fields[$0].name }
        return Delta(name: table.name, loggedFields: logged, keyFields: keys, reducedDeltaFlag: reduced ? 1 : 0)
    }

    // MARK: the current rows

    /// The current rows: the stored rows with the pending changes and the edits applied.
    public var rows: [Row] { live.map { slots[$0]! } }
    /// How many current rows there are.
    public var count: Int { live.count }

    /// The current row at `position`, or an error past the end.
    public func row(at position: Int) throws(ChangeTrackingError) -> Row {
        slots[try slot(at: position)]!
    }

    /// The pending delta to store: nil when none was given and no change is left (edits that
    /// undid each other, or none).
    public var pendingDelta: Delta? { deltaWasGiven || !delta.changes.isEmpty ? delta : nil }

    /// The change that last touched the current row at `position` (nil: none, the stored row).
    public func change(forRowAt position: Int) throws(ChangeTrackingError) -> DeltaChange? {
        owner[try slot(at: position)].map { delta.changes[$0] }
    }

    /// The position of the one current row whose key columns hold `key` (in `keyColumns` order).
    public func position(ofKey key: [Value?]) throws(ChangeTrackingError) -> Int {
        guard !keyColumns.isEmpty else {
            throw ChangeTrackingError(.noKey, "the table has no key (no key fields in the delta, no InPrimaryKey field)")
        }
        guard key.count == keyColumns.count else {
            throw ChangeTrackingError(.rowWidth, "a key has \(keyColumns.count) values, not \(key.count)")
        }
        let matches = live.indices.filter { position in keyColumns.indices.allSatisfy { slots[live[position]]![keyColumns[$0]] == key[$0] } }
        guard matches.count == 1 else {
            throw ChangeTrackingError(.keyMatches, "the key \(key.map { $0.map { "\($0)" } ?? "NULL" }) matches \(matches.isEmpty ? "no row" : "\(matches.count) rows")")
        }
        return matches[0]
    }

    func slot(at position: Int) throws(ChangeTrackingError) -> Int {
        guard live.indices.contains(position) else {
            throw ChangeTrackingError(.noSuchRow, "no row at position \(position) (the table has \(live.count))", row: position)
        }
        return live[position]
    }

    // MARK: edits

    /// Appends `row` (a value per table column) and records an insert.
    public mutating func insert(_ row: Row) throws(ChangeTrackingError) {
        try check(row, against: Row(repeating: nil, count: table.fields.count), row: live.count)
        let change = DeltaChange(type: .insert, recordID: try freshRecordID(), oldValues: logged(nil), newValues: logged(row))
        slots.append(row)
        live.append(slots.count - 1)
        record(change, before: nil, slot: slots.count - 1)
    }

    /// Replaces the current row at `position` with `row` and records the update (nothing when no
    /// value changes). A row whose pending change is an insert keeps it, with the new values; a
    /// pending update is brought up to date (and dropped when the row is back as it was).
    public mutating func update(at position: Int, to row: Row) throws(ChangeTrackingError) {
        try recordUpdate(at: position, to: row) { tracker, index in tracker.removeChange(index) }
    }

    /// The update of `update(at:to:)`; a change the row no longer needs goes through `drop`
    /// (removed at once, or marked to be removed with others: `record(updates:deletes:inserts:)`).
    mutating func recordUpdate(at position: Int, to row: Row, dropping drop: (inout ChangeTracker, Int) -> Void) throws(ChangeTrackingError) {
        let slot = try self.slot(at: position)
        let old = slots[slot]!
        try check(row, against: old, row: position)
        guard row != old else { return }
        if let index = mergeable(slot) {
            var change = delta.changes[index]
            if change.type == .insert {
                change.newValues = logged(row)
            } else {
                let original = before[index]!
                guard let values = try updateValues(from: original, to: row, row: position) else {
                    slots[slot] = row
                    drop(&self, index)
                    return
                }
                (change.oldValues, change.newValues) = values
            }
            slots[slot] = row
            replaceChange(index, with: change)
        } else {
            guard let values = try updateValues(from: old, to: row, row: position) else { return }
            slots[slot] = row
            record(DeltaChange(type: .update, recordID: try freshRecordID(), oldValues: values.old, newValues: values.new),
                   before: old, slot: slot)
        }
    }

    /// `update(at:to:)` with the values of some columns (table column → value; nil = NULL).
    public mutating func update(at position: Int, setting values: [Int: Value?]) throws(ChangeTrackingError) {
        var row = try self.row(at: position)
        for (column, value) in values {
            guard row.indices.contains(column) else {
                throw ChangeTrackingError(.rowWidth, "no column \(column) (the table has \(row.count))", row: position)
            }
            row[column] = value
        }
        try update(at: position, to: row)
    }

    /// Removes the current row at `position` and records the delete. A row inserted by a pending
    /// change loses that change instead (it never reached the server); a row with a pending
    /// update gets a delete in its place, with the old values from before the update.
    public mutating func delete(at position: Int) throws(ChangeTrackingError) {
        try recordDelete(at: position) { tracker, index in tracker.removeChange(index) }
        live.remove(at: position)
    }

    /// The delete of `delete(at:)`, the row's slot emptied but the current rows not moved up (the
    /// caller does that); a change the row no longer needs goes through `drop`.
    mutating func recordDelete(at position: Int, dropping drop: (inout ChangeTracker, Int) -> Void) throws(ChangeTrackingError) {
        let slot = try self.slot(at: position)
        guard let current = slots[slot] else {
            throw ChangeTrackingError(.noSuchRow, "the row at position \(position) is deleted already", row: position)
        }
        try checkLogged(current, row: position)
        if let index = mergeable(slot) {
            if delta.changes[index].type == .insert {
                drop(&self, index)
            } else {
                var change = delta.changes[index]
                change.type = .delete
                change.oldValues = logged(before[index]!)
                change.newValues = logged(nil)
                replaceChange(index, with: change)
            }
        } else {
            record(DeltaChange(type: .delete, recordID: try freshRecordID(), oldValues: logged(current), newValues: logged(nil)),
                   before: current, slot: slot)
        }
        slots[slot] = nil
    }

    /// Checks that `delta` replayed over the stored rows gives the current rows, i.e. that every
    /// recorded change finds its row again (it does not when, say, two rows without a key hold
    /// the same values: the replay then cannot tell which one a change meant).
    public func verify() throws(ChangeTrackingError) {
        let replayed = table.replaying(delta)
        guard replayed.rows == rows else {
            let current = rows
            let first = current.indices.first { $0 >= replayed.rows.count || replayed.rows[$0] != current[$0] } ?? current.count
            let known = Set(self.problems.map(\.message))
            let new = replayed.problems.filter { !known.contains($0.message) }.map(\.description)
            let problems = new.isEmpty ? "" : ": " + new.joined(separator: "; ")
            throw ChangeTrackingError(.notReplayable, "the delta does not replay to the edited rows (they differ from row \(first))\(problems)", row: first)
        }
    }
}
