import BriefcaseKit
import CSQLite

/// One read-only SQL statement over a database (`briefcase query`): a statement that would
/// change anything is refused before it runs, and the connection allows no writes anyway
/// (Spec/sqlite-mapping.md §6).
public struct SQLiteQuery {
    /// The names of the result's columns, as SQLite gives them.
    public let columns: [String]
    let statement: SQLiteStatement

    /// Why a query is refused.
    public enum Refusal: Error, CustomStringConvertible {
        /// The SQL does not compile (a usage error).
        case invalid(String)
        /// The statement would write.
        case writes
        /// More than one statement.
        case several
        /// The statement, or a view or trigger it reaches, calls what `query` does not allow.
        case denied(String)

        /// The refusal in one line.
        public var description: String {
            switch self {
            case .invalid(let message): return message
            case .writes: return "query only reads: the statement would change the database (use SELECT, WITH … SELECT, or EXPLAIN)"
            case .several: return "query runs one SQL statement; remove the statements after the first"
            case .denied(let message):
                return "SQL: \(message): query calls no function that reveals memory addresses or reaches outside the database (fts3_tokenizer, load_extension), sets no pragma and attaches no file"
            }
        }
    }

    /// Compiles `sql`, one statement that only reads, over `database` (made read-only first).
    /// What follows the statement may be spaces, semicolons and comments, nothing else. The
    /// statement, and every view and trigger it reaches, may not call functions that reveal memory
    /// addresses or reach outside the database (`fts3_tokenizer`, `load_extension`), set a pragma
    /// or attach a file (Spec/sqlite-mapping.md §6).
    public init(_ sql: String, in database: SQLiteDatabase) throws(Refusal) {
        try? database.execute("PRAGMA query_only = ON")
        briefcase_sqlite_restrict_query(database.handle)
        var handle: OpaquePointer?
        let (status, several): (Int32, Bool) = sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            let status = sqlite3_prepare_v2(database.handle, text, -1, &handle, &tail)
            guard status == SQLITE_OK else { return (status, false) }
            // The rest compiles to no statement when it holds only comments and separators.
            while let rest = tail, rest.pointee != 0 {
                var next: OpaquePointer?
                var after: UnsafePointer<CChar>?
                let restStatus = sqlite3_prepare_v2(database.handle, rest, -1, &next, &after)
                if let next { sqlite3_finalize(next); return (status, true) }
                // (SQL after the first statement that does not compile: more than one statement too.)
                if restStatus != SQLITE_OK { return (status, true) }
                tail = after
                if after == rest { break }
            }
            return (status, false)
        }
        guard status == SQLITE_OK, let handle else {
            if let handle { sqlite3_finalize(handle) }
            if status & 0xFF == SQLITE_AUTH || database.lastMessage.hasPrefix("not authorized") || database.lastMessage.hasPrefix("unsafe use of") { throw .denied(database.lastMessage) }
            throw .invalid(status == SQLITE_OK ? "no SQL statement given" : "SQL: " + database.lastMessage)
        }
        statement = SQLiteStatement(handle, database: database)
        guard !several else { throw .several }
        guard statement.isReadOnly else { throw .writes }
        columns = (0..<statement.columnCount).map(statement.columnName)
    }

    /// The next row (nil at the end).
    public mutating func next() throws(BriefcaseError) -> [SQLValue]? {
        guard try statement.step() else { return nil }
        return (0..<columns.count).map(statement.value)
    }
}
