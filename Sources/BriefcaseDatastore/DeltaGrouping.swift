/// How the pending changes of a briefcase become datastore deltas (`SnapshotStreamer`): one delta
/// per applied change, or
/// the grouping that the `DatastoreSnapshot` property recorded when the snapshot was imported
/// (Spec/datastore-mapping.md).
enum DeltaGrouping {
    /// What the grouping needs to know of one pending change, in briefcase order.
    struct Change {
        var tableName: String?
        var recordID: Int32
        /// Whether the change became a datastore change (failed and no-op changes do not).
        var applied: Bool
        /// Its table: per table, changes keep their order.
        var table: ObjectIdentifier
    }

    /// The deltas as members (indices into `changes`) with the recorded nonce, if any; and
    /// whether recorded `hinted` groups were given but do not describe these changes (then: one
    /// delta per change).
    static func groups(_ changes: [Change], rev: Int, hinted: [SnapshotHints.DeltaGroup]?)
        -> (groups: [(nonce: String?, members: [Int])], hintsIgnored: Bool) {
        if let hinted {
            if let regrouped = regroup(changes, rev: rev, hinted: hinted) { return (regrouped, false) }
        }
        let single = changes.indices.compactMap { i in changes[i].applied ? (nil as String?, [i]) : nil }
        return (single, hinted != nil)
    }

    private static func regroup(_ changes: [Change], rev: Int, hinted: [SnapshotHints.DeltaGroup]) -> [(nonce: String?, members: [Int])]? {
        struct Ref: Hashable { var table: String; var recordID: Int32 }
        var candidates: [Ref: [Int]] = [:]   // the changes a reference can name, in order
        for index in changes.indices.reversed() {
            guard let table = changes[index].tableName else { continue }
            candidates[Ref(table: table, recordID: changes[index].recordID), default: []].append(index)
        }
        var used = Set<Int>()
        var result: [(nonce: String?, members: [Int])] = []
        var lastInTable: [ObjectIdentifier: Int] = [:]
        for (position, group) in hinted.enumerated() {
            guard group.rev == rev + position else { return nil }
            var members: [Int] = []
            for ref in group.changes {
                guard let index = candidates[Ref(table: ref.table, recordID: ref.recordID)]?.popLast(),
                      changes[index].applied else { return nil }
                let table = changes[index].table
                if let last = lastInTable[table], last > index { return nil }  // per table, change order is kept
                lastInTable[table] = index
                used.insert(index)
                members.append(index)
            }
            result.append((group.nonce, members))
        }
        return used.count == changes.count ? result : nil
    }
}
