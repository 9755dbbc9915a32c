import JSONCore
import BriefcaseKit

/// Reads the lossless JSON document (Spec/json-format.md) back into a whole briefcase, symmetric
/// to `JSONDocumentEncoder`: the one reader, `JSONStreamReader`, collecting what it reads.
/// Errors name the JSON path and the byte offset of the offending value.
public struct JSONDocumentDecoder {
    /// A decoder; it keeps no state between documents.
    public init() {}

    /// The briefcase of a whole JSON document; errors carry the JSON path and byte offset.
    public func decode(_ bytes: [UInt8]) throws(BriefcaseError) -> BriefcaseDocument {
        try decodeNamingCodePage(bytes).document
    }

    /// The document and the code page its `encoding` names: the one its 8-bit strings are shown
    /// in when it is written as JSON again (json → json gives back the same document).
    public func decodeNamingCodePage(_ bytes: [UInt8]) throws(BriefcaseError) -> (document: BriefcaseDocument, codePage: CodePage) {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(BriefcaseError) in try decodeNamingCodePage(buffer) }
        }
        return try result.get()
    }

    /// The same, from bytes that stay valid while it runs (a mapped file).
    public func decodeNamingCodePage(_ bytes: UnsafeRawBufferPointer) throws(BriefcaseError) -> (document: BriefcaseDocument, codePage: CodePage) {
        var reader = JSONStreamReader(bytes)
        var collector = BriefcaseCollector()
        try reader.read(into: &collector)
        guard let head = collector.head, let document = collector.document else {
            throw BriefcaseError(.invalidModel, "internal: the document was not finished")
        }
        return (document, head.codePage)
    }

    /// Everything but the elements: `format`, `version`, `container`, `encoding`, `properties`,
    /// `headerPadding`, checked in that order.
    static func head(_ top: ObjectNode) throws(BriefcaseError) -> JSONDocumentHead {
        let format = try top.member("format")
        guard try format.string() == JSONDocumentEncoder<ArraySink>.formatName else {
            throw format.error("not a briefcase JSON document (expected \"briefcase-json\", found \(format.value))")
        }
        let version = try top.member("version").int(Int64.self)
        guard version == JSONDocumentEncoder<ArraySink>.formatVersion else {
            throw BriefcaseError(.unsupported, "$.version: version \(version) is not supported (1 is)")
        }
        let containerName = try top.member("container").string()
        guard let container = ContainerFormat(rawValue: containerName) else {
            throw BriefcaseError(.invalidData, "$.container: unknown container '\(containerName)' (dabriefcase or bin2)")
        }
        let encodingName = try top.member("encoding").string()
        guard let codePage = CodePage(name: encodingName) else {
            throw BriefcaseError(.unsupported, "$.encoding: unknown code page '\(encodingName)'")
        }
        let reader = ValueReader(codePage: codePage)
        var head = JSONDocumentHead(container: container, codePage: codePage)
        if let properties = top.optionalMember("properties") {
            for item in try properties.array() {
                let pair = try item.array(count: 2)
                head.properties.append(BriefcaseProperty(name: try reader.ansi(pair[0]), value: try reader.ansi(pair[1])))
            }
        }
        if let padding = top.optionalMember("headerPadding") {
            head.headerPadding = ByteString(try padding.base64())
        }
        return head
    }
}

/// What a document says before its elements (`format` … `headerPadding`).
public typealias JSONDocumentHead = BriefcaseHead

extension BriefcaseHead {
    /// A bin2 document has no briefcase properties (checked after the elements, as it always was).
    func checkContainer() throws(BriefcaseError) {
        if container == .bin2, !properties.isEmpty || !headerPadding.isEmpty {
            throw BriefcaseError(.invalidData, "$.properties: a bin2 document has no briefcase properties")
        }
    }
}

/// Reads model values from JSON nodes, with the document's code page for 8-bit strings.
struct ValueReader {
    let codePage: CodePage

