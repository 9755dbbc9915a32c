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

        /// The refusal in one line.
        public var description: String {
            switch self {
            case .invalid(let message): return message
            case .writes: return "query only reads: the statement would change the database (use SELECT, WITH … SELECT, or EXPLAIN)"
            case .several: return "query runs one SQL statement; remove what follows the first ';'"
            }
        }
    }

    /// Compiles `sql`, one statement that only reads, over `database` (made read-only first).
    public init(_ sql: String, in database: SQLiteDatabase) throws(Refusal) {
        try? database.execute("PRAGMA query_only = ON")
        var handle: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let (status, rest): (Int32, String) = sql.withCString { text in
            let status = sqlite3_prepare_v2(database.handle, text, -1, &handle, &tail)
            return (status, tail.map { String(cString: $0) } ?? "")
        }
        guard status == SQLITE_OK, let handle else {
            if let handle { sqlite3_finalize(handle) }
            throw .invalid(status == SQLITE_OK ? "no SQL statement given" : "SQL: " + database.lastMessage)
        }
        statement = SQLiteStatement(handle, database: database)
        guard rest.allSatisfy({ $0.isWhitespace || $0 == ";" }) else { throw .several }
        guard statement.isReadOnly else { throw .writes }
        columns = (0..<statement.columnCount).map(statement.columnName)
    }

    /// The next row (nil at the end).
    public mutating func next() throws(BriefcaseError) -> [SQLValue]? {
        guard try statement.step() else { return nil }
        return (0..<columns.count).map(statement.value)
    }
}
