import BriefcaseKit

/// What a comparison looks at (Spec/diff.md §4).
public struct DiffOptions: Sendable, Equatable {
    /// Only the tables of these names (ASCII letters without case); nil: every table.
    public var tables: [ByteString]?
    /// Fields whose values are not compared (a timestamp the app rewrites), in rows and changes.
    public var ignoredFields: [ByteString]
    /// Properties not compared.
    public var ignoredProperties: [ByteString]
    /// Compare the rows as the app sees them — the pending changes applied to the stored rows —
    /// instead of the stored rows and the pending changes each on their own.
    public var current: Bool
    /// Pair a keyless table's rows by position (row i of A with row i of B) instead of as a
    /// multiset of whole rows.
    public var byPosition: Bool
    /// Tables compared at once, on worker threads (the differences come in the same order, the
    /// same as with one). 1, the default, starts no thread: a library does not take the cores
    /// unasked (`briefcase diff` passes `--jobs`).
    public var jobs: Int

    /// What to compare; by default everything, stored rows and pending changes apart.
    public init(tables: [ByteString]? = nil, ignoredFields: [ByteString] = [], ignoredProperties: [ByteString] = [],
                current: Bool = false, byPosition: Bool = false, jobs: Int = 1) {
        self.tables = tables
        self.ignoredFields = ignoredFields
        self.ignoredProperties = ignoredProperties
        self.current = current
        self.byPosition = byPosition
        self.jobs = jobs
    }
}

/// The differences between two briefcases, A (old) and B (new), in the order of
/// `BriefcaseDifference` (Spec/diff.md). A briefcase compared with itself gives none.
public enum BriefcaseComparison {
    /// What changed from `a` to `b`, as `options` say.
    public static func differences(_ a: BriefcaseDocument, _ b: BriefcaseDocument,
                                   options: DiffOptions = DiffOptions()) -> [BriefcaseDifference] {
        compare(DocumentTables(a), DocumentTables(b), options: options)
    }

    /// The same of two sides read table by table (`BriefcaseTables`): a table's element that
    /// cannot be read ends the comparison with its error.
    public static func differences(_ a: BriefcaseTables, _ b: BriefcaseTables,
                                   options: DiffOptions = DiffOptions()) throws(BriefcaseError) -> [BriefcaseDifference] {
        try compare(a, b, options: options)
    }

    static func compare<Side: TableSource>(_ a: Side, _ b: Side, options: DiffOptions) throws(Side.Failure) -> [BriefcaseDifference] {
        var differences = propertyDifferences(a.properties, b.properties, ignoring: options.ignoredProperties)
        let wanted = options.tables.map { Set($0.map(nameKey)) }
        let placesA = a.places.filter { wanted?.contains($0.key) ?? true }
        let placesB = b.places.filter { wanted?.contains($0.key) ?? true }
        let ignored = Set(options.ignoredFields.map(nameKey))
        // A delta of no table pairs only with a delta of no table.
        let pairs = paired(placesA, placesB, key: { [$0.key, [$0.table == nil ? 1 : 0]] })
        @Sendable func tableDifferences(_ n: Int) throws(Side.Failure) -> [BriefcaseDifference] {
            switch (pairs[n].old, pairs[n].new) {
            case (let old?, let new?):
                // Each side's table read now and let go once compared.
                defer { a.release(old); b.release(new) }
                return TableComparison(old: try a.read(old), new: try b.read(new), ignored: ignored, options: options).differences()
            case (let old?, nil): return [.table(name: old.name, kind: .removed)]
            case (nil, let new?): return [.table(name: new.name, kind: .added)]
            case (nil, nil): return []
            }
        }
        guard options.jobs > 1, pairs.count > 1 else {
            for n in pairs.indices { differences += try tableDifferences(n) }
            return differences
        }
        // Tables on `jobs` threads, taken in order (`WorkDoneAhead`). A table compared is let go
        // (only its differences are kept), so the workers go ahead of the one taking them as far
        // as they can: a large table does not hold the others back.
        let sizes = pairs.map { ($0.old?.size ?? 0) + ($0.new?.size ?? 0) }
        let work = WorkDoneAhead<Result<[BriefcaseDifference], Side.Failure>>(sizes: sizes, jobs: options.jobs, name: "briefcase diff",
                                                                              outputsAreSmall: true) {
            { n in Result { () throws(Side.Failure) in try tableDifferences(n) } }
        }
        defer { work.stop() }
        for n in pairs.indices { differences += try work.take(n).get() }
        return differences
    }

    static func propertyDifferences(_ a: [BriefcaseProperty], _ b: [BriefcaseProperty],
                                    ignoring ignored: [ByteString]) -> [BriefcaseDifference] {
        let skip = Set(ignored)
        var differences: [BriefcaseDifference] = []
        for pair in paired(a.filter { !skip.contains($0.name) }, b.filter { !skip.contains($0.name) }, key: { [$0.name.bytes] }) {
            switch (pair.old, pair.new) {
            case (let old?, let new?) where old.value != new.value:
                differences.append(.property(name: old.name, old: old.value, new: new.value))
            case (let old?, nil): differences.append(.property(name: old.name, old: old.value, new: nil))
            case (nil, let new?): differences.append(.property(name: new.name, old: nil, new: new.value))
            default: break
            }
        }
        return differences
    }

    /// The k-th item of a key in `a` with the k-th of that key in `b`: A's items in A's order
    /// (each with its partner or none), then B's without a partner, in B's order.
    static func paired<Item, Key: Hashable>(_ a: [Item], _ b: [Item], key: (Item) -> Key) -> [(old: Item?, new: Item?)] {
        var pairs: [(old: Item?, new: Item?)] = []
        pairs.reserveCapacity(a.count)
        forEachPair(a.count, b.count, keyA: { key(a[$0]) }, keyB: { key(b[$0]) }) { i, j in
            pairs.append((i.map { a[$0] }, j.map { b[$0] }))
        }
        return pairs
    }

    /// The pairing of `paired`, by place: `body(i, j)` for each of A's `countA` items in order
    /// (`j` nil: no partner), then `body(nil, j)` for B's without one, in order.
    static func forEachPair<Key: Hashable>(_ countA: Int, _ countB: Int, keyA: (Int) -> Key, keyB: (Int) -> Key,
                                           _ body: (Int?, Int?) -> Void) {
        // B's items of each key as a chain, first to last: `first[key]`, then `next[j]` (-1: none
        // left). One dictionary entry per key, none per item (most keys are unique), and one
        // hash per item of A.
        var first: [Key: Int] = [:]
        first.reserveCapacity(countB)
        var next = [Int](repeating: -1, count: countB)
        for j in stride(from: countB - 1, through: 0, by: -1) {
            next[j] = first.updateValue(j, forKey: keyB(j)) ?? -1
        }
        var taken = [Bool](repeating: false, count: countB)
        for i in 0 ..< countA {
            guard let place = first.index(forKey: keyA(i)), case let j = first.values[place], j >= 0 else {
                body(i, nil)
                continue
            }
            first.values[place] = next[j]
            taken[j] = true
            body(i, j)
        }
        for j in 0 ..< countB where !taken[j] { body(nil, j) }
    }
}
