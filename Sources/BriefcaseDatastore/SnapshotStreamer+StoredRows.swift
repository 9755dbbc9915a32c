// A table's rows written from the bytes they are kept as (`Rows.visitStored`), as the JSON
// writer writes them: no row of values is made — unless a value is not one `writeFast` writes
// exactly (an inexact value, a text that is not UTF-8, a column outside the datastore): that
// row alone is made of values and written as before (`TableWriting.write(_:index:)`), the same
// bytes either way.

import JSONCore
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit

/// What writing one table's rows keeps between rows: the element object's `rows` and `exact`,
/// the rows' buffer, the columns. (A class: the visitor and the streamer share it.)
final class TableWriting {
    let streamer: SnapshotStreamer
    let state: TableState
    let columns: [StreamColumn]
    /// `{"tid":"…","rowid":`
    let rowPrefix: [UInt8]
    /// Record ids r0, r1, … (no record-id column, key or delta).
    let plainIDs: Bool
    let hasDeltas: Bool
    // (Unchecked exclusivity: a checked access to a class's property costs a runtime call each,
    // for every value written; only the table's writer uses them, one access at a time.)
    @exclusivity(unchecked) var ids: JSONWriter<ArraySink>
    @exclusivity(unchecked) var exact = JSONWriter(sink: ArraySink())
    var exactRows = 0
    @exclusivity(unchecked) var buffer = RowBuffer()
    /// A row's `data` object, written before its record id is known.
    @exclusivity(unchecked) var data = RowBuffer(capacity: 1 << 12)
    @exclusivity(unchecked) var scratch: [UInt8] = []

    init(streamer: SnapshotStreamer, state: TableState, columns: [StreamColumn], rowPrefix: [UInt8], plainIDs: Bool,
         hasDeltas: Bool, ids: JSONWriter<ArraySink>)
    {
        self.streamer = streamer
        self.state = state
        self.columns = columns
        self.rowPrefix = rowPrefix
        self.plainIDs = plainIDs
        self.hasDeltas = hasDeltas
        self.ids = ids
    }

    /// The record id of row `index`, whose key values `row` holds.
    func recordID(_ row: Row, index: Int) -> String {
        plainIDs ? "r" + String(index) : streamer.recordID(for: row, in: state, fallback: "r" + String(index))
    }

    /// A row of values: each column through `writeColumn`, an exact form for each value that
    /// does not come back as it is.
    func write(_ row: Row, index: Int) {
        let id = recordID(row, index: index)
        data.count = 0
        var size = DatastoreSize.baseRecord
        var fields = 0
        var overrides = 0
        for column in columns.indices {
            let value = column < row.count ? row[column] : nil
            let exactValue = streamer.writeColumn(value, columns[column], recordID: id, fields: &fields, size: &size,
                                                  scratch: &scratch, buffer: &data)
            if exactValue { continue }
            if overrides > 0 || exactRows > 0 { exact.writeByte(UInt8(ascii: ",")) }
            if overrides == 0 {
                exact.writeString(id)
                exact.writeRaw(":{")
            }
            exact.writeString(String(column))
            exact.writeByte(UInt8(ascii: ":"))
            exact.writeValue(value.map { streamer.parts.json($0, type: columns[column].type) } ?? .null)
            overrides += 1
        }
        if overrides > 0 {
            exact.writeByte(UInt8(ascii: "}"))
            exactRows += 1
        }
        finish(id: id, size: size)
    }

    /// The row whose `data` fields are written: its id in the element's `rows`, the row itself.
    func finish(id: String, size: Int) {
        if !state.slotIDs.isEmpty { ids.writeByte(UInt8(ascii: ",")) }
        state.slotIDs.append(id)
        ids.writeString(id)
        buffer.append(streamer.rowCount == 0 ? "\n" as StaticString : ",\n")
        buffer.append(rowPrefix)
        buffer.appendString(id)
        buffer.append(",\"data\":{")
        buffer.append(UnsafeBufferPointer(start: data.base, count: data.count))
        buffer.append("}}")
        streamer.limits.addRecord(size: size, tableID: state.tid, recordID: id, display: state.display, violations: &streamer.violations)
        if hasDeltas {
            state.slotSizes.append(size)
            state.slotPositions.append(streamer.rowCount)
        }
        streamer.rowCount += 1
    }
}

/// Writes each stored row's `data` from its bytes into `TableWriting.data`; a row with a value
/// `writeFast` does not write exactly is written again from its values.
struct StoredRowWriting: RowVisitor {
    struct RowState {
        var column = 0
        var fields = 0
        var size = DatastoreSize.baseRecord
        var asValues = false
    }

