// Wire form of a record's fields: `{"field": value, …}` (snapshot `data`, `I` changes).

import JSONCore

extension DatastoreRecord {
    /// Decodes a field map; errors carry a path relative to `json` (`$.price`, `$.tags[2]`).
    /// Field names must be valid and unique; values follow the value wire rules.
    public init(wire json: JSONValue) throws(DatastoreError) {
        let object = try Wire.object(json, what: "a record's fields", at: .root)
        self.init()
        for member in object.members {
            let path = JSONPath.root.appending(key: member.key)
            try DatastoreIdentifier.validate(member.key, as: .field, at: path)
            do {
                self[member.key] = try DatastoreValue(wire: member.value)
            } catch {
                throw error.prefixed(by: path)
            }
        }
    }

    /// The fields' wire JSON, in order.
    public var wire: JSONValue {
        .object(JSONObject(fields.map { (key: $0.name, value: $0.value.wire) }))
    }

    /// Writes the fields' wire JSON, in order.
    public func write<S: ByteSink>(to writer: inout JSONWriter<S>) {
        writer.writeByte(UInt8(ascii: "{"))
        for (index, name) in fieldNames.enumerated() {
            if index > 0 { writer.writeByte(UInt8(ascii: ",")) }
            writer.writeString(name)
            writer.writeByte(UInt8(ascii: ":"))
            values[name]!.write(to: &writer)
        }
        writer.writeByte(UInt8(ascii: "}"))
    }
}
