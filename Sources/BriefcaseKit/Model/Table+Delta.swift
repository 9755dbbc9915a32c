/// A change of a delta that could not be applied to the stored rows.
public struct DeltaApplicationProblem: Sendable, Equatable, CustomStringConvertible {
    /// The position of the change in the delta; nil for a problem of the whole delta.
    public var changeIndex: Int?
    /// The change's record id.
    public var recordID: Int32?
    /// What went wrong.
    public var message: String

    /// `change N (record id R): message`.
    public var description: String {
        var prefix = ""
        if let changeIndex { prefix += "change \(changeIndex)" }
        if let recordID { prefix += " (record id \(recordID))" }
        return prefix.isEmpty ? message : prefix + ": " + message
    }
}

/// What replaying one change did (`Table.replaying(_:)`).
package struct ChangeReplay: Sendable, Equatable {
    /// What a change did to the rows.
    package enum Outcome: Sendable, Equatable {
        /// The change inserted, updated or deleted a row.
        case inserted, updated, deleted
        /// The change matched no row or several, carried nothing to match on, or has an unknown type.
        case notApplied
    }
    /// What the change did.
    public var outcome: Outcome
    /// The row slot the change touched (see `DeltaReplay.slots`); nil when not applied.
    public var slot: Int?
    /// The row before the change (nil for an insert or when not applied).
    public var before: Row?
    /// The row after the change (nil for a delete or when not applied).
    public var after: Row?
}

/// The result of replaying a delta over a table's rows, change by change.
public struct DeltaReplay: Sendable {
    /// One entry per change, in order.
    package var changes: [ChangeReplay]
    /// Every row that existed at some point: slots `0..<rows.count` are the stored rows, then one
    /// slot per applied insert, in change order. nil = deleted.
    public var slots: [Row?]
    /// Changes that could not be applied, and why.
    public var problems: [DeltaApplicationProblem]

    /// The rows once every change is replayed (stored order, inserted rows appended).
    public var rows: [Row] { slots.compactMap { $0 } }
}

extension Table {
    /// The rows as they are once `delta` is replayed over the stored (original) rows: inserted
    /// rows appended, updated rows changed, deleted rows left out.
    ///
    /// A change finds its row by the delta's key fields (or, when it has none, the schema's
    /// `InPrimaryKey` fields), comparing the change's old key values (new ones when absent);
    /// a table with no key at all is matched on every logged old value the change carries.
    /// Changes that match no row, or several, are not applied and are reported as problems.
    public func applying(_ delta: Delta) -> (rows: [Row], problems: [DeltaApplicationProblem]) {
        let replay = replaying(delta)
        return (replay.rows, replay.problems)
    }

