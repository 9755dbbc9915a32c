import DatastoreKit

/// A record: its table id and record id.
struct RecordKey: Hashable {
    var tableID: String
    var recordID: String
}

/// What one side changed since BASE (Spec/merge.md §5), as changes that apply to BASE's current
/// records in order, each with its record as it was just before it on this side.
struct SideChanges {
    var changes: [DatastoreChange] = []
    /// The record before each change (nil: absent), for `sum`'s old value.
    var befores: [DatastoreRecord?] = []
    /// Each record's changes (positions in `changes`), and the records in the order first changed.
    var byRecord: [RecordKey: [Int]] = [:]
    var recordOrder: [RecordKey] = []

    /// `side`'s changes: its deltas past BASE's when it starts from BASE's records — holding
    /// BASE's deltas, or holding them folded in — else the difference of its current records
    /// from BASE's.
    init(_ side: SnapshotDocument, current: DatastoreSnapshot, base: SnapshotDocument, baseCurrent: DatastoreSnapshot,
         input: SnapshotMerge.Input) throws(SnapshotMerge.Failure) {
        let baseDeltas = base.deltas ?? [], sideDeltas = side.deltas ?? []
        let found: [DatastoreChange]
        if side.snapshot == base.snapshot && sideDeltas.starts(with: baseDeltas) {
            found = sideDeltas.dropFirst(baseDeltas.count).flatMap(\.changes)
        } else if side.snapshot == baseCurrent {
            found = sideDeltas.flatMap(\.changes)
        } else {
            found = Self.difference(from: baseCurrent, to: current)
        }
        // Replayed over BASE's records: each change's record before it.
        var state = baseCurrent
        for change in found {
            let key = RecordKey(tableID: change.tableID, recordID: change.recordID)
            befores.append(state[key.tableID, key.recordID])
            do {
                try state.apply(change)
            } catch {
                throw SnapshotMerge.Failure(input: input, error: DatastoreError(error.kind,
                    "its changes since BASE do not apply to BASE's records: \(error.message)"))
            }
            if byRecord[key] == nil { recordOrder.append(key) }
            byRecord[key, default: []].append(changes.count)
            changes.append(change)
        }
    }

    /// Changes from `old` to `new`, record by record: deletes and updates in `old`'s order, then
    /// inserts in `new`'s. A field is put, or deleted; a list that stays a list is edited
    /// (`listEdits`), one operation per field in each `U` change.
    static func difference(from old: DatastoreSnapshot, to new: DatastoreSnapshot) -> [DatastoreChange] {
        var changes: [DatastoreChange] = []
        for row in old.rows {
            guard let now = new[row.tableID, row.recordID] else {
                changes.append(.delete(tableID: row.tableID, recordID: row.recordID))
                continue
            }
            guard now != row.record else { continue }
            var rounds: [[FieldUpdate]] = [[]]
            let added = now.fieldNames.filter { row.record[$0] == nil }
            for field in row.record.fieldNames + added {
                let before = row.record[field], after = now[field]
                guard before != after else { continue }
                switch (before, after) {
                case (.list(let a)?, .list(let b)?):
                    for (round, operation) in listEdits(from: a, to: b).enumerated() {
                        if round == rounds.count { rounds.append([]) }
                        rounds[round].append(FieldUpdate(field, operation))
                    }
                case (_, nil): rounds[0].append(FieldUpdate(field, .delete))
                case (_, let value?): rounds[0].append(FieldUpdate(field, .put(value)))
                }
            }
            changes += rounds.filter { !$0.isEmpty }.map { .update(tableID: row.tableID, recordID: row.recordID, updates: $0) }
        }
        for row in new.rows where !old.contains(tableID: row.tableID, recordID: row.recordID) {
            changes.append(.insert(tableID: row.tableID, recordID: row.recordID, fields: row.record))
        }
        return changes
    }

    /// List operations that turn `old` into `new`: the common start and end kept, the elements
    /// between put in place one for one, the rest of `old`'s deleted or of `new`'s inserted. So
    /// an edit at one end of a list and another elsewhere merge; a reordering shows as puts.
    static func listEdits(from old: [DatastoreAtom], to new: [DatastoreAtom]) -> [FieldOperation] {
        var start = 0
        while start < old.count && start < new.count && old[start] == new[start] { start += 1 }
        var end = 0
        while end < old.count - start && end < new.count - start && old[old.count - 1 - end] == new[new.count - 1 - end] { end += 1 }
        let oldMiddle = old[start ..< old.count - end], newMiddle = new[start ..< new.count - end]
        let shared = Swift.min(oldMiddle.count, newMiddle.count)
        var operations: [FieldOperation] = []
        for offset in 0 ..< shared where old[start + offset] != new[start + offset] {
            operations.append(.listPut(at: start + offset, new[start + offset]))
        }
        for _ in shared ..< oldMiddle.count { operations.append(.listDelete(at: start + shared)) }
        for offset in shared ..< newMiddle.count { operations.append(.listInsert(before: start + offset, new[start + offset])) }
        return operations
    }
}
