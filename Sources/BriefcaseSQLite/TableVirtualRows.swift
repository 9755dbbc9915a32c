import BriefcaseKit

/// The rows of a current-rows table (or of `_briefcase_stored_N`) as a virtual table gives them:
/// the same rows, rowids and values `SQLiteTableWriter` writes (Spec/sqlite-mapping.md §3), read
/// from the decoded table — its rows still views into the file, each made values when SQLite asks
/// for one of its columns.
final class TableVirtualRows: VirtualRows {
    let count: Int
    let image: ValueImage
    /// Whether column 0 is the mapping's own, holding the rowid (`CurrentTableLayout.identityColumn`).
    let identity: Bool
    private let row: (Int) -> Row
    /// Made when first needed: a count reads no key.
    private lazy var ids: RowIDs = makeIDs()
    private let makeIDs: () -> RowIDs
    /// The last row made values (SQLite asks for a row's columns one by one).
    private var made: (place: Int, row: Row)?
    private var keyPlaces: [Int64: Int32]?

    enum RowIDs {
        /// Row i has rowid i + 1.
        case positions
        /// Row i has rowid ids[i] (ascending).
        case given([Int64])
        /// The key (column `column`) is the rowid; `order` the places by key when they are not in order.
        case keys([Int64], column: Int, order: [Int32]?)
    }

    /// Works out the rowids and the rowid order now (else when first needed: a count needs neither).
    func orderRows() { _ = ids }

    /// Whether the rowid of the table is its key (`row_ids = key`).
    var rowIDsAreKeys: Bool { if case .keys = ids { true } else { false } }
    var orderingColumn: Int? { if case .keys(_, let column, _) = ids { column } else { nil } }

    private init(count: Int, image: ValueImage, identity: Bool, row: @escaping (Int) -> Row, ids: @escaping () -> RowIDs) {
        self.count = count
        self.image = image
        self.identity = identity
        self.row = row
        makeIDs = ids
    }

    /// The current rows `current` (`ReplayedTable`); the rowid is the key when SQLite would take
    /// the key as its rowid alias (one INTEGER key column, every key an integer it holds, no two
    /// alike), as `SQLiteTableWriter.createAndFill` finds.
    static func current(_ current: InsertedRows, layout: CurrentTableLayout, image: ValueImage) -> TableVirtualRows {
        let keyed = layout.rowIDIsKey(primaryKey: true)
        return TableVirtualRows(count: current.count, image: image, identity: layout.identityColumn != nil, row: current.row) {
            guard keyed, let keys = current.integers(layout.keyColumns[0]), let order = Self.order(keys) else { return .positions }
            return .keys(keys, column: layout.keyColumns[0], order: order.isEmpty ? nil : order)
        }
    }

    /// The stored rows of `table` at `slots` (ascending; nil: all), stored row i with rowid i + 1.
    static func stored(_ table: Table, slots: [Int]?, layout: CurrentTableLayout, image: ValueImage) -> TableVirtualRows {
        let stored = table.rows
        guard let slots else {
            return TableVirtualRows(count: stored.count, image: image, identity: layout.identityColumn != nil, row: { stored[$0] }, ids: { .positions })
        }
        return TableVirtualRows(count: slots.count, image: image, identity: layout.identityColumn != nil,
                                row: { stored[slots[$0]] }, ids: { .given(slots.map { Int64($0) + 1 }) })
    }

    /// The places in key order (empty: they are in order already); nil when two keys are alike.
    private static func order(_ keys: [Int64]) -> [Int32]? {
        if zip(keys, keys.dropFirst()).allSatisfy({ $0 < $1 }) { return [] }
        let order = keys.indices.sorted { keys[$0] < keys[$1] }.map(Int32.init)
        for (a, b) in zip(order, order.dropFirst()) where keys[Int(a)] == keys[Int(b)] { return nil }
        return order
    }

    func place(scanned k: Int) -> Int {
        if case .keys(_, _, let order?) = ids { return Int(order[k]) }
        return k
    }

    func rowID(_ place: Int) -> Int64 {
        switch ids {
        case .positions: return Int64(place) + 1
        case .given(let ids): return ids[place]
        case .keys(let keys, _, _): return keys[place]
        }
    }

    func place(ofRowID rowID: Int64) -> Int? {
        switch ids {
        case .positions: return rowID >= 1 && rowID <= Int64(count) ? Int(rowID - 1) : nil
        case .given(let ids):
            var low = 0, high = ids.count
            while low < high {
                let middle = (low + high) / 2
                if ids[middle] < rowID { low = middle + 1 } else { high = middle }
            }
            return low < ids.count && ids[low] == rowID ? low : nil
        case .keys(let keys, _, _):
            if keyPlaces == nil {
                var places: [Int64: Int32] = [:]
                places.reserveCapacity(keys.count)
                for (place, key) in keys.enumerated() { places[key] = Int32(place) }
                keyPlaces = places
            }
            return keyPlaces![rowID].map(Int.init)
        }
    }

    func cell(_ place: Int, column: Int) -> SQLValue {
        if identity && column == 0 { return .integer(rowID(place)) }
        let field = identity ? column - 1 : column
        if made?.place != place { made = (place, row(place)) }
        let values = made!.row
        return image.sql(field < values.count ? values[field] : nil)
    }
}
