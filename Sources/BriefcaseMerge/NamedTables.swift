import BriefcaseKit

/// A briefcase's tables (each with its pending delta, by the one pairing rule, Spec/bin2.md
/// §8.10) as `apply` and `merge` pair them across briefcases: the k-th table of a name (ASCII
/// letters without case) with the k-th table of that name.
struct NamedTables: Sendable {
    let source: BriefcaseTables
    /// The places of the tables, in stream order (a delta of no table is none).
    let places: [TablePlace]
    /// Which table of its name each is: 0 for the first.
    let ordinals: [Int]
    private let byName: [[UInt8]: [Int]]

    init(_ source: BriefcaseTables) {
        self.source = source
        places = source.places.filter { $0.table != nil }
        var byName: [[UInt8]: [Int]] = [:], ordinals: [Int] = []
        for (index, place) in places.enumerated() {
            ordinals.append(byName[place.key, default: []].count)
            byName[place.key, default: []].append(index)
        }
        self.ordinals = ordinals
        self.byName = byName
    }

    /// The k-th table named `name`; nil when there are fewer.
    func place(named name: ByteString, _ k: Int) -> TablePlace? {
        guard let found = byName[nameKey(name)], k < found.count else { return nil }
        return places[found[k]]
    }
}

extension ElementEdits {
    /// The table at `place` gets `delta` as its pending delta: in its delta's place, or just
    /// before the table when it had none (as .NET writes them).
    mutating func setDelta(_ delta: Delta, of place: TablePlace) {
        if let mate = place.delta { replace(mate, with: .delta(delta)) } else { insert(.delta(delta), before: place.table!) }
    }

    /// The table at `place` becomes `table` (its rows stored), its delta dropped.
    mutating func store(_ table: Table, at place: TablePlace) {
        replace(place.table!, with: .table(table))
        if let mate = place.delta { drop(mate) }
    }
}
