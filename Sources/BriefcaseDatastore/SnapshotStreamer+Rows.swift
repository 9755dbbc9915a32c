// A table's stored rows, streamed: each row is written as it is mapped (no DatastoreRecord, no
// JSON tree), while its record id and any exact forms go into the table's element object of
// the `briefcase` member, serialized as it grows.

import JSONCore
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit

/// One column of the table being written. (A class: a struct of three references was copied,
/// retained and released, for every value written.)
final class StreamColumn {
    let role: ColumnRole
    let type: DataType
    let storage: ValueStorage?
    /// `"fid":`, for a field.
    let key: [UInt8]
    /// `"fid":["P",`, for a field (an update's put).
    let putKey: [UInt8]

    init(role: ColumnRole, type: DataType, key: [UInt8]) {
        self.role = role
        self.type = type
        storage = type.storage
        self.key = key
        putKey = key.isEmpty ? [] : key + Array("[\"P\",".utf8)
    }
}

extension SnapshotStreamer {
    /// The columns of the state's table, as rows and changes write them.
    func streamColumns(of state: TableState) -> [StreamColumn] {
        state.table.fields.indices.map { column -> StreamColumn in
            let role = column < state.roles.count ? state.roles[column] : .none
            let type = state.table.fields[column].type
            var key: [UInt8] = []
            if case .field(let id, _) = role {
                var writer = JSONWriter(sink: ArraySink())
                writer.writeString(id)
                writer.writeByte(UInt8(ascii: ":"))
                try! writer.flush()  // an ArraySink never fails
                key = writer.sink.bytes
            }
            return StreamColumn(role: role, type: type, key: key)
        }
    }

    func writeTable(_ state: TableState, element: Int) throws(BriefcaseError) {
        let table = state.table
        let head = try TableMapping.elementHead(tid: state.tid, columns: "fields", roles: state.roles) {
            try parts.tableHead(table)
        }
        // The element object: the head, then `rows` (ids), then `exact` when a value needs it.
        var object = JSONWriter(sink: ArraySink())
        object.writeValue(.object(head))
        try! object.flush()
        var elementText = object.sink.bytes
        elementText.removeLast()  // the head's "}": members follow
        elementText.append(contentsOf: Array(",\"rows\":[".utf8))
        var ids = JSONWriter(sink: ArraySink(bytes: elementText))
        var exact = JSONWriter(sink: ArraySink())
        var exactRows = 0

        let columns = streamColumns(of: state)
        var rowHead = JSONWriter(sink: ArraySink())
        rowHead.writeRaw("{\"tid\":")
        rowHead.writeString(state.tid)
        rowHead.writeRaw(",\"rowid\":")
        try! rowHead.flush()
        let rowPrefix = rowHead.sink.bytes
        var scratch: [UInt8] = []
        // The rows go out through their own buffer: what `out` holds goes first.
        try flushChunk(force: true)
        var buffer = RowBuffer()

        state.slotIDs.reserveCapacity(table.rows.count)
        // Without a record-id column, a key or a delta, the ids are r0, r1, … (all free, and
        // no later change needs to know them taken).
        let hasDeltas = plan.deltasOfTable[element] != nil
        let plainIDs = state.recordIDColumn == nil && state.keyColumns.isEmpty && !hasDeltas
        if hasDeltas {
            state.slotSizes.reserveCapacity(table.rows.count)
            state.slotPositions.reserveCapacity(table.rows.count)
        }
        for (index, row) in table.rows.enumerated() {
            let id = plainIDs ? "r" + String(index) : recordID(for: row, in: state, fallback: "r" + String(index))
            state.slotIDs.append(id)
            if index > 0 { ids.writeByte(UInt8(ascii: ",")) }
            ids.writeString(id)

            buffer.append(rowCount == 0 ? "\n" as StaticString : ",\n")
            buffer.append(rowPrefix)
            buffer.appendString(id)
            buffer.append(",\"data\":{")
            var size = DatastoreSize.baseRecord
            var fields = 0
            var overrides = 0
            for column in columns.indices {
                let value = column < row.count ? row[column] : nil
                let exactValue = writeColumn(value, columns[column], recordID: id, fields: &fields, size: &size,
                                             scratch: &scratch, buffer: &buffer)
                if exactValue { continue }
                if overrides > 0 || exactRows > 0 { exact.writeByte(UInt8(ascii: ",")) }
                if overrides == 0 {
                    exact.writeString(id)
                    exact.writeRaw(":{")
                }
                exact.writeString(String(column))
                exact.writeByte(UInt8(ascii: ":"))
                exact.writeValue(value.map { parts.json($0, type: columns[column].type) } ?? .null)
                overrides += 1
            }
            if overrides > 0 {
                exact.writeByte(UInt8(ascii: "}"))
                exactRows += 1
            }
            buffer.append("}}")
            limits.addRecord(size: size, tableID: state.tid, recordID: id, display: state.display, violations: &violations)
            if hasDeltas {
                state.slotSizes.append(size)
                state.slotPositions.append(rowCount)
            }
            rowCount += 1
            if buffer.count >= Self.chunkSize { try emitRows(&buffer) }
        }
        try emitRows(&buffer)
        ids.writeByte(UInt8(ascii: "]"))
        if exactRows > 0 {
            try! exact.flush()
            ids.writeRaw(",\"exact\":{")
            ids.writeRaw(exact.sink.bytes)
            ids.writeByte(UInt8(ascii: "}"))
        }
        ids.writeByte(UInt8(ascii: "}"))
        try! ids.flush()
        let start = spool.count
        spool.append(ids.sink.bytes)
        tableObjects[element] = start..<spool.count
    }
}