    /// `applying(_:)`, reporting for each change which row it touched and how (same rules).
    public func replaying(_ delta: Delta) -> DeltaReplay {
        var problems: [DeltaApplicationProblem] = []
        // Logged field position → table column (the first of that name; a dictionary, not a
        // scan of the fields per logged field).
        var columnByName: [[UInt8]: Int] = [:]
        for (column, field) in fields.enumerated() where columnByName[nameKey(field.name)] == nil {
            columnByName[nameKey(field.name)] = column
        }
        let columns: [Int?] = delta.loggedFields.map { columnByName[nameKey($0.name)] }
        for (i, column) in columns.enumerated() where column == nil {
            problems.append(DeltaApplicationProblem(message: "logged field '\(delta.loggedFields[i].name)' is not a column of the table; its values are ignored"))
        }
        let keyLogged = keyPositions(delta)
        var rows: [Row?] = self.rows.map { $0 }
        var lookup = RowLookup(rows: rows, keyColumns: keyLogged?.compactMap { columns[$0] })
        var replays: [ChangeReplay] = []
        replays.reserveCapacity(delta.changes.count)

        for (index, change) in delta.changes.enumerated() {
            let notApplied = ChangeReplay(outcome: .notApplied, slot: nil, before: nil, after: nil)
            func problem(_ message: String) {
                problems.append(DeltaApplicationProblem(changeIndex: index, recordID: change.recordID, message: message))
            }
            switch change.type {
            case .insert:
                var row = Row(repeating: nil, count: fields.count)
                for (i, column) in columns.enumerated() {
                    if let column, i < change.newValues.count { row[column] = change.newValues[i] }
                }
                rows.append(row)
                lookup.add(row, at: rows.count - 1)
                replays.append(ChangeReplay(outcome: .inserted, slot: rows.count - 1, before: nil, after: row))
            case .update, .delete:
                // (table column, expected value) pairs that identify the row.
                var criteria: [(column: Int, value: Value?)] = []
                if let keyLogged {
                    for position in keyLogged {
                        guard let column = columns[position] else { continue }
                        let value = position < change.oldValues.count ? change.oldValues[position] : nil
                        let fallback = position < change.newValues.count ? change.newValues[position] : nil
                        criteria.append((column, value ?? fallback))
                    }
                } else {
                    for (i, column) in columns.enumerated() {
                        if let column, i < change.oldValues.count, let old = change.oldValues[i] { criteria.append((column, old)) }
                    }
                }
                guard !criteria.isEmpty else {
                    problem("\(change.type) carries no key or old values to find its row; not applied")
                    replays.append(notApplied)
                    continue
                }
                let matches = lookup.matches(criteria, in: rows)
                guard matches.count == 1, let match = matches.first else {
                    problem("\(change.type) matches \(matches.isEmpty ? "no row" : "\(matches.count) rows"); not applied")
                    replays.append(notApplied)
                    continue
                }
                let before = rows[match]
                if change.type == .delete {
                    lookup.remove(before!, at: match)
                    rows[match] = nil
                    replays.append(ChangeReplay(outcome: .deleted, slot: match, before: before, after: nil))
                } else {
                    for (i, column) in columns.enumerated() {
                        guard let column, i < change.newValues.count else { continue }
                        if let value = change.newValues[i] {
                            rows[match]![column] = value
                        } else if !delta.isReduced {
                            // A full delta carries every logged field: absent means NULL.
                            rows[match]![column] = nil
                        }
                    }
                    lookup.replace(before!, with: rows[match]!, at: match)
                    replays.append(ChangeReplay(outcome: .updated, slot: match, before: before, after: rows[match]))
                }
            default:
                problem("unknown change type \(change.type.rawValue); not applied")
                replays.append(notApplied)
            }
        }
        return DeltaReplay(changes: replays, slots: rows, problems: problems)
    }

    /// Positions (in the delta's logged fields) of the key: the delta's key fields, else the
    /// schema's `InPrimaryKey` fields; nil when the table has no key. (`ChangeTracker` logs
    /// changes by the same key.)
    func keyPositions(_ delta: Delta) -> [Int]? {
        var keyNames: [ByteString] = delta.keyFields
        if keyNames.isEmpty { keyNames = primaryKeyColumns.map { fields[$0].name } }
        var loggedByName: [[UInt8]: Int] = [:]
        for (position, logged) in delta.loggedFields.enumerated() where loggedByName[nameKey(logged.name)] == nil {
            loggedByName[nameKey(logged.name)] = position
        }
        let positions = keyNames.compactMap { loggedByName[nameKey($0)] }
        return positions.isEmpty ? nil : positions
    }
}

/// The live rows (slots) by the values of some columns, kept up to date while a delta is
/// replayed, so that finding a change's row does not scan every row: that costs rows × changes,
/// minutes for a crafted file of a few hundred KB (Spec/robustness.md).
///
/// With a key, every change names the same key columns: one hash table from their values to the
/// rows answers each change exactly. Without one (changes matched on their old values), each
/// column asked about gets a hash table of its own, and the rows of the column whose value is
/// rarest are checked against every criterion.
private struct RowLookup {
    private let keyColumns: [Int]?
    /// Built for every row, before the first change: a slot without a set of its own for a
    /// key only one row has (the usual case; a set per row was most of the replay's cost).
    private var byKey: [[Value?]: KeySlots] = [:]
    /// Built for a column the first time a change asks about it (a value only one row holds
    /// without a set of its own, as for keys).
    private var byColumn: [Int: [Value?: KeySlots]] = [:]

