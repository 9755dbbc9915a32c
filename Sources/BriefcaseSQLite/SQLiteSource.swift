import BriefcaseKit

/// The SQLite format's reader (Spec/sqlite-mapping.md): a database this mapping wrote, opened
/// read-only, as a source — the head and each element from their exact bytes, and the edits made
/// with SQL in a table's current rows recorded as pending changes of that table (`ChangeTracker`).
/// What it reads is checked first: only real tables with the mapping's columns, element entries
/// that agree with the elements' bytes, current-rows tables with their fields' columns and types.
/// Anything it could only guess at is refused, naming the table and column (§5, §7).
public struct SQLiteSource {
    /// The database, opened read-only.
    public let database: SQLiteDatabase
    /// Its file, named in errors.
    public let path: String
    /// The mapping's version: 1, 2 or 3.
    let version: Int

    /// One element of `_briefcase_elements`.
    struct Entry {
        /// Its row in `_briefcase_elements` (where its bytes are read from).
        var rowID: Int64
        var position: Int
        var kind: ElementKind
        var name: String
        var currentTable: String?
        var rowIDsAreKeys: Bool
        /// Rows of a table, changes of a delta, as `_briefcase_elements` says.
        var count: Int64?
        /// The CRC-32 of its bytes as written (version 3).
        var checksum: Int64?
        /// Whether a new delta right before it would be paired with it (`ElementPairing`): the
        /// k-th table of a name with no delta of its own takes edits only when the k − 1 deltas of
        /// its name all come before it.
        var takesNewDelta = true
    }

    /// What the edits of one table became.
    public struct TableEdits: Sendable, Equatable {
        /// The current-rows table edited.
        public var table: String
        /// Rows inserted.
        public var inserts = 0
        /// Rows updated.
        public var updates = 0
        /// Rows deleted.
        public var deletes = 0
        /// What the reader could not tell from the table, and how it read it (NaN that a database
        /// of version 1 or 2 shows as NULL).
        public var notes: [String] = []

        /// The edits of `table`, counted.
        public init(table: String, inserts: Int = 0, updates: Int = 0, deletes: Int = 0, notes: [String] = []) {
            self.table = table
            self.inserts = inserts
            self.updates = updates
            self.deletes = deletes
            self.notes = notes
        }

        /// Whether any row was edited.
        public var hasEdits: Bool { inserts + updates + deletes > 0 }
    }

    /// The columns read of the mapping's own tables.
    static let headColumns = ["key", "value"]
    static let elementColumns = ["position", "kind", "name", "current_table", "row_ids", "rows", "changes", "bin2"]
    static let propertyColumns = ["position", "name", "value", "name_bytes", "value_bytes"]

    /// Opens `path` read-only; refuses a database that is not this mapping's, or whose own tables
    /// are not what the mapping writes (a view, a virtual table, a column missing or generated).
    /// With `checkingIntegrity`, also every page of the file (`SQLiteDatabase.checkIntegrity`).
    public init(path: String, checkingIntegrity: Bool = false) throws(BriefcaseError) {
        self.path = path
        // A regular file (never a FIFO or device: exit 2 before any read) that starts as SQLite 3 does.
        let prefix = try FileIO.readPrefix(path, count: 16)
        guard prefix.elementsEqual(Array("SQLite format 3\0".utf8)) else {
            throw BriefcaseError(.invalidData, "not an SQLite 3 database (it does not start with 'SQLite format 3')", offset: 0, file: path)
        }
        database = try SQLiteDatabase(path: path, mode: .readOnly)
        if checkingIntegrity { try database.checkIntegrity() }
        let kind: String?
        do throws(BriefcaseError) {
            kind = try database.schemaObject(named: SQLiteMapping.headTable)
        } catch {
            throw BriefcaseError(.invalidData, "not a readable SQLite database: \(error.message)", file: path)
        }
        guard kind != nil else {
            throw BriefcaseError(.invalidData, "not a briefcase written as SQLite: it has no table \(SQLiteMapping.headTable) (Spec/sqlite-mapping.md)", file: path)
        }
        _ = try database.realTable(SQLiteMapping.headTable, columns: Self.headColumns)
        for table in [SQLiteMapping.elementsTable, SQLiteMapping.propertiesTable] where try database.schemaObject(named: table) == nil {
            throw BriefcaseError(.invalidData, "not a briefcase written as SQLite: it has no table \(table)", file: path)
        }
        let format = try Self.setting("format", in: database)
        guard let name = format.text, SQLiteMapping.readableFormats.contains(name), let number = Int(name.split(separator: " ").last ?? "") else {
            throw BriefcaseError(.unsupported, "\(SQLiteMapping.headTable).format is \(format), not '\(SQLiteMapping.format)'", file: path)
        }
        version = number
    }

    static func setting(_ key: String, in database: SQLiteDatabase) throws(BriefcaseError) -> SQLValue {
        let statement = try database.prepare("SELECT value FROM _briefcase WHERE key = ?1")
        try statement.bind(.text(key), at: 1)
        guard try statement.step() else { return .null }
        let value = statement.value(at: 0)
        guard try !statement.step() else {
            throw database.error("\(SQLiteMapping.headTable) has two rows for '\(key)'", plain: true)
        }
        return value
    }

    func invalid(_ message: String, element: String? = nil) -> BriefcaseError {
        BriefcaseError(.invalidData, message, element: element, file: path)
    }

    /// The code page the database was written in: its names and text are compared in it, and text
    /// written with SQL is stored in it (an `--encoding` given changes only the briefcase's head).
    func writtenCodePage() throws(BriefcaseError) -> CodePage {
        guard let name = try Self.setting("code_page", in: database).text, let codePage = CodePage(name: name) else {
            throw invalid("\(SQLiteMapping.headTable).code_page names no known code page")
        }
        return codePage
    }

    /// The head: container, code page (`encoding` wins), properties, header padding.
    func head(encoding: CodePage?, written codePage: CodePage, notes: inout [String]) throws(BriefcaseError) -> BriefcaseHead {
        guard let containerName = try Self.setting("container", in: database).text, let container = ContainerFormat(rawValue: containerName) else {
            throw invalid("\(SQLiteMapping.headTable).container is not one of \(ContainerFormat.allCases.map(\.rawValue))")
        }
        guard case .blob(let padding) = try Self.setting("header_padding", in: database) else {
            throw invalid("\(SQLiteMapping.headTable).header_padding is not a blob")
        }
        let properties = try properties(codePage: codePage, notes: &notes)
        // A bare Bin2 stream has no head: what an edit put there could not be written back.
        guard container == .dabriefcase || (properties.isEmpty && padding.isEmpty) else {
            throw invalid("the briefcase came as a bare Bin2 stream (\(SQLiteMapping.headTable).container 'bin2'), which holds no properties and no header padding; found \(properties.count) properties and \(padding.count) bytes of padding")
        }
        return BriefcaseHead(container: container, codePage: encoding ?? codePage, properties: properties, headerPadding: ByteString(padding))
    }
}
