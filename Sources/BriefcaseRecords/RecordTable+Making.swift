import BriefcaseKit

extension RecordTable {
    /// A new table named `name` holding `values` as its stored rows, with a schema inferred from
    /// what they encode (Spec/records-api.md §4): a field per property, in the order the first
    /// value encodes them (properties only later values have, after them), its type from the Swift
    /// type (`Int64` → `datLargeInt`, `String` → `datWideString`, …). `primaryKey` names the
    /// fields marked `InPrimaryKey` (what later edits find rows by). Add it to a briefcase with
    /// `RecordBriefcase.setTable(_:)`.
    ///
    /// A property that is nil in every value has no type to infer: it is refused.
    public init<T: Encodable>(name: String, rows values: [T], primaryKey: [String] = [], codePage: CodePage = .utf8) throws(RecordError) {
        var encoded: [[(name: String, value: (any FieldValue)?)]] = []
        for (position, value) in values.enumerated() {
            do throws(RecordError) { encoded.append(try RowEncoder.encode(value)) } catch { throw error.located(table: name, row: position) }
        }
        var names: [String] = [], types: [String: DataType] = [:]
        for (position, row) in encoded.enumerated() {
            for (field, value) in row {
                if !names.contains(field) { names.append(field) }
                guard let value else { continue }
                guard let type = FieldConversion.inferredType(of: value) else {
                    throw RecordError(.unsupportedValue, "\(Swift.type(of: value)) values map to no field type", table: name, row: position, field: field)
                }
                if let known = types[field], known != type {
                    throw RecordError(.typeMismatch, "holds a \(Swift.type(of: value)) (\(type)) where earlier rows hold \(known)", table: name, row: position, field: field)
                }
                types[field] = type
            }
        }
        for key in primaryKey where !names.contains(key) {
            throw RecordError(.unknownField, "the primary key names a field the rows do not have", table: name, field: key)
        }
        var descriptors: [FieldDescriptor] = [], schema: [[SchemaProperty]] = []
        for field in names {
            guard let type = types[field] else {
                throw RecordError(.unsupportedValue, "is nil in every row, so its type cannot be inferred", table: name, field: field)
            }
            guard let bytes = codePage.encode(field) else {
                throw RecordError(.cannotStore, "the name has characters \(codePage.name) cannot write", table: name, field: field)
            }
            let size: Int32 = type == .wideString ? 65536 : 0   // .NET's size of an unsized wide string
            descriptors.append(FieldDescriptor(name: bytes, type: type, size: size))
            schema.append([SchemaProperty("Name", field), SchemaProperty("DataType", type.name),
                           SchemaProperty("InPrimaryKey", primaryKey.contains(field) ? "True" : "False"),
                           SchemaProperty("LogChanges", "True"), SchemaProperty("Size", String(size))])
        }
        guard let tableName = codePage.encode(name) else {
            throw RecordError(.cannotStore, "the table name has characters \(codePage.name) cannot write", table: name)
        }
        let index = FieldIndex(table: Table(name: tableName, fields: descriptors), codePage: codePage)
        var rows: [Row] = []
        for (position, row) in encoded.enumerated() {
            var values = Row(repeating: nil, count: descriptors.count)
            for (field, value) in row {
                guard let value, let column = index.column(field) else { continue }
                do throws(RecordError) {
                    values[column] = try FieldConversion.store(value, in: index.fields[column], codePage: codePage)
                } catch {
                    throw error.located(table: name, row: position)
                }
            }
            rows.append(values)
        }
        let table = Table(name: tableName, schema: Schema(fields: schema), fields: descriptors, rows: rows)
        self.init(BriefcaseTable(dataset: table), codePage: codePage, origin: nil)
    }
}
