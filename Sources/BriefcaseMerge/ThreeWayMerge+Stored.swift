import BriefcaseKit

/// The rows of one table that a three-way merge has to look at (Spec/merge.md §3, "Speed"): a key
/// whose stored row has other bytes on a side than in BASE (or is on one side only), or that a
/// pending change of any side touches (its old or new key). Every other key has the same current
/// row on all three sides, so it merges to itself and needs no value made. Rows are read as bytes
/// where they lie and only these are decoded; the pending changes find their rows by key, so
/// replayed over just these rows they give these rows' current values, and a delta recorded over
/// them is the one recorded over the whole table.
///
/// Nil — every row is looked at, as values — when a side's rows are values already (a document
/// built in memory), when a delta finds rows by other fields than the key, or when two rows of a
/// side hold one key (the merge then says so).
struct ChangingRows {
    /// BASE's table holding only these rows, stored (its delta is replayed over it).
    let base: Table
    /// LOCAL's and REMOTE's current rows of these keys.
    let local: [Row]
    let remote: [Row]
    /// LOCAL's and REMOTE's tables holding only their stored rows of these keys: with their
    /// deltas, all of a side that is not BASE's bytes (what the side's code page hangs on).
    let localStored: Table
    let remoteStored: Table

    init?(base: (table: Table, delta: Delta?), local: (table: Table, delta: Delta?), remote: (table: Table, delta: Delta?), keys: [Int]) {
        let sides = [base, local, remote]
        let views = sides.compactMap { $0.table.rows.storedView }
        guard views.count == 3 else { return nil }
        for side in sides {
            guard let delta = side.delta, !delta.changes.isEmpty else { continue }
            guard Self.keyLogged(delta, side.table, keys: keys) != nil else { return nil }
        }
        let integerKey = keys.count == 1 && [.int8, .int16, .int32, .int64, .uint8, .uint16, .uint32].contains(base.table.fields[keys[0]].type.storage)
        let found: [[Int]]?
        if integerKey {
            // (A key field of integer storage holds `.integer` or NULL only: the integers pair as the values do.)
            func integer(_ value: Value?) -> Int64? { if case .integer(let i)? = value { i } else { nil } }
            found = Self.changing(sides, views, keys: keys, rowKey: { reader, i in integer(reader.value(row: i)) }, valuesKey: { integer($0[0]) })
        } else {
            found = Self.changing(sides, views, keys: keys, rowKey: { reader, i in reader.values(row: i) }, valuesKey: { $0 })
        }
        guard let found else { return nil }
        func table(_ side: Int) -> Table {
            let original = sides[side].table
            return Table(name: original.name, schema: original.schema, fields: original.fields, rows: found[side].map(views[side].row))
        }
        self.base = table(0)
        localStored = table(1)
        remoteStored = table(2)
        self.local = currentRows(localStored, local.delta)
        self.remote = currentRows(remoteStored, remote.delta)
    }

    /// For each side, the places of its stored rows whose keys can differ, in order; nil when two
    /// rows of a side hold one key. BASE's rows are indexed by key; a side's row with BASE's bytes
    /// at BASE's place pairs with it unhashed, any other is looked up (a BASE row no row of a side
    /// found is one the side lacks).
    private static func changing<Key: Hashable>(_ sides: [(table: Table, delta: Delta?)], _ views: [StoredRowsView], keys: [Int],
                                                rowKey: (StoredColumnsReader, Int) -> Key,
                                                valuesKey: ([Value?]) -> Key) -> [[Int]]? {
        let readers = views.map { $0.columns(keys) }
        // (Views and readers taken out of their arrays once: each access in a loop would retain.)
        let baseView = views[0], baseReader = readers[0]
        var baseIndex: [Key: Int] = [:]
        baseIndex.reserveCapacity(baseView.count)
        var baseKeys: [Key] = []
        baseKeys.reserveCapacity(baseView.count)
        for i in 0 ..< baseView.count {
            let key = rowKey(baseReader, i)
            guard baseIndex.updateValue(i, forKey: key) == nil else { return nil }
            baseKeys.append(key)
        }
        var changing = Set<Key>()
        // For each side: BASE's row → the side's row of its key (-1: none), and the side's rows
        // of keys BASE lacks.
        var pairs: [[Int]] = [], added: [[Key: Int]] = []
        for side in 1 ... 2 {
            let view = views[side], reader = readers[side]
            var pair = [Int](repeating: -1, count: baseView.count)
            var new: [Key: Int] = [:]
            for j in 0 ..< view.count {
                // A row with BASE's bytes at BASE's place holds BASE's key there: no hash needed.
                if j < pair.count && baseView.sameBytes(j, as: view, j) {
                    guard pair[j] < 0 else { return nil }
                    pair[j] = j
                    continue
                }
                let key = rowKey(reader, j)
                guard let i = baseIndex[key] else {
                    guard new.updateValue(j, forKey: key) == nil else { return nil }
                    changing.insert(key)
                    continue
                }
                guard pair[i] < 0 else { return nil }
                pair[i] = j
                if !baseView.sameBytes(i, as: view, j) { changing.insert(key) }
            }
            for i in pair.indices where pair[i] < 0 { changing.insert(baseKeys[i]) }
            pairs.append(pair)
            added.append(new)
        }
        // Keys a pending change touches: its old key (or new, where no old) and its new key.
        for side in sides {
            guard let delta = side.delta, let positions = keyLogged(delta, side.table, keys: keys) else { continue }
            for change in delta.changes {
                let old = positions.map { $0 < change.oldValues.count ? change.oldValues[$0] : nil }
                let new = positions.map { $0 < change.newValues.count ? change.newValues[$0] : nil }
                changing.insert(valuesKey(zip(old, new).map { $0 ?? $1 }))
                if new.contains(where: { $0 != nil }) { changing.insert(valuesKey(new)) }
            }
        }
        // The places of the keys that can differ, found from the keys (few), not from every row.
        var places: [[Int]] = [[], [], []]
        for key in changing {
            if let i = baseIndex[key] {
                places[0].append(i)
                for side in 1 ... 2 where pairs[side - 1][i] >= 0 { places[side].append(pairs[side - 1][i]) }
            } else {
                for side in 1 ... 2 { if let j = added[side - 1][key] { places[side].append(j) } }
            }
        }
        return places.map { $0.sorted() }
    }

    /// The positions among `delta`'s logged fields of `keys` (table columns, in order), when the
    /// replay finds rows by exactly those; nil otherwise.
    static func keyLogged(_ delta: Delta, _ table: Table, keys: [Int]) -> [Int]? {
        guard let positions = table.keyPositions(delta), positions.count == keys.count else { return nil }
        var columnByName: [[UInt8]: Int] = [:]
        for (column, field) in table.fields.enumerated() where columnByName[nameKey(field.name)] == nil {
            columnByName[nameKey(field.name)] = column
        }
        let columns = positions.map { columnByName[nameKey(delta.loggedFields[$0].name)] }
        guard Set(columns.compactMap { $0 }) == Set(keys), columns.count == Set(keys).count else { return nil }
        // In the order of `keys`.
        return keys.map { key in positions[columns.firstIndex(of: key)!] }
    }
}