    init(rows: [Row?], keyColumns: [Int]?) {
        self.keyColumns = keyColumns?.isEmpty == false ? keyColumns : nil
        guard let keyColumns = self.keyColumns else { return }
        byKey.reserveCapacity(rows.count)
        for (slot, row) in rows.enumerated() {
            if let row { insertKey(keyColumns.map { row[$0] }, slot) }
        }
    }

    private mutating func insertKey(_ key: [Value?], _ slot: Int) {
        byKey[key, default: .none].insert(slot) // (one hash of the key)
    }

    private mutating func removeKey(_ key: [Value?], _ slot: Int) {
        byKey[key]?.remove(slot)
    }

    /// The slots of the live rows whose value in each criterion's column equals its value.
    mutating func matches(_ criteria: [(column: Int, value: Value?)], in rows: [Row?]) -> Set<Int> {
        if let keyColumns, criteria.map(\.column) == keyColumns {
            return byKey[criteria.map(\.value)]?.set ?? []
        }
        var rarest: KeySlots?
        for (column, value) in criteria {
            if byColumn[column] == nil {
                var index: [Value?: KeySlots] = [:]
                index.reserveCapacity(rows.count)
                for (slot, row) in rows.enumerated() {
                    if let row { index[row[column], default: .none].insert(slot) }
                }
                byColumn[column] = index
                indexedColumns.append(column)
            }
            let candidates = byColumn[column]![value] ?? .none
            if rarest == nil || candidates.count < rarest!.count { rarest = candidates }
        }
        guard let rarest else { return [] }
        return rarest.set.filter { slot in criteria.allSatisfy { rows[slot]![$0.column] == $0.value } }
    }

    // The per-column tables are updated in place. Iterating `byColumn.keys` while mutating
    // `byColumn` would keep a second reference to its storage, so every change copied every
    // column's table: rows × changes, 44 s for 2 × 20 000 rows (Spec/robustness.md §8.6).
    // `indexedColumns` is a separate list for that reason.
    private var indexedColumns: [Int] = []

    mutating func add(_ row: Row, at slot: Int) {
        if let keyColumns { insertKey(keyColumns.map { row[$0] }, slot) }
        for column in indexedColumns { byColumn[column]![row[column], default: .none].insert(slot) }
    }

    mutating func remove(_ row: Row, at slot: Int) {
        if let keyColumns { removeKey(keyColumns.map { row[$0] }, slot) }
        for column in indexedColumns { byColumn[column]![row[column]]?.remove(slot) }
    }

    /// The row at `slot` changed from `old` to `new`: only the tables of the columns whose value
    /// changed are touched (an update seldom changes its key, and hashing the key values twice
    /// per change was most of the replay's cost).
    mutating func replace(_ old: Row, with new: Row, at slot: Int) {
        if let keyColumns, keyColumns.contains(where: { old[$0] != new[$0] }) {
            removeKey(keyColumns.map { old[$0] }, slot)
            insertKey(keyColumns.map { new[$0] }, slot)
        }
        for column in indexedColumns where old[column] != new[column] {
            byColumn[column]![old[column]]?.remove(slot)
            byColumn[column]![new[column], default: .none].insert(slot)
        }
    }
}

/// The slots of the live rows with one key, or one value of a column (`RowLookup`).
private enum KeySlots {
    case none
    case one(Int)
    case many(Set<Int>)

    var count: Int {
        switch self {
        case .none: return 0
        case .one: return 1
        case .many(let slots): return slots.count
        }
    }

    var set: Set<Int> {
        switch self {
        case .none: return []
        case .one(let slot): return [slot]
        case .many(let slots): return slots
        }
    }

    mutating func insert(_ slot: Int) {
        switch self {
        case .none: self = .one(slot)
        case .one(let first): if first != slot { self = .many([first, slot]) }
        case .many(var slots):
            self = .none // (drops the enum's reference: the set is changed in place)
            slots.insert(slot)
            self = .many(slots)
        }
    }

    mutating func remove(_ slot: Int) {
        switch self {
        case .none: break
        case .one(let only): if only == slot { self = .none }
        case .many(var slots):
            self = .none
            slots.remove(slot)
            self = .many(slots)
        }
    }
}
