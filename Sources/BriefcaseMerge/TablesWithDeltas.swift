import BriefcaseKit

/// A briefcase's tables, each with its pending delta (by the one pairing rule, Spec/bin2.md
/// §8.10) and the places of both among its elements; found by name as the k-th table of that
/// name (ASCII letters without case), as `apply` and `merge` pair tables across briefcases.
struct TablesWithDeltas {
    struct Entry: Sendable {
        /// The table's place among the elements, and its delta's (nil: none).
        let place: Int
        let mate: Int?
        let table: Table
        let delta: Delta?
        /// Which table of its name it is: 0 for the first.
        let ordinal: Int
    }

    /// What becomes of a table: a new pending delta, or rows stored in place of its delta's.
    enum Change: Sendable {
        case delta(Delta)
        case storedRows([Row])
    }

    let elements: [Element]
    /// The tables, in stream order.
    let entries: [Entry]
    private let byName: [[UInt8]: [Int]]

    init(_ document: BriefcaseDocument) {
        elements = document.file.stream.elements
        let pairing = ElementPairing(elements)
        var entries: [Entry] = [], byName: [[UInt8]: [Int]] = [:]
        for (place, element) in elements.enumerated() {
            guard case .table(let table) = element else { continue }
            let mate = pairing.partner[place]
            var delta: Delta?
            if let mate, case .delta(let found) = elements[mate] { delta = found }
            let key = nameKey(table.name)
            entries.append(Entry(place: place, mate: mate, table: table, delta: delta, ordinal: byName[key, default: []].count))
            byName[key, default: []].append(entries.count - 1)
        }
        self.entries = entries
        self.byName = byName
    }

    /// The index in `entries` of the k-th table named `name`; nil when there are fewer.
    func index(named name: ByteString, _ k: Int) -> Int? {
        guard let found = byName[nameKey(name)], k < found.count else { return nil }
        return found[k]
    }

    /// The k-th table named `name`, with its delta; nil when there are fewer.
    func table(named name: ByteString, _ k: Int) -> (table: Table, delta: Delta?)? {
        index(named: name, k).map { (entries[$0].table, entries[$0].delta) }
    }

    /// The elements with `changes` (by index in `entries`) made: a delta in its delta's place, or
    /// just before its table when it had none (as .NET writes them); stored rows in the table, its
    /// delta dropped.
    func elements(with changes: [Int: Change]) -> [Element] {
        var elements = self.elements
        var newDeltas: [(before: Int, delta: Delta)] = [], dropped: Set<Int> = []
        for (index, change) in changes {
            let entry = entries[index]
            switch change {
            case .delta(let delta):
                if let mate = entry.mate { elements[mate] = .delta(delta) } else { newDeltas.append((entry.place, delta)) }
            case .storedRows(let rows):
                var table = entry.table
                table.rows = Rows(rows)
                elements[entry.place] = .table(table)
                if let mate = entry.mate { dropped.insert(mate) }
            }
        }
        // Dropped first (they are places of the elements as they were), then the new deltas, last
        // place first so that the places before stay right.
        if !dropped.isEmpty { elements = elements.indices.filter { !dropped.contains($0) }.map { elements[$0] } }
        for (place, delta) in newDeltas.sorted(by: { $0.before > $1.before }) {
            elements.insert(.delta(delta), at: place - dropped.count(where: { $0 < place }))
        }
        return elements
    }
}

/// A delta replayed with its conflicts classed (`Table.replaying(_:resolving:)`), as `fold` and
/// `apply` replay one: the replay, its conflicts as `ChangeConflict`s, and what the delta as a
/// whole could not carry over, as `table 'NAME': …` lines.
struct ClassedReplay {
    let replay: DeltaReplay
    let conflicts: [ChangeConflict]
    let notes: [String]

    init(_ delta: Delta, over table: Table, resolution: ConflictResolution) {
        replay = table.replaying(delta, resolving: resolution == .replace ? .replace : .omit)
        conflicts = replay.conflicts.map { conflict in
            let kind: ChangeConflict.Kind = switch conflict.kind {
            case .data: .data
            case .notFound: .notFound
            case .conflict: .conflict
            }
            return ChangeConflict(kind: kind, table: table.name, changeIndex: conflict.changeIndex,
                                  change: delta.changes[conflict.changeIndex], row: conflict.row, message: conflict.message)
        }
        notes = replay.problems.filter { $0.changeIndex == nil }.map { "table '\(table.displayName)': \($0.message)" }
    }
}

extension ChangeConflict {
    /// Every change of `delta` as NOTFOUND: a delta whose table is not there.
    static func notFound(_ delta: Delta, _ message: String) -> [ChangeConflict] {
        delta.changes.enumerated().map { index, change in
            ChangeConflict(kind: .notFound, table: delta.name, changeIndex: index, change: change, row: nil, message: message)
        }
    }
}

extension Table {
    /// The name as messages show it (read as UTF-8).
    var displayName: String { String(decoding: name.bytes, as: UTF8.self) }
}
