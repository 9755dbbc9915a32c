import BriefcaseKit

/// The SQLite format's reader (Spec/sqlite-mapping.md): a database this mapping wrote, opened
/// read-only, as a source — the head and each element from their exact bytes, and the edits made
/// with SQL in a table's current rows recorded as pending changes of that table (`ChangeTracker`).
public struct SQLiteSource {
    /// The database, opened read-only.
    public let database: SQLiteDatabase
    /// Its file, named in errors.
    public let path: String

    /// One element of `_briefcase_elements`.
    struct Entry {
        var position: Int
        var kind: ElementKind
        var name: String
        var currentTable: String?
        var rowIDsAreKeys: Bool
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

        /// The edits of `table`, counted.
        public init(table: String, inserts: Int = 0, updates: Int = 0, deletes: Int = 0) {
            self.table = table
            self.inserts = inserts
            self.updates = updates
            self.deletes = deletes
        }
    }

    /// Opens `path` read-only; refuses a database that is not this mapping's.
    public init(path: String) throws(BriefcaseError) {
        self.path = path
        // A regular file (never a FIFO or device: exit 2 before any read) that starts as SQLite 3 does.
        let prefix = try FileIO.readPrefix(path, count: 16)
        guard prefix.elementsEqual(Array("SQLite format 3\0".utf8)) else {
            throw BriefcaseError(.invalidData, "not an SQLite 3 database (it does not start with 'SQLite format 3')", offset: 0, file: path)
        }
        database = try SQLiteDatabase(path: path, mode: .readOnly)
        let kind: String?
        do throws(BriefcaseError) {
            kind = try database.schemaObject(named: SQLiteMapping.headTable)
        } catch {
            throw BriefcaseError(.invalidData, "not a readable SQLite database: \(error.message)", file: path)
        }
        guard kind == "table" else {
            throw BriefcaseError(.invalidData, "not a briefcase written as SQLite: it has no table \(SQLiteMapping.headTable) (Spec/sqlite-mapping.md)", file: path)
        }
        for table in [SQLiteMapping.elementsTable, SQLiteMapping.propertiesTable] where try database.schemaObject(named: table) != "table" {
            throw BriefcaseError(.invalidData, "not a briefcase written as SQLite: it has no table \(table)", file: path)
        }
        let format = try setting("format")
        guard let version = format.text, SQLiteMapping.readableFormats.contains(version) else {
            throw BriefcaseError(.unsupported, "\(SQLiteMapping.headTable).format is \(format), not '\(SQLiteMapping.format)'", file: path)
        }
    }

    func setting(_ key: String) throws(BriefcaseError) -> SQLValue {
        let statement = try database.prepare("SELECT value FROM _briefcase WHERE key = ?1")
        try statement.bind(.text(key), at: 1)
        return try statement.step() ? statement.value(at: 0) : .null
    }

    func invalid(_ message: String, element: String? = nil) -> BriefcaseError {
        BriefcaseError(.invalidData, message, element: element, file: path)
    }

    /// The head: container, code page (`encoding` wins), properties, header padding.
    func head(encoding: CodePage?) throws(BriefcaseError) -> BriefcaseHead {
        guard let containerName = try setting("container").text, let container = ContainerFormat(rawValue: containerName) else {
            throw invalid("\(SQLiteMapping.headTable).container is not one of \(ContainerFormat.allCases.map(\.rawValue))")
        }
        guard let codePageName = try setting("code_page").text, let codePage = encoding ?? CodePage(name: codePageName) else {
            throw invalid("\(SQLiteMapping.headTable).code_page names no known code page")
        }
        guard case .blob(let padding) = try setting("header_padding") else {
            throw invalid("\(SQLiteMapping.headTable).header_padding is not a blob")
        }
        var properties: [BriefcaseProperty] = []
        let statement = try database.prepare("SELECT name_bytes, value_bytes FROM _briefcase_properties ORDER BY position")
        while try statement.step() {
            guard case .blob(let name) = statement.value(at: 0), case .blob(let value) = statement.value(at: 1) else {
                throw invalid("\(SQLiteMapping.propertiesTable): name_bytes and value_bytes must be blobs")
            }
            properties.append(BriefcaseProperty(name: ByteString(name), value: ByteString(value)))
        }
        return BriefcaseHead(container: container, codePage: codePage, properties: properties, headerPadding: ByteString(padding))
    }

