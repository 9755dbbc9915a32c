/// The keys of a table's current rows where the rowid is the key (`row_ids = key`): which
/// current row a rowid is.
///
/// SQLite returns a table's rows in rowid order, and a table's keys usually ascend in the
/// briefcase too: then a row is found by a cursor (the one after the last found) or a binary
/// search, with no dictionary of every key made. Keys in any other order are found through a
/// dictionary.
final class RowIDKeys {
    private let keys: [Int64]
    private let positions: [Int64: Int]?
    /// The first row whose key is not an integer, or equals an earlier row's; nil when every
    /// key is an integer unique to its row.
    let firstNotUnique: Int?
    private var next = 0

    init(_ keys: [Int64?]) {
        var ascending: [Int64] = []
        ascending.reserveCapacity(keys.count)
        for key in keys {
            guard let key, ascending.last.map({ $0 < key }) ?? true else { break }
            ascending.append(key)
        }
        if ascending.count == keys.count {
            self.keys = ascending
            positions = nil
            firstNotUnique = nil
            return
        }
        var positions: [Int64: Int] = [:]
        positions.reserveCapacity(keys.count)
        var firstNotUnique: Int?
        for (index, key) in keys.enumerated() {
            guard let key, positions.updateValue(index, forKey: key) == nil else {
                firstNotUnique = index
                break
            }
        }
        self.keys = []
        self.positions = positions
        self.firstNotUnique = firstNotUnique
    }

    /// The current row whose key is `rowID`.
    func index(of rowID: Int64) -> Int? {
        if let positions { return positions[rowID] }
        if next < keys.count, keys[next] == rowID {
            next += 1
            return next - 1
        }
        var low = 0, high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < rowID { low = middle + 1 } else { high = middle }
        }
        guard low < keys.count, keys[low] == rowID else { return nil }
        next = low + 1
        return low
    }
}
