import BriefcaseKit

/// A current-rows table as a user or a tool left it, checked before its rows are read
/// (Spec/sqlite-mapping.md §5): still a real table, with exactly its fields' columns, each of the
/// declared type the mapping gave it and none computed, and its rows still identified as they
/// were written (by rowid, or by key). A schema edit that the briefcase could only guess at —
/// a column dropped, renamed, added or retyped, the table renamed, dropped or replaced by a view,
/// a virtual table or one without rowids — is refused here, naming the table and the column.
struct CurrentRowsCheck {
    let database: SQLiteDatabase
    /// The SQL table's name (as the mapping wrote it).
    let table: String
    let layout: CurrentTableLayout
    let rowIDsAreKeys: Bool
    /// The element, named in errors.
    let element: String

    /// The statement that reads the rows: the row's identity (rowid, or key), then the fields'
    /// columns in field order, in identity order.
    func statement() throws(BriefcaseError) -> SQLiteStatement {
        guard let shape = try database.tableShape(table) else {
            throw refusal("is not in the database (dropped, or renamed?): a briefcase table cannot lose its rows that way; restore the table, or export the briefcase again")
        }
        guard shape.kind == "table" else {
            throw refusal("is \(shape.kind == "view" ? "a view" : shape.kind == "virtual" ? "a virtual table" : "a \(shape.kind) table") now, not a table: its rows are read only from a real table")
        }
        var wanted: Set<String> = []
        for (index, name) in layout.columns.enumerated() {
            wanted.insert(name.asciiLowercased)
            guard let column = shape.column(name) else {
                throw refusal("has no column '\(name)' (dropped, or renamed?): the briefcase's field keeps its column; put it back (the field '\(layout.fieldNames[index])', \(layout.typeNames[index]))")
            }
            guard !column.isGenerated else { throw refusal("column '\(column.name)' is generated (computed by an expression): it must hold the field's values") }
            let declared = column.declaredType.trimmingSpaces.uppercased()
            guard declared == layout.types[index] else {
                throw refusal("column '\(column.name)' is declared \(declared.isEmpty ? "without a type" : declared), not \(layout.types[index]) as the mapping declares it for field '\(layout.fieldNames[index])' (\(layout.typeNames[index])): SQLite converts values by the declared type, so its values could have changed; declare it \(layout.types[index]) again")
            }
        }
        if let identity = layout.identityColumn { wanted.insert(identity.asciiLowercased) }
        if let extra = shape.columns.first(where: { !wanted.contains($0.name.asciiLowercased) }) {
            throw refusal("has a column '\(extra.name)' that is not one of the table's fields: a briefcase's pending changes cannot add a field; drop the column")
        }
        let identity: String
        if rowIDsAreKeys {
            guard layout.rowIDIsKey(primaryKey: true) else {
                throw BriefcaseError(.invalidData, "\(SQLiteMapping.elementsTable).row_ids of table '\(table)' is 'key', but the table has no single INTEGER key field",
                                     element: element, file: database.path)
            }
            identity = SQLiteDatabase.quote(layout.columns[layout.keyColumns[0]])
        } else {
            guard !shape.withoutRowID else {
                throw refusal("is a WITHOUT ROWID table now: its rows are matched to the briefcase's by rowid")
            }
            if let alias = shape.rowIDAlias, alias.name.asciiLowercased != layout.identityColumn?.asciiLowercased {
                throw refusal("column '\(alias.name)' is its INTEGER PRIMARY KEY now: the rowids became that column's values, and the rows are matched to the briefcase's by rowid")
            }
            if let column = layout.identityColumn, shape.rowIDAlias == nil {
                throw refusal("column '\(column)' is not its INTEGER PRIMARY KEY any more: it holds the rows' ids")
            }
            identity = layout.rowIDName
        }
        let columns = layout.columns.map(SQLiteDatabase.quote).joined(separator: ", ")
        return try database.prepare("SELECT \(identity), \(columns) FROM \(SQLiteDatabase.quote(shape.name)) ORDER BY \(identity)")
    }

    private func refusal(_ what: String) -> BriefcaseError {
        BriefcaseError(.invalidData, "table '\(table)' \(what)", element: element, file: database.path)
    }
}

extension String {
    /// Without leading and trailing spaces (how SQLite reads a declared type).
    var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return String(text)
    }
}
