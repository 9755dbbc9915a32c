// The state of a datastore at one revision: its records, keyed by (table id, record id).

import JSONCore

/// A datastore at revision `rev`: a set of records, each named by a table id and a record id.
///
/// Tables have no existence of their own: a table is there while it has a record. Records keep
/// the order they were added in (the order rows are written in); the order carries no meaning,
/// so equality ignores it. Every id and field name held is valid (checked on the way in).
/// Size and count are maintained incrementally.
public struct DatastoreSnapshot: Sendable {
    struct Key: Hashable, Sendable {
        var tableID: String
        var recordID: String
    }

    struct Entry: Sendable {
        var key: Key
        var record: DatastoreRecord
    }

    /// The revision: 0 for an empty datastore that has seen no delta, +1 per delta applied.
    public var rev: Int

    /// Records in order; nil marks a removed one (compacted away now and then).
    var entries: [Entry?] = []
    var index: [Key: Int] = [:]
    var recordsTally = SizeTally()

    /// An empty datastore at `rev`.
    public init(rev: Int = 0) {
        precondition(rev >= 0, "a revision is never negative")
        self.rev = rev
    }

    /// A datastore at `rev` holding `rows`. Throws for an invalid id or field name, or a record
    /// named twice (paths `$.rows[i]…`).
    public init<S: Sequence>(rev: Int, rows: S) throws(DatastoreError) where S.Element == DatastoreRow {
        self.init(rev: rev)
        for (position, row) in rows.enumerated() {
            do {
                try insert(row)
            } catch {
                throw error.prefixed(by: JSONPath.root.appending(key: "rows").appending(index: position))
            }
        }
    }

    /// Number of records.
    public var recordCount: Int { index.count }
    /// True when the snapshot has no records.
    public var isEmpty: Bool { index.isEmpty }

    /// The record `recordID` of table `tableID`, if present.
    public subscript(tableID: String, recordID: String) -> DatastoreRecord? {
        guard let position = index[Key(tableID: tableID, recordID: recordID)] else { return nil }
        return entries[position]!.record
    }

    /// True when table `tableID` has a record `recordID`.
    public func contains(tableID: String, recordID: String) -> Bool {
        index[Key(tableID: tableID, recordID: recordID)] != nil
    }

    /// Datastore size: 1000 + Σ record size.
    public func size(_ accounting: BytesAccounting = .exact) -> Int {
        DatastoreSize.baseDatastore + recordsTally.total(accounting)
    }

    /// The rows in order.
    public var rows: Rows { Rows(entries: entries) }

    /// The ids of the tables that have records, in order of their first record.
    public var tableIDs: [String] {
        var seen = Set<String>()
        var result: [String] = []
        for entry in entries {
            if let entry, seen.insert(entry.key.tableID).inserted { result.append(entry.key.tableID) }
        }
        return result
    }

    /// The rows of one table, in order.
    public func rows(inTable tableID: String) -> [DatastoreRow] {
        rows.filter { $0.tableID == tableID }
    }

    /// Adds a record that is not there yet (appended at the end of the order).
    /// Errors (relative paths): `$.tid`, `$.rowid`, `$.data.<field>` (invalid names), `$` (`recordExists`).
    public mutating func insert(_ row: DatastoreRow) throws(DatastoreError) {
        try row.validate()
        let key = Key(tableID: row.tableID, recordID: row.recordID)
        guard index[key] == nil else {
            throw DatastoreError(.recordExists,
                "the record \(DatastoreSnapshot.describe(key)) already exists")
        }
        append(key, row.record)
    }

    /// Adds or replaces a record (a replaced record keeps its place in the order).
    public mutating func setRecord(_ record: DatastoreRecord, tableID: String, recordID: String) throws(DatastoreError) {
        let row = DatastoreRow(tableID: tableID, recordID: recordID, record: record)
        try row.validate()
        let key = Key(tableID: tableID, recordID: recordID)
        if let position = index[key] {
            _ = replace(at: position, with: record)
        } else {
            append(key, record)
        }
    }

    /// Removes a record, returning it.
    @discardableResult
    public mutating func removeRecord(tableID: String, recordID: String) -> DatastoreRecord? {
        guard let position = index[Key(tableID: tableID, recordID: recordID)] else { return nil }
        let removed = remove(at: position).record
        compactIfSparse()
        return removed
    }

    // MARK: primitive edits (shared with delta application and its rollback)

    mutating func append(_ key: Key, _ record: DatastoreRecord) {
        index[key] = entries.count
        entries.append(Entry(key: key, record: record))
        recordsTally += record.tally
    }

    @discardableResult
    mutating func remove(at position: Int) -> Entry {
        let entry = entries[position]!
        entries[position] = nil
        index[entry.key] = nil
        recordsTally -= entry.record.tally
        return entry
    }

    /// Replaces the record at `position`, returning the old one.
    mutating func replace(at position: Int, with record: DatastoreRecord) -> DatastoreRecord {
        let old = entries[position]!.record
        entries[position]!.record = record
        recordsTally += record.tally - old.tally
        return old
    }

    /// Drops removed entries once they are the majority.
    mutating func compactIfSparse() {
        let removed = entries.count - index.count
        guard removed > 32, removed * 2 > entries.count else { return }
        entries = entries.filter { $0 != nil }
        for (position, entry) in entries.enumerated() { index[entry!.key] = position }
    }

    static func describe(_ key: Key) -> String {
        "\(JSONPath.quoted(key.recordID)) of table \(JSONPath.quoted(key.tableID))"
    }

    /// The rows of a snapshot, in order.
    public struct Rows: Sequence, Sendable {
        let entries: [Entry?]

        /// Iterates over the rows in order.
        public struct Iterator: IteratorProtocol {
            var base: IndexingIterator<[Entry?]>
            /// The next row, or nil at the end.
            public mutating func next() -> DatastoreRow? {
                while let slot = base.next() {
                    if let entry = slot {
                        return DatastoreRow(tableID: entry.key.tableID, recordID: entry.key.recordID, record: entry.record)
                    }
                }
                return nil
            }
        }

        /// An iterator over the rows in order.
        public func makeIterator() -> Iterator { Iterator(base: entries.makeIterator()) }
    }
}

extension DatastoreSnapshot: Equatable {
    /// Same revision and the same records (order ignored).
    public static func == (lhs: DatastoreSnapshot, rhs: DatastoreSnapshot) -> Bool {
        guard lhs.rev == rhs.rev, lhs.index.count == rhs.index.count else { return false }
        for (key, position) in lhs.index {
            guard let other = rhs.index[key], lhs.entries[position]!.record == rhs.entries[other]!.record else {
                return false
            }
        }
        return true
    }
}
