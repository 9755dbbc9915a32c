// Streams a snapshot document through a JSONWriter, one row or delta at a time, so a caller
// can write a large datastore without building a DatastoreSnapshot first.
//
// Output shape (compact JSON, one row / delta per line, final newline):
//
//   {"rev":3,"rows":[
//   {"tid":"t","rowid":"r1","data":{"a":"x"}},
//   {"tid":"t","rowid":"r2","data":{}}
//   ],"deltas":[
//   {"rev":3,"changes":[["D","t","r1"]],"nonce":"n"}
//   ],"extra":{"k":1}}

import JSONCore

/// Writes a snapshot document piece by piece: rows, then (optionally) deltas, then extra
/// members, then `finish`. Each piece is checked before anything of it is written; a refused
/// piece leaves the output as it was, so the caller may go on or give up.
public struct SnapshotDocumentWriter: Sendable {
    enum Stage { case start, rows, deltas, extras, finished }

    /// The snapshot's revision (written first).
    public let rev: Int
    /// Rows written so far.
    public private(set) var rowCount = 0
    /// Deltas written so far.
    public private(set) var deltaCount = 0

    var stage = Stage.start
    var keys = Set<DatastoreSnapshot.Key>()
    var tally = SizeTally()
    var extraKeys = Set<String>()

    /// A writer of a document at revision `rev`.
    public init(rev: Int) {
        precondition(rev >= 0, "a revision is never negative")
        self.rev = rev
    }

    /// Datastore size of the rows written so far: 1000 + Σ record size.
    public func size(_ accounting: BytesAccounting = .exact) -> Int {
        DatastoreSize.baseDatastore + tally.total(accounting)
    }

    /// Writes one row of the snapshot (checking its ids, uniqueness and values).
    public mutating func writeRow<S: ByteSink>(_ row: DatastoreRow, to writer: inout JSONWriter<S>) throws(DatastoreError) {
        try writeRow(tableID: row.tableID, recordID: row.recordID, record: row.record, to: &writer)
    }

    /// Writes one row (errors at `$.rows[i]…`: invalid ids, a record written twice, rows after
    /// deltas or extras, rows with `rev` 0).
    public mutating func writeRow<S: ByteSink>(tableID: String, recordID: String, record: DatastoreRecord,
                                               to writer: inout JSONWriter<S>) throws(DatastoreError)
    {
        let path = JSONPath.root.appending(key: "rows").appending(index: rowCount)
        guard stage == .start || stage == .rows else {
            throw DatastoreError(.invalidStructure, "rows must be written before deltas and extra members", at: path)
        }
        if rev == 0 {
            throw DatastoreError(.invalidStructure,
                "rev is 0, so there can be no rows; a datastore with records is at revision 1 or later",
                at: JSONPath.root.appending(key: "rev"))
        }
        let row = DatastoreRow(tableID: tableID, recordID: recordID, record: record)
        try row.validate(at: path)
        let key = DatastoreSnapshot.Key(tableID: tableID, recordID: recordID)
        guard !keys.contains(key) else {
            throw DatastoreError(.recordExists,
                "the record \(DatastoreSnapshot.describe(key)) is already in rows", at: path)
        }
        keys.insert(key)
        tally += record.tally
        if stage == .start {
            writeHeader(to: &writer)
            stage = .rows
            writer.writeByte(UInt8(ascii: "\n"))
        } else {
            writer.writeRaw(",\n")
        }
        row.write(to: &writer)
        rowCount += 1
    }

    /// Opens `"deltas"` (also done by the first `writeDelta`); call it alone to write `"deltas":[]`.
    public mutating func beginDeltas<S: ByteSink>(to writer: inout JSONWriter<S>) throws(DatastoreError) {
        switch stage {
        case .start, .rows:
            closeRows(to: &writer)
            writer.writeRaw(",\"deltas\":[")
            stage = .deltas
        case .deltas:
            break
        case .extras, .finished:
            throw DatastoreError(.invalidStructure, "deltas must be written before extra members",
                at: JSONPath.root.appending(key: "deltas"))
        }
    }

    /// Writes one delta (errors at `$.deltas[i]…`: invalid content, or a revision other than
    /// `rev + i`).
    public mutating func writeDelta<S: ByteSink>(_ delta: DatastoreDelta, to writer: inout JSONWriter<S>)
        throws(DatastoreError)
    {
        let path = JSONPath.root.appending(key: "deltas").appending(index: deltaCount)
        guard stage != .extras && stage != .finished else {
            throw DatastoreError(.invalidStructure, "deltas must be written before extra members", at: path)
        }
        try delta.validate(at: path)
        try SnapshotDocument.checkSequence(delta, position: deltaCount, snapshotRev: rev, at: path)
        try beginDeltas(to: &writer)
        writer.writeRaw(deltaCount == 0 ? "\n" : ",\n")
        delta.write(to: &writer)
        deltaCount += 1
    }

    /// Writes one extra top-level member (errors at `$.<key>`: a reserved or repeated key).
    public mutating func writeExtra<S: ByteSink>(key: String, value: JSONValue, to writer: inout JSONWriter<S>)
        throws(DatastoreError)
    {
        let path = JSONPath.root.appending(key: key)
        guard stage != .finished else {
            throw DatastoreError(.invalidStructure, "the document is already finished", at: path)
        }
        guard !SnapshotDocument.reservedKeys.contains(key) else {
            throw DatastoreError(.invalidStructure, "\(JSONPath.quoted(key)) is defined by the document; it cannot be an extra member", at: path)
        }
        guard extraKeys.insert(key).inserted else {
            throw DatastoreError(.invalidStructure, "the extra member \(JSONPath.quoted(key)) is written twice", at: path)
        }
        closeSections(to: &writer)
        stage = .extras
        writer.writeByte(UInt8(ascii: ","))
        writer.writeString(key)
        writer.writeByte(UInt8(ascii: ":"))
        writer.writeValue(value)
    }

    /// Closes the document (`}` and a newline). The caller still flushes the writer.
    public mutating func finish<S: ByteSink>(to writer: inout JSONWriter<S>) throws(DatastoreError) {
        guard stage != .finished else {
            throw DatastoreError(.invalidStructure, "the document is already finished")
        }
        closeSections(to: &writer)
        writer.writeRaw("}\n")
        stage = .finished
    }

    // MARK: -

    private func writeHeader<S: ByteSink>(to writer: inout JSONWriter<S>) {
        writer.writeRaw("{\"rev\":")
        writer.writeInt(Int64(rev))
        writer.writeRaw(",\"rows\":[")
    }

    /// Ends `rows` (writing the header first if nothing was written yet).
    private mutating func closeRows<S: ByteSink>(to writer: inout JSONWriter<S>) {
        if stage == .start {
            writeHeader(to: &writer)
            writer.writeByte(UInt8(ascii: "]"))
        } else if stage == .rows {
            writer.writeRaw("\n]")
        }
    }

    /// Ends whatever array is open.
    private mutating func closeSections<S: ByteSink>(to writer: inout JSONWriter<S>) {
        switch stage {
        case .start, .rows:
            closeRows(to: &writer)
            stage = .extras
        case .deltas:
            writer.writeRaw(deltaCount == 0 ? "]" : "\n]")
            stage = .extras
        case .extras, .finished:
            break
        }
    }
}