    let writing: TableWriting
    let rows: Rows
    /// For each column, whether the record id needs its value.
    let isKey: [Bool]
    /// The key columns' values of the row being read (nil elsewhere).
    var keys: Row
    /// The index of the next row visited.
    var index = 0

    init(writing: TableWriting, rows: Rows) {
        self.writing = writing
        self.rows = rows
        var isKey = [Bool](repeating: false, count: writing.columns.count)
        for column in writing.state.keyColumns where column < isKey.count { isKey[column] = true }
        self.isKey = isKey
        keys = Row(repeating: nil, count: writing.columns.count)
    }

    /// Whether the rows can be written so: every column is a field or outside the datastore,
    /// none a JSON text column or the record id.
    static func applies(to columns: [StreamColumn]) -> Bool {
        columns.allSatisfy { column in
            switch column.role {
            case .field(_, let json): !json
            case .none: true
            case .recordID: false
            }
        }
    }

    mutating func beginRow(at position: Int, fieldCount: Int) -> RowState {
        writing.data.count = 0
        return RowState()
    }

    mutating func null(_ row: inout RowState) {
        if isKey[row.column] { keys[row.column] = nil }
        row.column += 1
    }

    mutating func scalar(_ value: Value, _ row: inout RowState) {
        let c = row.column
        row.column += 1
        if isKey[c] { keys[c] = value }
        guard !row.asValues else { return }
        let column = writing.columns[c]
        guard case .field = column.role,
              writing.streamer.writeFast(value, column, put: false, fields: &row.fields, size: &row.size, scratch: &writing.scratch,
                                         buffer: &writing.data) == true
        else {
            row.asValues = true
            return
        }
    }

    mutating func decimal(low: UInt32, mid: UInt32, high: UInt32, flags: UInt32, _ row: inout RowState) {
        scalar(.decimal(Decimal96(low: low, mid: mid, high: high, flags: flags)), &row)
    }

    mutating func bytes(_ storage: ValueStorage, _ source: ByteSource, start: Int, count: Int, base: UnsafePointer<UInt8>,
                        _ row: inout RowState)
    {
        let c = row.column
        row.column += 1
        if isKey[c] { keys[c] = Value(storage, source.byteString(start ..< start &+ count)) }
        guard !row.asValues else { return }
        let column = writing.columns[c]
        guard case .field = column.role, column.storage == storage else {
            row.asValues = true
            return
        }
        let text = UnsafeBufferPointer(start: base + start, count: count)
        let streamer = writing.streamer
        switch storage {
        case .ansiString where streamer.codePage.isUTF8 && UTF8Validation.isValid(text),
             .guid where count == 36 && UTF8Validation.isValid(text):
            streamer.startField(column, put: false, fields: &row.fields, buffer: &writing.data)
            writing.data.appendEscaped(text)
            row.size += DatastoreSize.baseField + count
        case .wideString where UTF16Text.utf8(of: text, into: &writing.scratch):
            streamer.startField(column, put: false, fields: &row.fields, buffer: &writing.data)
            writing.scratch.withUnsafeBufferPointer { writing.data.appendEscaped($0) }
            row.size += DatastoreSize.baseField + writing.scratch.count
        case .blob:
            streamer.startField(column, put: false, fields: &row.fields, buffer: &writing.data)
            writing.data.append("{\"B\":")
            writing.data.appendURLSafeBase64(text)
            writing.data.append("}")
            row.size += DatastoreSize.baseField + count + (count % 3 == 0 ? 0 : 1)
        default:
            row.asValues = true
        }
    }

    mutating func endRow(_ row: consuming RowState) {
        let index = self.index
        self.index += 1
        if row.asValues {
            writing.write(rows[index], index: index)
        } else {
            writing.finish(id: writing.recordID(keys, index: index), size: row.size)
        }
    }

    mutating func checkedRow(_ values: [Value?], at position: Int) {
        let index = self.index
        self.index += 1
        writing.write(values, index: index)
    }
}

extension SnapshotStreamer {
    /// The rows of the table `writing` is about, from their bytes when they are kept so, in
    /// batches (the rows written so far handed on between two).
    func writeRows(_ writing: TableWriting) throws(BriefcaseError) {
        let rows = writing.state.table.rows
        let storages = writing.state.table.fields.map(\.type.storage)
        var visitor = StoredRowWriting(writing: writing, rows: rows)
        let fromBytes = StoredRowWriting.applies(to: writing.columns)
        var start = 0
        while start < rows.count {
            let end = min(rows.count, start + 1024)
            visitor.index = start
            if !fromBytes || !rows.visitStored(start ..< end, storages: storages, into: &visitor) {
                for index in start ..< end { writing.write(rows[index], index: index) }
            }
            if writing.buffer.count >= Self.chunkSize { try emitRows(&writing.buffer) }
            start = end
        }
    }
}
