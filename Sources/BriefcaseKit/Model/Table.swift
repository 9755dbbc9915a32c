/// A column of the row section: name (8-bit, writer's code page), type code and size.
public struct FieldDescriptor: Hashable, Sendable {
    /// The field's name (8-bit).
    public var name: ByteString
    /// The field's data type.
    public var type: DataType
    /// The declared size (e.g. 65536 for `datWideString`, 0 for fixed-size types).
    public var size: Int32

    /// A field of `name` and `type`; `size` is the stored size (0 when not given).
    public init(name: ByteString, type: DataType, size: Int32 = 0) {
        self.name = name
        self.type = type
        self.size = size
    }
}

/// One row: a value per field descriptor, nil = NULL.
public typealias Row = [Value?]

/// A dataset element: an optional schema, the field descriptors and the rows.
public struct Table: Hashable, Sendable {
    /// The table's name (8-bit).
    public var name: ByteString
    /// nil when the stream has no schema block (schema flag 0).
    public var schema: Schema?
    /// With no schema block, what the schema-end field held: Data Abstract's documentation says 0,
    /// some writers store the position anyway. Kept so the bytes round-trip. Ignored with a schema.
    public var schemaEndWhenAbsent: SchemaEndMarker
    /// The field descriptors, one per column.
    public var fields: [FieldDescriptor]
    /// The stored rows, in order (a decoded table's as views into its bytes: `Rows`).
    public var rows: Rows

    /// A table of these fields and rows.
    public init(name: ByteString, schema: Schema? = nil, fields: [FieldDescriptor], rows: Rows = [],
                schemaEndWhenAbsent: SchemaEndMarker = .zero) {
        self.name = name
        self.schema = schema
        self.fields = fields
        self.rows = rows
        self.schemaEndWhenAbsent = schemaEndWhenAbsent
    }

    /// A table of these fields and rows.
    public init(name: ByteString, schema: Schema? = nil, fields: [FieldDescriptor], rows: [Row],
                schemaEndWhenAbsent: SchemaEndMarker = .zero) {
        self.init(name: name, schema: schema, fields: fields, rows: Rows(rows), schemaEndWhenAbsent: schemaEndWhenAbsent)
    }
}

/// What the schema-end field holds when a table has no schema block.
public enum SchemaEndMarker: String, Hashable, Sendable {
    /// The field holds 0.
    case zero
    /// The field holds the position after the (absent) schema, i.e. of the row count.
    case position
}

extension Table {
    /// The places of the fields whose schema properties say `InPrimaryKey` True (Data Abstract's
    /// key), in field order; none without a schema.
    public var primaryKeyColumns: [Int] {
        guard let schema else { return [] }
        return fields.indices.filter { column in
            column < schema.fields.count && schema.fields[column].value(named: "InPrimaryKey")?.lowercased() == "true"
        }
    }
}
