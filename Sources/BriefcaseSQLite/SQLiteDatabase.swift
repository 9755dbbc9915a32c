import BriefcaseKit
import CSQLite

/// A connection to an SQLite database (the system's libsqlite3): the few calls the SQLite
/// format needs, every failure a `BriefcaseError` naming the file. Not shared between threads.
public final class SQLiteDatabase {
    let handle: OpaquePointer
    /// The file, named in errors (":memory:" for an in-memory database).
    public let path: String

    /// How a database is opened.
    public enum Mode: Sendable {
        /// Creates the file (or opens it) for writing.
        case create
        /// Reads only: nothing in the file can be changed through this connection, whatever it
        /// holds (Spec/sqlite-mapping.md §7).
        case readOnly
        /// A private database of this connection (`query` over a briefcase that is not SQLite):
        /// in memory, and when it outgrows SQLite's page cache, in a temporary file SQLite has
        /// already unlinked (an empty file name), so a large briefcase does not have to fit in
        /// memory and nothing is left behind.
        case memory
    }

    /// Configures SQLite once, before its first connection (after that, `sqlite3_config` is refused).
    private static let configured: Bool = briefcase_sqlite_configure() == SQLITE_OK

    /// The longest string or blob this connection makes or reads (`SQLITE_LIMIT_LENGTH`): for an
    /// input, the size of its files.
    let valueLimit: Int
    /// A private copy of a database that SQLite could not read in place without writing beside it
    /// (`PrivateCopy`): removed when the connection closes.
    private let privateCopy: PrivateCopy?

