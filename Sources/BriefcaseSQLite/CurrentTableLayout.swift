import BriefcaseKit

/// The SQL table of a briefcase table's current rows (Spec/sqlite-mapping.md §3): its columns (the
/// fields' names, or names derived from them where SQLite cannot take them), their declared types,
/// the key, and how a row is identified — or why the table has none (no fields).
struct CurrentTableLayout {
    var columns: [String] = []
    var types: [String] = []
    /// The fields' names (decoded for display) and data types, for messages.
    var fieldNames: [String] = []
    var typeNames: [String] = []
    /// The `InPrimaryKey` columns.
    var keyColumns: [Int] = []
    /// How SQL names a row's rowid in this table: `rowid`, else `_rowid_` or `oid` when a field took
    /// the name, else `identityColumn`.
    var rowIDName = "rowid"
    /// A column of the mapping's own, `INTEGER PRIMARY KEY` before the fields, holding the row id
    /// when fields took all three of SQLite's names for it (nil in every other table).
    var identityColumn: String?
    /// Why there is no current-rows table (the table has no fields).
    var refusal: String?

    init(table: Table, codePage: CodePage) {
        fieldNames = table.fields.map { codePage.decodeForDisplay($0.name) }
        typeNames = table.fields.map { $0.type.name }
        columns = SQLiteNames.columns(fieldNames)
        types = table.fields.map { SQLiteMapping.declaredType($0.type) }
        keyColumns = table.primaryKeyColumns
        let taken = Set(columns.map(\.asciiLowercased))
        if let free = ["rowid", "_rowid_", "oid"].first(where: { !taken.contains($0) }) {
            rowIDName = free
        } else {
            var name = "_briefcase_row"
            while taken.contains(name) { name = "_" + name }
            identityColumn = name
            rowIDName = SQLiteDatabase.quote(name)
        }
        if columns.isEmpty { refusal = "the table has no fields (an SQL table has at least one column)" }
    }

    /// Whether the rowid of the table is its key (`row_ids = key`): a single INTEGER key column,
    /// SQLite's rowid alias, in a table declared with its primary key.
    func rowIDIsKey(primaryKey: Bool) -> Bool {
        primaryKey && identityColumn == nil && keyColumns.count == 1 && types[keyColumns[0]] == "INTEGER"
    }
}

/// The SQL names of a briefcase's tables and columns (Spec/sqlite-mapping.md §2): a table's or
/// field's own name wherever SQLite can take it, else a derived, stable name — `POSITION:NAME` —
/// so that every table with fields is visible in any SQLite tool. Written and read by the same
/// rules: the names depend only on the elements' names and positions, in stream order.
struct SQLiteNames {
    /// The names taken so far, ASCII lower-cased (how SQLite compares names).
    private var taken: Set<String> = []

    /// The name of the current-rows table of the table element at `position` named `name`
    /// (decoded for display): the name itself when it is free, not the mapping's or SQLite's own
    /// (`_briefcase…`, `sqlite_…`) and holds no NUL; else `POSITION:NAME` (NUL shown as ␀),
    /// prefixed again with `POSITION:` while taken. Every table element takes a name, in stream
    /// order, whether or not it gets a table.
    mutating func table(named name: String, at position: Int) -> String {
        var candidate = name
        if !isFree(candidate) || candidate.utf8.contains(0) {
            candidate = "\(position):" + Self.visible(name)
            while !isFree(candidate) { candidate = "\(position):" + candidate }
        }
        taken.insert(candidate.asciiLowercased)
        return candidate
    }

    private func isFree(_ name: String) -> Bool {
        !name.isEmpty && !SQLiteMapping.isReserved(name) && !taken.contains(name.asciiLowercased)
    }

    /// The columns of fields named `names`: each its name, unless empty, holding NUL, or taken by
    /// a field before it (without ASCII case), then `INDEX:NAME` (the field's position from 0),
    /// prefixed again while taken.
    static func columns(_ names: [String]) -> [String] {
        var taken: Set<String> = []
        return names.enumerated().map { index, name in
            var candidate = name
            if candidate.isEmpty || candidate.utf8.contains(0) || taken.contains(candidate.asciiLowercased) {
                candidate = "\(index):" + visible(name)
                while taken.contains(candidate.asciiLowercased) { candidate = "\(index):" + candidate }
            }
            taken.insert(candidate.asciiLowercased)
            return candidate
        }
    }

    /// NUL, which no SQL name can hold, as ␀ (U+2400).
    static func visible(_ name: String) -> String {
        name.utf8.contains(0) ? String(name.map { $0 == "\u{0}" ? "\u{2400}" : $0 }) : name
    }
}
