import JSONCore
import BriefcaseKit

/// Pieces of the lossless JSON document (Spec/json-format.md) as `JSONValue`s, for formats that
/// carry parts of a briefcase in their own JSON (the datastore snapshot's `briefcase` member):
/// values in their column's form, 8-bit strings, table and delta heads (everything but rows and
/// changes), change heads. Encoding and decoding run through `JSONDocumentEncoder` and the
/// document reader, so the forms are exactly the document's.
public struct JSONDocumentParts: Sendable {
    /// The code page of 8-bit strings (names, properties, String/Memo/FixedChar values).
    public let codePage: CodePage

    /// Pieces for 8-bit strings in `codePage`.
    public init(codePage: CodePage) { self.codePage = codePage }

    // MARK: encoding

    /// The document's form of a value in a column of `type` (§6.2): e.g. `"1.50"` for a decimal,
    /// `{"oleDate": 45000.123456}` for a sub-millisecond DateTime.
    public func json(_ value: Value, type: DataType) -> JSONValue {
        parse { encoder in encoder.writeValue(value, type: type) }
    }

    /// A positional array of values (`null` for nil), one per type, as in rows and old/new arrays.
    public func json(_ values: [Value?], types: [DataType]) -> JSONValue {
        .array(values.enumerated().map { i, value in
            guard let value, i < types.count else { return .null }
            return json(value, type: types[i])
        })
    }

    /// An 8-bit string: text when the code page maps it reversibly, else `{"bytes": base64}`.
    public func json(ansi bytes: ByteString) -> JSONValue {
        parse { encoder in encoder.writeAnsi(bytes) }
    }

    /// A table element without its `rows` member: `kind`, `name`, `schema` (and `schemaEnd`), `fields`.
    public func tableHead(_ table: Table) throws -> JSONObject {
        var head = table
        head.rows = []
        return try headObject(without: "rows") { encoder throws in try encoder.encodeTable(head) }
    }

    /// A delta element without its `changes` member: `kind`, `name`, `layout` or
    /// `firstChangeCount`, `loggedFields`, `keyFields`, `reducedDelta`.
    public func deltaHead(_ delta: Delta) throws -> JSONObject {
        var head = delta
        head.changes = []
        return try headObject(without: "changes") { encoder throws in try encoder.encodeDelta(head) }
    }

    /// A change without its values: `type`, `recordID`, `status`, `message`.
    /// (Written by `CompactDocumentParts.writeOpenChangeHead`, the one definition.)
    public func changeHead(_ change: DeltaChange) -> JSONObject {
        let compact = CompactDocumentParts(codePage: codePage)
        var writer = JSONWriter(sink: ArraySink(), bufferSize: 256)
        compact.writeOpenChangeHead(change, to: &writer)
        writer.writeByte(UInt8(ascii: "}"))
        try! writer.flush()  // an ArraySink never fails
        guard case .object(let object) = try! JSONParser.parse(writer.sink.bytes) else { return JSONObject() }
        return object
    }

    // MARK: decoding (errors name `path`, a JSON path such as `$.briefcase.elements[2]`)

    /// The value of `type` that `json` holds in the document's form; errors name `path`.
    public func value(_ json: JSONValue, type: DataType, path: String) throws(BriefcaseError) -> Value {
        try reader.value(Node(json, path), type: type)
    }

    /// A row or change's values, one per type of `types`, from a JSON array; errors name `path`.
    public func values(_ json: JSONValue, types: [DataType], path: String) throws(BriefcaseError) -> [Value?] {
        try reader.values(Node(json, path), types)
    }

    /// The bytes of an 8-bit string in the document's form; errors name `path`.
    public func ansi(_ json: JSONValue, path: String) throws(BriefcaseError) -> ByteString {
        try reader.ansi(Node(json, path))
    }

    /// A table from a head written by `tableHead` (any `rows` member is ignored; the rows are empty).
    public func table(head: JSONObject, path: String) throws(BriefcaseError) -> Table {
        var object = head
        object["rows"] = .array([])
        return try reader.table(ObjectNode(object: object, path: path))
    }

    /// A delta from a head written by `deltaHead` (any `changes` member is ignored; no changes).
    public func delta(head: JSONObject, path: String) throws(BriefcaseError) -> Delta {
        var object = head
        object["changes"] = .array([])
        return try reader.delta(ObjectNode(object: object, path: path))
    }

    /// A change from a head written by `changeHead` (any `old`/`new` members are ignored; the
    /// values are empty).
    public func change(head: JSONObject, path: String) throws(BriefcaseError) -> DeltaChange {
        var object = head
        object["old"] = .array([])
        object["new"] = .array([])
        return try reader.change(ObjectNode(object: object, path: path), types: [])
    }

    // MARK: -

    private var reader: ValueReader { ValueReader(codePage: codePage) }

    private func parse(_ write: (inout JSONDocumentEncoder<ArraySink>) -> Void) -> JSONValue {
        try! parseValue { (encoder: inout JSONDocumentEncoder<ArraySink>) throws in write(&encoder) }
    }

    /// The object of the element `write` encodes, without its `member` (`rows`, `changes`),
    /// which `write` was given empty.
    private func headObject(without member: String,
                            _ write: (inout JSONDocumentEncoder<ArraySink>) throws -> Void) throws -> JSONObject {
        guard case .object(var object) = try parseValue(write) else {
            throw BriefcaseError(.invalidModel, "internal: an element did not encode as a JSON object")
        }
        object[member] = nil
        return object
    }

    private func parseValue(_ write: (inout JSONDocumentEncoder<ArraySink>) throws -> Void) throws -> JSONValue {
        var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: codePage)
        encoder.writer = JSONWriter(sink: ArraySink(), bufferSize: 256)
        try write(&encoder)
        try encoder.writer.flush()  // an ArraySink never fails
        return try JSONParser.parse(encoder.writer.sink.bytes)
    }
}