    func ansi(_ node: Node) throws(BriefcaseError) -> ByteString {
        if case .string(let text) = node.value {
            guard let bytes = codePage.encode(text) else {
                throw node.error("text cannot be written in code page \(codePage.name)")
            }
            return bytes
        }
        return ByteString(try node.object(oneOf: #"a string or {"bytes": base64}"#).member("bytes").base64())
    }

    /// One item of `elements`: a table or a delta object.
    func element(_ element: Node) throws(BriefcaseError) -> Element {
        let object = try element.object()
        switch try object.member("kind").string() {
        case "table": return .table(try table(object))
        case "delta": return .delta(try delta(object))
        case let other: throw try object.member("kind").error("unknown element kind '\(other)' (table or delta)")
        }
    }

    func table(_ object: ObjectNode) throws(BriefcaseError) -> Table {
        var table = try tableHead(object)
        let types = table.fields.map(\.type)
        let rows = try object.member("rows").array()
        table.rows.reserveCapacity(rows.count)
        for rowNode in rows {
            table.rows.append(try values(rowNode, types))
        }
        return table
    }

    /// A table without its rows (the `rows` member is not looked at).
    func tableHead(_ object: ObjectNode) throws(BriefcaseError) -> Table {
        var table = Table(name: try ansi(object.member("name")), fields: [])
        let schemaNode = try object.member("schema")
        if schemaNode.isNull {
            let marker = try object.member("schemaEnd").string()
            guard let value = SchemaEndMarker(rawValue: marker) else {
                throw try object.member("schemaEnd").mismatch(#""zero" or "position""#)
            }
            table.schemaEndWhenAbsent = value
        } else {
            let schema = try schemaNode.object()
            let fieldPropertyCount = try schema.member("fieldPropertyCount").int(Int32.self).nonNegative(schema.member("fieldPropertyCount"))
            let parameterPropertyCount = try schema.member("parameterPropertyCount").int(Int32.self).nonNegative(schema.member("parameterPropertyCount"))
            table.schema = Schema(
                fieldPropertyCount: fieldPropertyCount,
                fields: try propertyLists(schema.member("fields"), count: fieldPropertyCount),
                parameterPropertyCount: parameterPropertyCount,
                parameters: try propertyLists(schema.member("parameters"), count: parameterPropertyCount))
        }
        table.fields = try fieldDescriptors(object.member("fields"))
        return table
    }

    /// The row descriptors of a table's `fields` member.
    func fieldDescriptors(_ node: Node) throws(BriefcaseError) -> [FieldDescriptor] {
        var fields: [FieldDescriptor] = []
        for fieldNode in try node.array() {
            let field = try fieldNode.object()
            fields.append(FieldDescriptor(name: try ansi(field.member("name")),
                                          type: try dataType(field.member("type")),
                                          size: try field.member("size").int(Int32.self)))
        }
        return fields
    }

    /// The logged fields of a delta's `loggedFields` member.
    func loggedFields(_ node: Node) throws(BriefcaseError) -> [LoggedField] {
        var fields: [LoggedField] = []
        for fieldNode in try node.array() {
            let field = try fieldNode.object()
            fields.append(LoggedField(name: try ansi(field.member("name")), type: try dataType(field.member("type"))))
        }
        return fields
    }

    func delta(_ object: ObjectNode) throws(BriefcaseError) -> Delta {
        var delta = try deltaHead(object)
        if delta.layout == .countOnly, !(try object.member("changes").array().isEmpty) {
            throw try object.member("changes").error("a countOnly delta has no changes")
        }
        let types = delta.loggedFields.map(\.type)
        for changeNode in try object.member("changes").array() {
            delta.changes.append(try self.change(changeNode.object(), types: types))
        }
        return Self.normalizedLayout(delta)
    }

    /// A `firstChangeCount` equal to the number of changes is the full layout (the binary
    /// form cannot tell them apart): the model is then the one the written file reads back as.
    static func normalizedLayout(_ delta: Delta) -> Delta {
        var delta = delta
        if case .mismatchedCounts(let first) = delta.layout, Int(first) == delta.changes.count {
            delta.layout = .full
        }
        return delta
    }

    /// A delta without its changes (the `changes` member is not looked at) and with its layout
    /// as written (see `normalizedLayout`).
    func deltaHead(_ object: ObjectNode) throws(BriefcaseError) -> Delta {
        var delta = Delta(name: try ansi(object.member("name")), loggedFields: [])
        if let layout = object.optionalMember("layout") {
            guard try layout.string() == "countOnly" else { throw layout.mismatch(#""countOnly""#) }
            guard object.optionalMember("firstChangeCount") == nil else { throw layout.error("countOnly has no firstChangeCount") }
            delta.layout = .countOnly
        } else if let first = object.optionalMember("firstChangeCount") {
            delta.layout = .mismatchedCounts(firstCount: Int32(try first.int(Int32.self).nonNegative(first)))
        }
        delta.loggedFields = try loggedFields(object.member("loggedFields"))
        for key in try object.member("keyFields").array() {
            delta.keyFields.append(try ansi(key))
        }
        delta.reducedDeltaFlag = try object.member("reducedDelta").int(UInt8.self)
        return delta
    }

    /// One change object (`type`, `recordID`, `status`, `message`, `old`, `new`).
    func change(_ change: ObjectNode, types: [DataType]) throws(BriefcaseError) -> DeltaChange {
        DeltaChange(
            type: ChangeType(rawValue: try code(change.member("type"), names: ChangeType.names)),
            recordID: try change.member("recordID").int(Int32.self),
            status: ChangeStatus(rawValue: try code(change.member("status"), names: ChangeStatus.names)),
            message: try ansi(change.member("message")),
            oldValues: try values(change.member("old"), types),
            newValues: try values(change.member("new"), types))
    }

    private func code(_ node: Node, names: [String]) throws(BriefcaseError) -> Int32 {
        switch node.value {
        case .string(let name):
            guard let index = names.firstIndex(of: name) else {
                throw node.error("unknown name '\(name)' (\(names.joined(separator: ", ")) or an integer)")
            }
            return Int32(index)
        case .number: return try node.int(Int32.self)
        default: throw node.mismatch("one of \(names.joined(separator: ", ")) or an integer")
        }
    }

    private func dataType(_ node: Node) throws(BriefcaseError) -> DataType {
        let name = try node.string()
        guard let type = DataType(name: name) else { throw node.error("unknown data type '\(name)'") }
        return type
    }

    /// Property lists that each hold `count` properties (Bin2 stores one shared count).
    private func propertyLists(_ node: Node, count: Int) throws(BriefcaseError) -> [[SchemaProperty]] {
        var lists: [[SchemaProperty]] = []
        for listNode in try node.array() {
            var list: [SchemaProperty] = []
            for pairNode in try listNode.array(count: count) {
                let pair = try pairNode.array(count: 2)
                let value: ByteString?
                switch pair[1].value {
                case .null: value = nil
                case .string(let text): value = ByteString(utf8: text)
                default: value = ByteString(try pair[1].object(oneOf: #"null, a string or {"bytes": base64}"#).member("bytes").base64())
                }
                list.append(SchemaProperty(name: try ansi(pair[0]), value: value))
            }
            lists.append(list)
        }
        return lists
    }

    func values(_ node: Node, _ types: [DataType]) throws(BriefcaseError) -> [Value?] {
        guard case .array(let items) = node.value else { throw node.mismatch("an array") }
        guard items.count == types.count else { throw node.error("expected \(types.count) items, found \(items.count)") }
        var result: [Value?] = []
        result.reserveCapacity(items.count)
        for i in 0..<items.count {
            if case .null = items[i] { result.append(nil); continue }
            result.append(try value(Node(items[i], parent: node, index: i), type: types[i]))
        }
        return result
    }

    func value(_ node: Node, type: DataType) throws(BriefcaseError) -> Value {
        guard let storage = type.storage else { throw node.error("\(type.name) columns cannot hold values") }
        switch storage {
        case .ansiString: return .ansiString(try ansi(node))
        case .wideString:
            if case .string(let text) = node.value { return .wideString(WideText.encode(text)) }
            return .wideString(ByteString(try node.object(oneOf: #"a string or {"utf16le": base64}"#).member("utf16le").base64()))
        case .blob: return .blob(ByteString(try node.base64()))
        case .guid:
            if case .string(let text) = node.value {
                let bytes = ByteString(utf8: text)
                guard bytes.count == 36 else { throw node.error("a GUID has 36 characters, found \(bytes.count) bytes") }
                return .guid(bytes)
            }
            let bytes = try node.object(oneOf: #"a string of 36 characters or {"bytes": base64}"#).member("bytes").base64()
            guard bytes.count == 36 else { throw node.error("a GUID has 36 bytes, found \(bytes.count)") }
            return .guid(ByteString(bytes))
        case .int8, .int16, .int32, .int64, .uint8, .uint16, .uint32:
            let value = try node.int(Int64.self)
            guard Value.integer(value).fits(storage) else { throw node.error("\(value) does not fit a \(type.name) column") }
            return .integer(value)
        case .uint64: return .largeUInt(try node.int(UInt64.self))
        case .boolean:
            if case .bool(let b) = node.value { return .boolean(b ? 1 : 0) }
            return .boolean(try node.object(oneOf: #"true, false or {"byte": 0…255}"#).member("byte").int(UInt8.self))
        case .currency:
            let text = try node.string()
            guard let currency = Currency(text) else { throw node.error("'\(text)' is not a currency amount (at most 4 decimals, within Int64 / 10 000)") }
            return .currency(currency)
        case .decimal:
            if case .string(let text) = node.value {
                guard let decimal = Decimal96(text) else { throw node.error("'\(text)' is not a decimal that fits 96 bits") }
                return .decimal(decimal)
            }
            let bytes = try node.object(oneOf: #"a decimal string or {"decimalBytes": base64}"#).member("decimalBytes").base64()
            guard bytes.count == 16 else { throw node.error("decimalBytes must be 16 bytes, found \(bytes.count)") }
            var reader = ByteReader(bytes: bytes)
            return .decimal(Decimal96(low: try reader.readInteger(), mid: try reader.readInteger(),
                                      high: try reader.readInteger(), flags: try reader.readInteger()))
        case .float64: return .float(try node.double())
        case .float32: return .singleFloat(try node.float())
        case .dateTime:
            if case .string(let text) = node.value {
                guard let date = OLEDateTime(isoText: text) else { throw node.error("'\(text)' is not YYYY-MM-DDTHH:MM:SS.sss") }
                return .dateTime(date)
            }
            return .dateTime(OLEDateTime(try node.object(oneOf: #""YYYY-MM-DDTHH:MM:SS.sss" or {"oleDate": number}"#).member("oleDate").double()))
        }
    }
}
