import BriefcaseKit

/// The SQL table of a briefcase table's current rows: its columns (the fields' exact names),
/// their declared types and the key — or why the table cannot have one (Spec/sqlite-mapping.md §3).
struct CurrentTableLayout {
    var columns: [String] = []
    var types: [String] = []
    /// The `InPrimaryKey` columns.
    var keyColumns: [Int] = []
    /// Why there is no current-rows table (the name taken, no fields, two fields alike…).
    var refusal: String?

    init(table: Table, name: String, codePage: CodePage, taken: Set<String>) {
        columns = table.fields.map { codePage.decodeForDisplay($0.name) }
        types = table.fields.map { SQLiteMapping.declaredType($0.type) }
        if let schema = table.schema {
            keyColumns = table.fields.indices.filter { column in
                column < schema.fields.count && schema.fields[column].value(named: "InPrimaryKey")?.lowercased() == "true"
            }
        }
        if SQLiteMapping.isReserved(name) {
            refusal = "the name is reserved for the mapping's own tables"
        } else if taken.contains(name.asciiLowercased) {
            refusal = "another table has this name (SQLite compares names without ASCII case)"
        } else if name.utf8.contains(0) || columns.contains(where: { $0.utf8.contains(0) }) {
            refusal = "a name holds the character NUL"
        } else if columns.isEmpty {
            refusal = "the table has no fields"
        } else if Set(columns.map(\.asciiLowercased)).count != columns.count {
            refusal = "two fields have the same name (SQLite compares names without ASCII case)"
        } else if columns.contains(where: { $0.asciiLowercased == "rowid" || $0.asciiLowercased == "_rowid_" || $0.asciiLowercased == "oid" }) {
            refusal = "a field is named like SQLite's rowid"
        }
    }
}
