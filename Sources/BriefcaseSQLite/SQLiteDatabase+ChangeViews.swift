import BriefcaseKit
import CSQLite

extension SQLiteDatabase {
    /// Pending changes as plain columns (`briefcase query`, Spec/sqlite-mapping.md §6): for each
    /// table of the briefcase in schema `source` whose delta has logged fields, a view
    /// `<table>_changes` in schema `target` (the same, or `temp` over a database opened
    /// read-only) with one row per pending change — `position`, `type` (insert, update, delete),
    /// `status`, `record_id`, `message`, then `old_<field>` and `new_<field>` for each logged
    /// field, values as the current-rows tables hold them (blobs as their base64 text) — so that
    /// `select record_id from Orders_changes where type = 'insert'` needs no JSON function.
    /// Returns what it had to leave out (a name taken, a view SQLite refused), as notes; nothing
    /// for a database that is not a briefcase's. A mapping it cannot read throws: `query` then
    /// goes on without the views.
    public func addChangeViews(reading source: String = "main", into target: String = "main") throws(BriefcaseError) -> [String] {
        let schema = Self.quote(source)
        // (A database that is not a briefcase's has neither table: no view, no note.)
        guard (try? prepare("SELECT 1 FROM \(schema)._briefcase_changes LIMIT 0")) != nil,
              let elements = try? prepare("SELECT position, kind, name, current_table FROM \(schema)._briefcase_elements ORDER BY position")
        else { return [] }
        // Tables and deltas paired as every reader pairs them (`ElementPairing`).
        var positions: [Int64] = [], kinds: [ElementKind] = [], names: [ByteString] = [], currentTables: [String?] = []
        while try elements.step() {
            let kindName = elements.value(at: 1).text
            guard case .integer(let position) = elements.value(at: 0), let kind: ElementKind = kindName == "table" ? .table : kindName == "delta" ? .delta : nil,
                  let name = elements.value(at: 2).text else { continue }
            positions.append(position)
            kinds.append(kind)
            names.append(ByteString(utf8: name))
            currentTables.append(elements.value(at: 3).text)
        }
        let pairing = ElementPairing(kinds: kinds, names: names)
        let deltas: [(position: Int64, table: String)] = kinds.indices.compactMap { i in
            guard kinds[i] == .delta, let mate = pairing.partner[i], let table = currentTables[mate] else { return nil }
            return (positions[i], table)
        }
        var notes: [String] = []
        // (A database opened read-only has its connection made query-only: temp is written all the same.)
        let queryOnly = target.lowercased() == "temp"
        if queryOnly { try execute("PRAGMA query_only = OFF") }
        defer { if queryOnly { try? execute("PRAGMA query_only = ON") } }
        for (position, table) in deltas {
            var fields: [String] = []
            let logged = try prepare("SELECT name FROM \(schema)._briefcase_fields WHERE element = \(position) ORDER BY position")
            while try logged.step() { if case .text(let name) = logged.value(at: 0) { fields.append(name) } }
            guard !fields.isEmpty else { continue }
            let view = table + "_changes"
            let qualified = Self.quote(target) + "." + Self.quote(view)
            guard try schemaObject(named: view, in: target) == nil else {
                notes.append("\(view): the name is taken, so \(table)'s pending changes have no such view (_briefcase_changes holds them)")
                continue
            }
            // A view of an attached database names only its own tables; one in temp names main's.
            let changes = target == source ? "_briefcase_changes" : "\(schema)._briefcase_changes"
            func value(_ side: String, _ field: String) -> String {
                "(SELECT value FROM json_each(\(side)_values) WHERE key = \(Self.literal(field))) AS \(Self.quote(side + "_" + field))"
            }
            let columns = ["position", "type", "status", "record_id", "message"] + fields.flatMap { [value("old", $0), value("new", $0)] }
            // (SQLite would make the view, then refuse every statement that reads it.)
            let most = Int(sqlite3_limit(handle, SQLITE_LIMIT_COLUMN, -1))
            guard columns.count <= most else {
                notes.append("\(view): not made: its \(columns.count) columns are more than SQLite's \(most) (_briefcase_changes holds the changes)")
                continue
            }
            do {
                try execute("CREATE VIEW \(qualified) AS SELECT \(columns.joined(separator: ", ")) FROM \(changes) WHERE element = \(position)")
            } catch {
                // (More logged fields than SQLite lets a view have columns, say: the changes stay in _briefcase_changes.)
                notes.append("\(view): not made (\(error.message))")
            }
        }
        return notes
    }

    /// `text` as an SQL string literal.
    static func literal(_ text: String) -> String {
        "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'"
    }
}
