/// The live rows (slots) by the values of some columns, kept up to date while a delta is
/// replayed, so that finding a change's row does not scan every row: that costs rows × changes,
/// minutes for a crafted file of a few hundred KB (Spec/robustness.md).
///
/// With a key, every change names the same key columns: one hash table from their values to the
/// rows answers each change exactly. Without one (changes matched on their old values), each
/// column asked about gets a hash table of its own, and the rows of the column whose value is
/// rarest are checked against every criterion.
struct RowLookup {
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
enum KeySlots {
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
