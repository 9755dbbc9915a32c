import BriefcaseKit

/// A field (column) of a table: its name as text, its Data Abstract type and size, and its schema
/// properties (`InPrimaryKey`, `LogChanges`, `Description`, … as stored).
public struct RecordField: Hashable, Sendable {
    /// The row descriptor's name, decoded with the briefcase's code page.
    public let name: String
    /// The Data Abstract type (`.integer`, `.wideString`, …).
    public let type: DataType
    /// The Data Abstract name of the type, e.g. `datWideString`.
    public var typeName: String { type.name }
    /// The declared size (string lengths; 0 for fixed-size types).
    public let size: Int
    /// The schema's properties of the field, in stored order (none when the table has no schema);
    /// a value is nil when stored as absent.
    public let properties: [(name: String, value: String?)]
    /// The column's position in the table.
    public let position: Int

    /// The value of the schema property `name` (ASCII case-insensitive), or nil.
    public func property(_ name: String) -> String? {
        let wanted = name.lowercased()
        return properties.first { $0.name.lowercased() == wanted }?.value
    }

    /// Whether the schema marks the field `InPrimaryKey`.
    public var isPrimaryKey: Bool { property("InPrimaryKey")?.lowercased() == "true" }

    /// Fields are equal when name, type, size, position and schema properties are.
    public static func == (a: RecordField, b: RecordField) -> Bool {
        a.name == b.name && a.type == b.type && a.size == b.size && a.position == b.position
            && a.properties.map(\.name) == b.properties.map(\.name) && a.properties.map(\.value) == b.properties.map(\.value)
    }

    /// Hashes name, type and position.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(type)
        hasher.combine(position)
    }
}

/// The fields of a table and how names find them: exactly first, then case-insensitively
/// (Data Abstract compares field names so).
struct FieldIndex: Sendable {
    let fields: [RecordField]
    private let exact: [String: Int]
    private let folded: [String: Int]
    let codePage: CodePage

    init(table: Table, codePage: CodePage) {
        self.codePage = codePage
        var fields: [RecordField] = []
        var exact: [String: Int] = [:], folded: [String: Int] = [:]
        for (column, descriptor) in table.fields.enumerated() {
            let schema = table.schema.flatMap { column < $0.fields.count ? $0.fields[column] : nil } ?? []
            let name = codePage.decodeForDisplay(descriptor.name)
            fields.append(RecordField(name: name, type: descriptor.type, size: Int(descriptor.size),
                                      properties: schema.map { (codePage.decodeForDisplay($0.name), $0.value.map { String(decoding: $0.bytes, as: UTF8.self) }) },
                                      position: column))
            if exact[name] == nil { exact[name] = column }
            if folded[name.lowercased()] == nil { folded[name.lowercased()] = column }
        }
        self.fields = fields
        self.exact = exact
        self.folded = folded
    }

    /// The column of the field named `name`, or nil.
    func column(_ name: String) -> Int? { exact[name] ?? folded[name.lowercased()] }

    /// The column of `name`, or an `unknownField` error listing the fields.
    func requireColumn(_ name: String) throws(RecordError) -> Int {
        guard let column = column(name) else {
            throw RecordError(.unknownField, "no field named '\(name)' (the fields are \(fields.map(\.name).joined(separator: ", ")))", field: name)
        }
        return column
    }
}
