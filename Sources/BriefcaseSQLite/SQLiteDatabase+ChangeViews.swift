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
        guard (try? prepare("SELECT 1 FROM \(schema)._briefcase_changes LIMIT 0")) != nil,
              (try? prepare("SELECT position, kind, name, current_table FROM \(schema)._briefcase_elements LIMIT 0")) != nil else { return [] }
        // Tables and deltas paired as every reader pairs them: the k-th of a name (ASCII letters
        // without case) with the k-th.
        var tables: [String: [String?]] = [:], deltas: [(position: Int64, key: String, k: Int)] = []
        var counts: [String: Int] = [:]
        let elements = try prepare("SELECT position, kind, name, current_table FROM \(schema)._briefcase_elements ORDER BY position")
        while try elements.step() {
            guard case .integer(let position) = elements.value(at: 0), case .text(let kind) = elements.value(at: 1),
                  case .text(let name) = elements.value(at: 2) else { continue }
            let key = kind + ":" + String(name.unicodeScalars.map { $0.isASCII ? Character(String($0).lowercased()) : Character($0) })
            let k = counts[key, default: 0]
            counts[key] = k + 1
            if kind == "table" {
                if case .text(let current) = elements.value(at: 3) { tables[key, default: []].append(current) } else { tables[key, default: []].append(nil) }
            } else if kind == "delta" {
                deltas.append((position, "table" + key.dropFirst("delta".count), k))
            }
        }
        var notes: [String] = []
        // (A database opened read-only has its connection made query-only: temp is written all the same.)
        let queryOnly = target.lowercased() == "temp"
        if queryOnly { try execute("PRAGMA query_only = OFF") }
        defer { if queryOnly { try? execute("PRAGMA query_only = ON") } }
        for delta in deltas {
            guard let found = tables[delta.key], delta.k < found.count, let table = found[delta.k] else { continue }
            var fields: [String] = []
            let logged = try prepare("SELECT name FROM \(schema)._briefcase_fields WHERE element = \(delta.position) ORDER BY position")
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
                try execute("CREATE VIEW \(qualified) AS SELECT \(columns.joined(separator: ", ")) FROM \(changes) WHERE element = \(delta.position)")
            } catch {
                // (More logged fields than SQLite lets a view have columns, say: the changes stay in _briefcase_changes.)
                notes.append("\(view): not made (\(error.message))")
            }
        }
        return notes
    }

    /// The kind of the table or view `name` of schema `schema` (nil: none), compared as SQLite compares names.
    func schemaObject(named name: String, in schema: String) throws(BriefcaseError) -> String? {
        let master = schema.lowercased() == "temp" ? "sqlite_temp_master" : "\(Self.quote(schema)).sqlite_master"
        let statement = try prepare("SELECT type FROM \(master) WHERE name = ?1 COLLATE NOCASE")
        try statement.bind(.text(name), at: 1)
        guard try statement.step(), case .text(let type) = statement.value(at: 0) else { return nil }
        return type
    }

    /// `text` as an SQL string literal.
    static func literal(_ text: String) -> String {
        "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'"
    }
}
