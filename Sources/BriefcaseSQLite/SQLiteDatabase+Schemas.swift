import BriefcaseKit
import CSQLite

extension SQLiteDatabase {
    /// A connection that holds each of `parts` as a schema of its name (`briefcase query` of
    /// several inputs, Spec/sqlite-mapping.md §6): each database copied, as SQLite serializes it
    /// (read through its own connection, with that connection's checks), into memory attached
    /// under the name (a copy: what is done to it never reaches the part). Nothing else can be
    /// attached afterwards, and no value longer than the longest the parts allow is made.
    public static func combining(_ parts: [(name: String, database: SQLiteDatabase)]) throws(BriefcaseError) -> SQLiteDatabase {
        try combining(parts, virtualTables: nil)
    }

    /// The same, the virtual tables of the parts read on demand (`OnDemandDatabase`) answered by
    /// `virtualTables` (`VirtualTables.combining`).
    package static func combining(_ parts: [(name: String, database: SQLiteDatabase)],
                                  virtualTables: VirtualTables?) throws(BriefcaseError) -> SQLiteDatabase {
        let combined = try SQLiteDatabase(path: ":memory:", mode: .memory)
        try virtualTables?.register(on: combined)
        sqlite3_limit(combined.handle, SQLITE_LIMIT_ATTACHED, Int32(parts.count))
        defer { sqlite3_limit(combined.handle, SQLITE_LIMIT_ATTACHED, 0) }
        sqlite3_limit(combined.handle, SQLITE_LIMIT_LENGTH, Int32(parts.map(\.database.valueLimit).max() ?? longestValue))
        for (name, database) in parts {
            try combined.execute("ATTACH DATABASE ':memory:' AS \(quote(name))")
            var size: sqlite3_int64 = 0
            // (An empty database serializes to nothing: its schema stays empty.)
            guard let bytes = sqlite3_serialize(database.handle, "main", &size, 0) else { continue }
            // Writable, for the views `addChangeViews` adds; `query` makes the connection read-only after.
            let flags = UInt32(SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE)
            let status = sqlite3_deserialize(combined.handle, name, bytes, size, size, flags)
            guard status == SQLITE_OK else {
                throw BriefcaseError(.io, "cannot hold the database as schema '\(name)': \(combined.lastMessage)", file: database.path)
            }
        }
        return combined
    }
}