    /// Opens (or, with `.create`, creates) the database at `path`; a refusal names the file.
    ///
    /// Read-only (Spec/sqlite-mapping.md §7): nothing is ever written at or beside `path` — a
    /// database in WAL mode, or with a rollback journal beside it, is read from a private copy
    /// (`PrivateCopy`); no value longer than the file (at most SQLite's 1 000 000 000 bytes) is
    /// ever made; no memory mapping (a file truncated meanwhile is an error, not a SIGBUS).
    public init(path: String, mode: Mode) throws(BriefcaseError) {
        _ = Self.configured
        self.path = path
        var opened = path
        var copy: PrivateCopy?
        var longestValue = Self.longestValue
        if mode == .readOnly {
            let files = try ReadOnlyFiles(path)
            if files.needsPrivateCopy {
                copy = try PrivateCopy(of: files)
                opened = copy!.database
            }
            longestValue = min(Self.longestValue, max(files.size, 1 << 20))
        }
        privateCopy = copy
        valueLimit = longestValue
        var connection: OpaquePointer?
        let flags: Int32
        switch mode {
        case .create, .memory: flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        // A private copy is ours: SQLite may finish its journal or checkpoint its WAL there.
        case .readOnly: flags = copy == nil ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        }
        let status = sqlite3_open_v2(systemPath(mode == .memory ? "" : opened), &connection, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let connection else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let connection { sqlite3_close_v2(connection) }
            throw BriefcaseError(mode == .readOnly ? .invalidData : .io, "cannot open the SQLite database: \(message)", file: path)
        }
        handle = connection
        sqlite3_extended_result_codes(handle, 1)
        // A hostile schema cannot make us run what it wants: no ATTACH (no other file is ever
        // opened or created), no functions with side effects called from views or triggers, no
        // writes to the schema tables, no extension loading, no pointer from fts3_tokenizer.
        sqlite3_limit(handle, SQLITE_LIMIT_ATTACHED, 0)
        sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, Int32(longestValue))
        _ = briefcase_sqlite_db_config_flag(handle, SQLITE_DBCONFIG_DEFENSIVE, 1)
        _ = briefcase_sqlite_db_config_flag(handle, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0)
        _ = briefcase_sqlite_db_config_flag(handle, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0)
        _ = briefcase_sqlite_db_config_flag(handle, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0)
        // "Name" is a column, never the text 'Name': SQLite's fallback for an unknown double-quoted
        // identifier would turn a dropped column into its name as a value (Spec/sqlite-mapping.md §5).
        _ = briefcase_sqlite_db_config_flag(handle, SQLITE_DBCONFIG_DQS_DML, 0)
        _ = briefcase_sqlite_db_config_flag(handle, SQLITE_DBCONFIG_DQS_DDL, 0)
        if mode == .readOnly {
            try? execute("PRAGMA query_only = ON; PRAGMA mmap_size = 0; PRAGMA cell_size_check = ON")
        }
    }

    /// SQLite's longest string or blob (SQLITE_MAX_LENGTH as built by default): the largest value
    /// the format holds (an element's bytes).
    public static let longestValue = 1_000_000_000

    deinit { sqlite3_close_v2(handle) }

    /// Runs statements that return no rows (the schema, transactions, pragmas).
    public func execute(_ sql: String) throws(BriefcaseError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        guard status == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_free(message)
            throw error(text)
        }
    }

    /// The first statement of `sql`, compiled to run (and run again) with bound values.
    public func prepare(_ sql: String) throws(BriefcaseError) -> SQLiteStatement {
        var statement: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let status = sql.withCString { sqlite3_prepare_v2(handle, $0, -1, &statement, &tail) }
        guard status == SQLITE_OK, let statement else {
            throw status == SQLITE_OK ? error("no SQL statement in '\(sql)'") : lastError()
        }
        return SQLiteStatement(statement, database: self)
    }

    /// Whether schema `schema` (default: the database's own) has a table or view named `name`
    /// (exactly, as SQLite compares names): its type, or nil.
    public func schemaObject(named name: String, in schema: String = "main") throws(BriefcaseError) -> String? {
        let catalog = schema.lowercased() == "temp" ? "sqlite_temp_schema" : "\(Self.quote(schema)).sqlite_schema"
        let statement = try prepare("SELECT type FROM \(catalog) WHERE name = ?1 COLLATE NOCASE AND type IN ('table', 'view')")
        try statement.bind(.text(name), at: 1)
        return try statement.step() ? statement.value(at: 0).text : nil
    }

    /// The blob in `column` of the row `rowID` of `table` (in database "main"), read straight into
    /// one array (incremental blob I/O: SQLite does not hold a second copy of a large value);
    /// nil when the value is not a blob.
    func readBlob(table: String, column: String, rowID: Int64) throws(BriefcaseError) -> [UInt8]? {
        var blob: OpaquePointer?
        guard sqlite3_blob_open(handle, "main", table, column, rowID, 0, &blob) == SQLITE_OK, let blob else {
            if let blob { sqlite3_blob_close(blob) }
            // Not a blob (or no such row): the caller says what it expected.
            return nil
        }
        defer { sqlite3_blob_close(blob) }
        let count = Int(sqlite3_blob_bytes(blob))
        // A damaged record may claim more than the file holds: refused before the array is made.
        guard count <= valueLimit else { throw error("a value of \(count) bytes in \(table).\(column), longer than the database's files", plain: true) }
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            failed = count > 0 && sqlite3_blob_read(blob, buffer.baseAddress, Int32(count), 0) != SQLITE_OK
            initialized = failed ? 0 : count
        }
        guard !failed else { throw lastError() }
        return bytes
    }

    /// The most parameters one statement may have (`SQLITE_LIMIT_VARIABLE_NUMBER`: 32766 as
    /// SQLite is built by default since 3.32, 999 before).
    var mostParameters: Int { Int(sqlite3_limit(handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1)) }

    var lastMessage: String { String(cString: sqlite3_errmsg(handle)) }

    /// Whether the last failure was a constraint (NOT NULL, UNIQUE) or a value the rowid alias
    /// cannot hold.
    var failedOnConstraint: Bool {
        let code = sqlite3_errcode(handle) & 0xFF
        return code == SQLITE_CONSTRAINT || code == SQLITE_MISMATCH
    }

    /// The error SQLite reported last: a damaged file (`SQLITE_CORRUPT`, `SQLITE_NOTADB`) as
    /// "not a readable SQLite database: …" wherever it is found (Spec/sqlite-mapping.md §7), any
    /// other failure as "SQLite: …".
    func lastError() -> BriefcaseError {
        let code = sqlite3_errcode(handle) & 0xFF
        guard code == SQLITE_CORRUPT || code == SQLITE_NOTADB else { return error(lastMessage) }
        return error("not a readable SQLite database: \(lastMessage)", plain: true)
    }

    /// An error of this database: SQLite's own message (`plain` false, marked "SQLite:"), or ours.
    func error(_ message: String, plain: Bool = false) -> BriefcaseError {
        BriefcaseError(.invalidData, plain ? message : "SQLite: \(message)", file: path)
    }

    /// `"name"`: an identifier quoted the SQL way (doubled quotes inside), whatever it holds, so no
    /// table or field name can end the identifier and inject SQL.
    public static func quote(_ identifier: String) -> String {
        var quoted = "\""
        for character in identifier {
            if character == "\"" { quoted += "\"\"" } else { quoted.append(character) }
        }
        return quoted + "\""
    }
}
