// A table's stored rows, streamed: each row is written as it is mapped (no DatastoreRecord, no
// JSON tree; from the bytes it is kept as, `SnapshotStreamer+StoredRows.swift`), while its record
// id and any exact forms go into the table's element object of the `briefcase` member,
// serialized as it grows.

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
        let idsStart = JSONWriter(sink: ArraySink(bytes: elementText))

        let columns = streamColumns(of: state)
        var rowHead = JSONWriter(sink: ArraySink())
        rowHead.writeRaw("{\"tid\":")
        rowHead.writeString(state.tid)
        rowHead.writeRaw(",\"rowid\":")
        try! rowHead.flush()
        // The rows go out through their own buffer: what `out` holds goes first.
        try flushChunk(force: true)

        state.slotIDs.reserveCapacity(table.rows.count)
        // Without a record-id column, a key or a delta, the ids are r0, r1, … (all free, and
        // no later change needs to know them taken).
        let hasDeltas = plan.deltasOfTable[element] != nil
        let plainIDs = state.recordIDColumn == nil && state.keyColumns.isEmpty && !hasDeltas
        if hasDeltas {
            state.slotSizes.reserveCapacity(table.rows.count)
            state.slotPositions.reserveCapacity(table.rows.count)
        }
        let writing = TableWriting(streamer: self, state: state, columns: columns, rowPrefix: rowHead.sink.bytes, plainIDs: plainIDs,
                                   hasDeltas: hasDeltas, ids: idsStart)
        try writeRows(writing)
        try emitRows(&writing.buffer)
        var ids = writing.ids
        var exact = writing.exact
        let exactRows = writing.exactRows
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
