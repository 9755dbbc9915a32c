import BriefcaseKit

/// `_briefcase_elements` as a virtual table (`OnDemandDatabase`): what the heads tell at once;
/// `row_ids` and `rows` from each table read, `bin2` and `checksum` from each element read and
/// written as a Bin2 stream of its own — as `SQLiteTableWriter` writes them.
final class ElementsVirtualRows: VirtualRows {
    struct Entry {
        var kind: String
        var name: String
        var currentTable: String?
        var storedTable: String?
        var note: String?
        var changes: Int?
    }

    let entries: [Entry]
    let reader: OnDemandReader
    var count: Int { entries.count }
    var orderingColumn: Int? { 0 }

    init(entries: [Entry], reader: OnDemandReader) {
        self.entries = entries
        self.reader = reader
    }

    func place(scanned k: Int) -> Int { k }
    func rowID(_ place: Int) -> Int64 { Int64(place) }
    func place(ofRowID rowID: Int64) -> Int? { rowID >= 0 && rowID < Int64(count) ? Int(rowID) : nil }

    /// The columns read from the elements themselves.
    private static let rowIDs = 5, rows = 7, bin2 = 9, checksum = 10

    /// Every element a statement reading these columns needs, read before its first row (so that
    /// an element that does not decode fails the statement before it prints anything).
    func prepare(_ columns: UInt64) throws(BriefcaseError) {
        let read = [Self.rowIDs, Self.rows, Self.bin2, Self.checksum].contains { columns & (1 << UInt64($0)) != 0 }
        guard read else { return }
        for (i, entry) in entries.enumerated() where entry.kind == "table" {
            if entry.currentTable != nil && columns & (1 << UInt64(Self.rowIDs)) != 0 {
                _ = try reader.currentRows(i)
            } else {
                _ = try reader.table(i)
            }
        }
    }

    func cell(_ place: Int, column: Int) throws(BriefcaseError) -> SQLValue {
        let entry = entries[place]
        switch column {
        case 0: return .integer(Int64(place))
        case 1: return .text(entry.kind)
        case 2: return .text(entry.name)
        case 3: return entry.currentTable.map(SQLValue.text) ?? .null
        case 4: return entry.storedTable.map(SQLValue.text) ?? .null
        case Self.rowIDs:
            guard entry.currentTable != nil else { return .null }
            return .text(try reader.currentRows(place).rowIDsAreKeys ? "key" : "position")
        case 6: return entry.note.map(SQLValue.text) ?? .null
        case Self.rows: return entry.kind == "table" ? .integer(Int64(try reader.table(place).rows.count)) : .null
        case 8: return entry.changes.map { .integer(Int64($0)) } ?? .null
        case Self.bin2: return .blob(try SQLiteTableWriter.bin2(try reader.element(place), codePage: reader.codePage))
        default: return .integer(SQLiteMapping.checksum(try SQLiteTableWriter.bin2(try reader.element(place), codePage: reader.codePage)))
        }
    }
}
