// One snapshot row: `{"tid": …, "rowid": …, "data": {…}}`.

import JSONCore

/// One record of a snapshot with its table id and record id.
public struct DatastoreRow: Hashable, Sendable {
    /// `tid` on the wire.
    public var tableID: String
    /// `rowid` on the wire.
    public var recordID: String
    /// `data` on the wire.
    public var record: DatastoreRecord

    /// The record `recordID` of table `tableID`.
    public init(tableID: String, recordID: String, record: DatastoreRecord) {
        self.tableID = tableID
        self.recordID = recordID
        self.record = record
    }

    /// Checks the ids and field names; errors at `path.tid`, `path.rowid`, `path.data.<field>`.
    public func validate(at path: JSONPath = .root) throws(DatastoreError) {
        try DatastoreIdentifier.validate(tableID, as: .table, at: path.appending(key: "tid"))
        try DatastoreIdentifier.validate(recordID, as: .record, at: path.appending(key: "rowid"))
        try record.validateFieldNames(at: path.appending(key: "data"))
    }

    /// Decodes a row object (exactly the keys `tid`, `rowid`, `data`); errors relative to `json`.
    public init(wire json: JSONValue) throws(DatastoreError) {
        let object = try Wire.object(json, what: "a row", at: .root)
        try Wire.requireKeys(object, ["tid", "rowid", "data"], what: "a row", at: .root)
        let tidPath = JSONPath.root.appending(key: "tid")
        let rowidPath = JSONPath.root.appending(key: "rowid")
        tableID = try Wire.string(object["tid"]!, what: "tid", at: tidPath)
        try DatastoreIdentifier.validate(tableID, as: .table, at: tidPath)
        recordID = try Wire.string(object["rowid"]!, what: "rowid", at: rowidPath)
        try DatastoreIdentifier.validate(recordID, as: .record, at: rowidPath)
        do {
            record = try DatastoreRecord(wire: object["data"]!)
        } catch {
            throw error.prefixed(by: .key("data"))
        }
    }

    /// The row's wire JSON: `{"tid":…,"rowid":…,"data":{…}}`.
    public var wire: JSONValue {
        .object(["tid": .string(tableID), "rowid": .string(recordID), "data": record.wire])
    }

    /// Writes the row's wire JSON (same text as `wire` serialized).
    public func write<S: ByteSink>(to writer: inout JSONWriter<S>) {
        DatastoreRow.write(tableID: tableID, recordID: recordID, record: record, to: &writer)
    }

    static func write<S: ByteSink>(tableID: String, recordID: String, record: DatastoreRecord,
                                   to writer: inout JSONWriter<S>)
    {
        writer.writeRaw("{\"tid\":")
        writer.writeString(tableID)
        writer.writeRaw(",\"rowid\":")
        writer.writeString(recordID)
        writer.writeRaw(",\"data\":")
        record.write(to: &writer)
        writer.writeByte(UInt8(ascii: "}"))
    }
}
