import BriefcaseKit

/// The pending changes of one briefcase applied to another's tables as new pending changes
/// (Spec/fold.md §5): a server's delta, a second device's briefcase, a snapshot's deltas.
public enum BriefcaseApply {
    /// A briefcase with the changes applied, and what did not fit on the way.
    public struct Result: Sendable {
        /// The target: each table's stored rows as they were, its delta holding its own pending
        /// changes and, recorded after them, those that take its rows where the changes applied
        /// take them.
        public var document: BriefcaseDocument
        /// The changes that did not fit the target's current rows, in the order of `changes`.
        public var conflicts: [ChangeConflict]
        /// What a delta as a whole could not carry over, as `table 'NAME': …` lines.
        public var notes: [String]
    }

    /// Each delta of `changes` replayed over the current rows of the table of its name in
    /// `target` (the k-th delta of a name with the k-th table of that name), each change that
    /// does not fit classed as `BriefcaseFold` classes it and handled as `resolution` says; what
    /// the delta does to the rows is then recorded in the target table's delta by its
    /// `ChangeTracker`: one change per row edited (its pending change brought up to date when it
    /// has one), fresh record ids. Errors: a value the target's field cannot hold, or a field it
    /// does not log (`ChangeTrackingError`, named by table).
    public static func apply(_ changes: BriefcaseDocument, to target: BriefcaseDocument,
                             onConflict resolution: ConflictResolution = .abort) throws(BriefcaseError) -> Result {
        let tables = NamedTables(BriefcaseTables(target))
        var conflicts: [ChangeConflict] = [], notes: [String] = []
        var edits = ElementEdits()
        var taken: [[UInt8]: Int] = [:]  // deltas of each name so far: the k-th goes to the k-th table
        for case .delta(let delta) in changes.file.stream.elements {
            let k = taken[nameKey(delta.name), default: 0]
            taken[nameKey(delta.name)] = k + 1
            guard let place = tables.place(named: delta.name, k) else {
                conflicts += ChangeConflict.notFound(delta, "the target has no table of this name")
                continue
            }
            // (A document in memory: reading cannot fail.)
            let read = try tables.source.read(place)
            let table = read.table!
            var tracker = ChangeTracker(table: table, delta: read.delta)
            let current = tracker.rows
            // The changes replayed over the current rows, as a fold replays them over the stored ones.
            let classed = ClassedReplay(delta, over: Table(name: table.name, schema: table.schema, fields: table.fields, rows: current),
                                        resolution: resolution)
            conflicts += classed.conflicts
            notes += classed.notes
            // What the replay did to each current row (the first `current.count` slots) and the rows it added.
            let slots = classed.replay.slots
            var updates: [(position: Int, row: Row)] = [], deletes: [Int] = []
            for (position, row) in current.enumerated() {
                guard let now = slots[position] else { deletes.append(position); continue }
                if now != row { updates.append((position, now)) }
            }
            do {
                try tracker.record(updates: updates, deletes: deletes, inserts: slots[current.count...].compactMap { $0 })
            } catch {
                throw BriefcaseError(.invalidModel, "table '\(table.displayName)': \(error.message)")
            }
            if let delta = tracker.pendingDelta { edits.setDelta(delta, of: place) }
        }
        var applied = target
        applied.file.stream.elements = edits.applied(to: target.file.stream.elements)
        return Result(document: applied, conflicts: conflicts, notes: notes)
    }
}