    func entries() throws(BriefcaseError) -> [Entry] {
        var entries: [Entry] = []
        let statement = try database.prepare("SELECT position, kind, name, current_table, row_ids FROM _briefcase_elements ORDER BY position")
        while try statement.step() {
            guard let position = statement.value(at: 0).integer, let kindName = statement.value(at: 1).text,
                  let kind: ElementKind = kindName == "table" ? .table : kindName == "delta" ? .delta : nil else {
                throw invalid("\(SQLiteMapping.elementsTable): a row without a position or kind ('table' or 'delta')")
            }
            entries.append(Entry(position: Int(position), kind: kind, name: statement.value(at: 2).text ?? "",
                                 currentTable: statement.value(at: 3).text, rowIDsAreKeys: statement.value(at: 4).text == "key"))
        }
        return entries
    }

    /// The element at `position`, from its exact bytes.
    func element(_ entry: Entry) throws(BriefcaseError) -> Element {
        guard let bytes = try database.readBlob(table: SQLiteMapping.elementsTable, column: "bin2", rowID: Int64(entry.position)) else {
            throw invalid("\(SQLiteMapping.elementsTable).bin2 is not a blob", element: entry.name)
        }
        var warnings: [DecodingWarning] = []
        let document: BriefcaseDocument
        do throws(BriefcaseError) {
            document = try BriefcaseDocument.decode(bytes, as: .bin2, warnings: &warnings)
        } catch {
            var located = error
            located.message = "\(SQLiteMapping.elementsTable).bin2 (offset in the element's bytes): " + error.message
            located.file = path
            throw located.inElement(entry.name)
        }
        guard document.file.stream.elements.count == 1, let element = document.file.stream.elements.first, element.kind == entry.kind else {
            throw invalid("\(SQLiteMapping.elementsTable).bin2 does not hold one \(entry.kind.label)", element: entry.name)
        }
        return element
    }

    /// The head and count of the element, read from its bytes without decoding a row.
    func summary(_ entry: Entry) throws(BriefcaseError) -> ElementSummary {
        guard let bytes = try database.readBlob(table: SQLiteMapping.elementsTable, column: "bin2", rowID: Int64(entry.position)) else {
            throw invalid("\(SQLiteMapping.elementsTable).bin2 is not a blob", element: entry.name)
        }
        do throws(BriefcaseError) {
            let elements = try BriefcaseElements(bytes: bytes, as: .bin2)
            guard elements.elements.count == 1 else { throw BriefcaseError(.invalidData, "does not hold one element") }
            let summary = try elements.summary(0)
            guard summary.kind == entry.kind else { throw BriefcaseError(.invalidData, "does not hold one \(entry.kind.label)") }
            return summary
        } catch {
            var located = error
            located.message = "\(SQLiteMapping.elementsTable).bin2 (offset in the element's bytes): " + error.message
            located.file = path
            throw located.inElement(entry.name)
        }
    }

    /// Reads the briefcase into `sink`: the elements in their order, each table's edits as its
    /// pending delta (a delta new to a table goes before it, as .NET writes them). Returns what
    /// the edits of each edited table became. On an error the sink is abandoned.
    @discardableResult
    public func read<Sink: BriefcaseSink>(into sink: inout Sink, encoding: CodePage? = nil) throws(BriefcaseError) -> [TableEdits] {
        do throws(BriefcaseError) {
            let head = try head(encoding: encoding)
            let entries = try entries()
            if sink.takesHeadsOnly {
                // `info`: what `convert` would give, edits made with SQL included — each stored
                // element's head and count (no row of it decoded), and the deltas the edits made.
                let (plan, edits) = try plan(entries, codePage: head.codePage)
                try sink.begin(head)
                for (index, step) in plan.enumerated() {
                    switch step {
                    case .stored(let entry): try sink.element(summary: try summary(entry), at: index)
                    case .edited(let delta): try sink.element(.delta(delta), at: index)
                    }
                }
                try sink.finish()
                return edits
            }
            guard sink.needsHeads else {
                try sink.begin(head)
                let edits = try stream(entries, codePage: head.codePage, into: &sink)
                try sink.finish()
                return edits
            }
            let (plan, edits) = try plan(entries, codePage: head.codePage)
            // Heads as `info` reads them: a stored element's from its bytes, no row decoded.
            var heads: [Element] = []
            for step in plan {
                switch step {
                case .stored(let entry): heads.append(try summary(entry).head)
                case .edited(let delta): heads.append(Element.delta(delta).head)
                }
            }
            let order = try sink.prepare(heads: heads)
            try sink.begin(head)
            for index in order ?? Array(plan.indices) {
                try sink.element(try element(of: plan[index]), at: index)
            }
            try sink.finish()
            return edits
        } catch {
            sink.abandon()
            throw error
        }
    }

    /// An element to give: stored (by its entry), or a delta the edits made.
    enum Step {
        case stored(Entry)
        case edited(Delta)
    }

    func element(of step: Step) throws(BriefcaseError) -> Element {
        switch step {
        case .stored(let entry): return try element(entry)
        case .edited(let delta): return .delta(delta)
        }
    }
}
