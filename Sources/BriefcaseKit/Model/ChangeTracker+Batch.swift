extension ChangeTracker {
    /// Records many edits of distinct rows at once, in time linear in the rows and changes: the
    /// updates (current row position → the row's new values), then the deletes (positions in the
    /// current rows as they are before any delete, each at most once, none also updated), then the
    /// inserts. The delta recorded is the one that `update(at:to:)`, `delete(at:)` and `insert(_:)`
    /// called in that order would record — the same changes, record ids and order — but a delete
    /// does not move the rows after it, nor does a dropped change move the changes after it, one
    /// at a time (10⁵ rows deleted with SQL took hours that way; Spec/sqlite-mapping.md §5).
    /// On a throw, nothing is changed.
    public mutating func record(updates: [(position: Int, row: Row)], deletes: [Int], inserts: [Row]) throws(ChangeTrackingError) {
        var edited = self
        try edited.recordTogether(updates: updates, deletes: deletes, inserts: inserts)
        self = edited
    }

    private mutating func recordTogether(updates: [(position: Int, row: Row)], deletes: [Int], inserts: [Row]) throws(ChangeTrackingError) {
        // Changes the edits no longer need are marked here and removed once, at the end; until
        // then their rows have no owner (each row is edited once).
        var dropped: Set<Int> = []
        func drop(_ tracker: inout ChangeTracker, _ index: Int) {
            dropped.insert(index)
            if let slot = tracker.changeSlots[index] { tracker.owner.removeValue(forKey: slot) }
            tracker.edited()
        }
        for (position, row) in updates { try recordUpdate(at: position, to: row, dropping: drop) }
        for position in deletes { try recordDelete(at: position, dropping: drop) }
        if !deletes.isEmpty { live.removeAll { slots[$0] == nil } }
        if !dropped.isEmpty {
            var changes: [DeltaChange] = [], kept: [Row?] = [], keptSlots: [Int?] = []
            for index in delta.changes.indices where !dropped.contains(index) {
                changes.append(delta.changes[index])
                kept.append(before[index])
                keptSlots.append(changeSlots[index])
            }
            delta.changes = Changes(changes)
            before = kept
            changeSlots = keptSlots
            // Each row's owner: the last change left that touched it (as `removeChange` keeps it).
            owner = [:]
            for (index, slot) in changeSlots.enumerated() { if let slot { owner[slot] = index } }
        }
        for row in inserts { try insert(row) }
    }
}
