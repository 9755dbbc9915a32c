// Changes: the elements of a delta's `changes` array.
//
//   ["I", tid, rowid, {field: value, …}]   insert a record that does not exist
//   ["U", tid, rowid, {field: fieldop, …}] update an existing record
//   ["D", tid, rowid]                      delete an existing record

import JSONCore

/// One change to one record.
public enum DatastoreChange: Hashable, Sendable {
    /// `I`: insert a new record with these fields.
    case insert(tableID: String, recordID: String, fields: DatastoreRecord)
    /// `U`: apply these operations (one per field at most) to an existing record.
    case update(tableID: String, recordID: String, updates: [FieldUpdate])
    /// `D`: delete an existing record with all its fields.
    case delete(tableID: String, recordID: String)

    /// The wire tag: `I`, `U` or `D`.
    public var tag: String {
        switch self {
        case .insert: "I"
        case .update: "U"
        case .delete: "D"
        }
    }

    /// The table the change is in.
    public var tableID: String {
        switch self {
        case .insert(let tid, _, _), .update(let tid, _, _), .delete(let tid, _): tid
        }
    }

    /// The record the change is to.
    public var recordID: String {
        switch self {
        case .insert(_, let rid, _), .update(_, let rid, _), .delete(_, let rid): rid
        }
    }

    var sizeTally: SizeTally {
        var tally = SizeTally(exact: DatastoreSize.baseChange)
        switch self {
        case .insert(_, _, let fields):
            tally += fields.fieldsTally
        case .update(_, _, let updates):
            for update in updates {
                tally.exact += DatastoreSize.baseField
                tally += update.operation.operandTally
            }
        case .delete:
            break
        }
        return tally
    }

    /// Change size for delta accounting: 100 + (I: Σ (100 + value size); U: Σ (100 + operand
    /// size); D: 0).
    public func size(_ accounting: BytesAccounting = .exact) -> Int {
        sizeTally.total(accounting)
    }

    /// Checks ids, field names, uniqueness of updated fields and list indices of a hand-built
    /// change; paths as in the change's wire form (`$[1]` tid, `$[2]` rowid, `$[3].<field>`).
    /// (Paths are made only for an error: every change written is validated.)
    public func validate(at path: @autoclosure () -> JSONPath = .root) throws(DatastoreError) {
        try DatastoreIdentifier.validate(tableID, as: .table, at: path().appending(index: 1))
        try DatastoreIdentifier.validate(recordID, as: .record, at: path().appending(index: 2))
        switch self {
        case .insert(_, _, let fields):
            try fields.validateFieldNames(at: path().appending(index: 3))
        case .update(_, _, let updates):
            var seen = Set<String>(minimumCapacity: updates.count)
            for update in updates {
                func fieldPath() -> JSONPath { path().appending(index: 3).appending(key: update.field) }
                try DatastoreIdentifier.validate(update.field, as: .field, at: fieldPath())
                guard seen.insert(update.field).inserted else {
                    throw DatastoreError(.invalidStructure,
                        "the field \(JSONPath.quoted(update.field)) appears twice in one U change", at: fieldPath())
                }
                try update.operation.validateIndices(at: fieldPath())
            }
        case .delete:
            break
        }
    }

    /// Decodes a change array; errors carry a path relative to `json`.
    public init(wire json: JSONValue) throws(DatastoreError) {
        let array = try Wire.array(json, what: "a change", at: .root)
        guard let first = array.first else {
            throw DatastoreError(.invalidStructure, "a change is an array starting with its tag; this one is empty")
        }
        let tag = try Wire.string(first, what: "the change tag", at: .root.appending(index: 0))
        let arity: Int
        switch tag {
        case "I", "U": arity = 4
        case "D": arity = 3
        default:
            throw DatastoreError(.invalidStructure, "unknown change \(JSONPath.quoted(tag)); expected I, U or D",
                at: .root.appending(index: 0))
        }
        guard array.count == arity else {
            let layout = tag == "I" ? "[\"I\", tid, rowid, {fields}]"
                : tag == "U" ? "[\"U\", tid, rowid, {field: operation}]" : "[\"D\", tid, rowid]"
            throw DatastoreError(.invalidStructure, "\(tag == "I" ? "an" : "a") \(tag) change is \(layout): \(arity) elements, not \(array.count)")
        }
        let tidPath = JSONPath.root.appending(index: 1)
        let rowidPath = JSONPath.root.appending(index: 2)
        let tid = try Wire.string(array[1], what: "tid", at: tidPath)
        try DatastoreIdentifier.validate(tid, as: .table, at: tidPath)
        let rowid = try Wire.string(array[2], what: "rowid", at: rowidPath)
        try DatastoreIdentifier.validate(rowid, as: .record, at: rowidPath)
        switch tag {
        case "I":
            do {
                self = .insert(tableID: tid, recordID: rowid, fields: try DatastoreRecord(wire: array[3]))
            } catch {
                throw error.prefixed(by: .index(3))
            }
        case "U":
            let mapPath = JSONPath.root.appending(index: 3)
            let object = try Wire.object(array[3], what: "the operations of a U change", at: mapPath)
            var updates: [FieldUpdate] = []
            updates.reserveCapacity(object.count)
            for member in object.members {
                let fieldPath = mapPath.appending(key: member.key)
                try DatastoreIdentifier.validate(member.key, as: .field, at: fieldPath)
                do {
                    updates.append(FieldUpdate(member.key, try FieldOperation(wire: member.value)))
                } catch {
                    throw error.prefixed(by: fieldPath)
                }
            }
            self = .update(tableID: tid, recordID: rowid, updates: updates)
        default:
            self = .delete(tableID: tid, recordID: rowid)
        }
    }

    /// The change's wire JSON.
    public var wire: JSONValue {
        switch self {
        case .insert(let tid, let rid, let fields):
            ["I", .string(tid), .string(rid), fields.wire]
        case .update(let tid, let rid, let updates):
            ["U", .string(tid), .string(rid), .object(JSONObject(updates.map { (key: $0.field, value: $0.operation.wire) }))]
        case .delete(let tid, let rid):
            ["D", .string(tid), .string(rid)]
        }
    }

    /// Writes the change's wire JSON.
    public func write<S: ByteSink>(to writer: inout JSONWriter<S>) {
        writer.writeRaw("[\"")
        writer.writeRaw(tag)
        writer.writeRaw("\",")
        writer.writeString(tableID)
        writer.writeByte(UInt8(ascii: ","))
        writer.writeString(recordID)
        switch self {
        case .insert(_, _, let fields):
            writer.writeByte(UInt8(ascii: ","))
            fields.write(to: &writer)
        case .update(_, _, let updates):
            writer.writeRaw(",{")
            for (index, update) in updates.enumerated() {
                if index > 0 { writer.writeByte(UInt8(ascii: ",")) }
                writer.writeString(update.field)
                writer.writeByte(UInt8(ascii: ":"))
                update.operation.write(to: &writer)
            }
            writer.writeByte(UInt8(ascii: "}"))
        case .delete:
            break
        }
        writer.writeByte(UInt8(ascii: "]"))
    }
}
