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
        var elements = target.file.stream.elements
        let pairing = ElementPairing(elements)
        var conflicts: [ChangeConflict] = [], notes: [String] = []
        // The target's tables by name key, in stream order; the k-th delta of a name takes the k-th.
        var tablesByName: [[UInt8]: [Int]] = [:]
        for (i, element) in elements.enumerated() {
            if case .table(let table) = element { tablesByName[nameKey(table.name), default: []].append(i) }
        }
        var taken: [[UInt8]: Int] = [:]
        var newDeltas: [(before: Int, delta: Delta)] = []
        for case .delta(let delta) in changes.file.stream.elements {
            let key = nameKey(delta.name)
            let k = taken[key, default: 0]
            taken[key] = k + 1
            guard let places = tablesByName[key], k < places.count, case .table(let table) = elements[places[k]] else {
                for (index, change) in delta.changes.enumerated() {
                    conflicts.append(ChangeConflict(kind: .notFound, table: delta.name, changeIndex: index, change: change, row: nil,
                                                    message: "the target has no table of this name"))
                }
                continue
            }
            let place = places[k]
            let mate = pairing.partner[place]
            var own: Delta?
            if let mate, case .delta(let found) = elements[mate] { own = found }
            var tracker = ChangeTracker(table: table, delta: own)
            let current = tracker.rows
            // The changes replayed over the current rows, as a fold replays them over the stored ones.
            let replay = Table(name: table.name, schema: table.schema, fields: table.fields, rows: current)
                .replaying(delta, resolving: resolution == .replace ? .replace : .omit)
            for conflict in replay.conflicts {
                conflicts.append(ChangeConflict(kind: BriefcaseFold.kind(conflict.kind), table: table.name, changeIndex: conflict.changeIndex,
                                                change: delta.changes[conflict.changeIndex], row: conflict.row, message: conflict.message))
            }
            for problem in replay.problems where problem.changeIndex == nil {
                notes.append("table '\(String(decoding: table.name.bytes, as: UTF8.self))': \(problem.message)")
            }
            // What the replay did to each current row (the first `current.count` slots) and the rows it added.
            var updates: [(position: Int, row: Row)] = [], deletes: [Int] = []
            for (position, row) in current.enumerated() {
                guard let now = replay.slots[position] else { deletes.append(position); continue }
                if now != row { updates.append((position, now)) }
            }
            let inserts = replay.slots[current.count...].compactMap { $0 }
            do {
                try tracker.record(updates: updates, deletes: deletes, inserts: inserts)
            } catch {
                throw BriefcaseError(.invalidModel, "table '\(String(decoding: table.name.bytes, as: UTF8.self))': \(error.message)")
            }
            guard let recorded = tracker.pendingDelta else { continue }
            if let mate { elements[mate] = .delta(recorded) } else { newDeltas.append((place, recorded)) }
        }
        // A delta new to its table goes just before it, as .NET writes them (last first, so the
        // places before stay right).
        for (place, delta) in newDeltas.sorted(by: { $0.before > $1.before }) { elements.insert(.delta(delta), at: place) }
        var applied = target
        applied.file.stream.elements = elements
        return Result(document: applied, conflicts: conflicts, notes: notes)
    }
}
