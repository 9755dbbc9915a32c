import BriefcaseKit

/// A table as the database's schema describes it (`pragma_table_list`, `pragma_table_xinfo`):
/// what the readers check before they select from it (Spec/sqlite-mapping.md §5, §7).
struct TableShape {
    /// A column: its name, declared type, place in the primary key (0: none) and whether it is
    /// generated (computed by an expression) or hidden.
    struct Column {
        var name: String
        var declaredType: String
        var primaryKey: Int
        /// `pragma_table_xinfo.hidden`: 0 an ordinary column, 1 hidden (virtual tables), 2 and 3
        /// generated (virtual, stored).
        var hidden: Int

        var isGenerated: Bool { hidden == 2 || hidden == 3 }
    }

    /// The name as the schema spells it.
    var name: String
    /// `table`, `view`, `virtual` or `shadow` (a virtual table's storage).
    var kind: String
    var withoutRowID: Bool
    var columns: [Column]

    /// The column named `name` (SQLite compares column names without ASCII case).
    func column(_ name: String) -> Column? {
        let key = name.asciiLowercased
        return columns.first { $0.name.asciiLowercased == key }
    }

    /// The column SQLite's rowid is an alias of: the one INTEGER PRIMARY KEY column of a table with
    /// a rowid (declared exactly `INTEGER`, as SQLite requires), else nil.
    var rowIDAlias: Column? {
        let key = columns.filter { $0.primaryKey > 0 }
        guard !withoutRowID, key.count == 1, key[0].declaredType.uppercased() == "INTEGER" else { return nil }
        return key[0]
    }
}

extension SQLiteDatabase {
    /// The table, view or virtual table named `name` in the main database (names compared as SQLite
    /// compares them), or nil when there is none.
    func tableShape(_ name: String) throws(BriefcaseError) -> TableShape? {
        let list = try prepare("SELECT name, type, wr FROM pragma_table_list WHERE schema = 'main' AND name = ?1 COLLATE NOCASE")
        try list.bind(.text(name), at: 1)
        guard try list.step(), let found = list.value(at: 0).text, let kind = list.value(at: 1).text else { return nil }
        var shape = TableShape(name: found, kind: kind, withoutRowID: list.value(at: 2).integer == 1, columns: [])
        guard kind == "table" else { return shape }
        let info = try prepare("SELECT name, type, pk, hidden FROM pragma_table_xinfo(?1)")
        try info.bind(.text(found), at: 1)
        while try info.step() {
            shape.columns.append(TableShape.Column(name: info.value(at: 0).text ?? "", declaredType: info.value(at: 1).text ?? "",
                                                   primaryKey: Int(info.value(at: 2).integer ?? 0), hidden: Int(info.value(at: 3).integer ?? 0)))
        }
        return shape
    }

    /// The real table `name` with (at least) `columns`, none of them generated; anything else — no
    /// such table, a view, a virtual table, a column missing or computed — is refused, naming it.
    /// Only such tables are ever read by the readers (never a view or a generated column's
    /// expression, which a hostile database could make as slow or as large as it likes).
    func realTable(_ name: String, columns: [String]) throws(BriefcaseError) -> TableShape {
        guard let shape = try tableShape(name) else { throw error("the database has no table \(name)", plain: true) }
        guard shape.kind == "table" else {
            throw error("\(name) is \(shape.kind == "view" ? "a view" : shape.kind == "virtual" ? "a virtual table" : "a \(shape.kind) table"), not a table", plain: true)
        }
        for name in columns {
            guard let column = shape.column(name) else { throw error("table \(shape.name) has no column \(name)", plain: true) }
            guard !column.isGenerated else { throw error("column \(shape.name).\(column.name) is generated (computed), not stored", plain: true) }
        }
        return shape
    }

    /// `PRAGMA quick_check`: every b-tree page, cell and record of the file is sound (not that
    /// indexes match their tables). Refuses a damaged database with SQLite's first finding.
    public func checkIntegrity() throws(BriefcaseError) {
        func damaged(_ finding: String) -> BriefcaseError {
            BriefcaseError(.invalidData, "not a readable SQLite database: \(finding)", file: path)
        }
        var result: String?
        do throws(BriefcaseError) {
            let check = try prepare("PRAGMA quick_check(1)")
            if try check.step() { result = check.value(at: 0).text }
        } catch {
            throw damaged(lastMessage)
        }
        guard let result else { throw damaged("quick_check gave no answer") }
        guard result == "ok" else { throw damaged(result) }
    }
}
