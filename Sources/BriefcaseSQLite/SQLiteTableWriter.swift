import JSONCore
import BriefcaseJSON
import BriefcaseKit
import CSQLite

/// Writes the tables of Spec/sqlite-mapping.md into an open database, inside one transaction
/// (`begin` … `finish`): the head, then each element as `SQLiteSink` hands it over.
struct SQLiteTableWriter {
    let database: SQLiteDatabase
    let codePage: CodePage
    /// Binds the rows of the current-rows and stored-rows tables.
    let binder: RowBinder
    /// The names of the current-rows tables, given in stream order.
    var names = SQLiteNames()
    /// Tables and fields whose SQL name is not their own (`SQLiteNames`), to report.
    var derivedNames: [SQLiteSink.DerivedName] = []
    private var insertElement: SQLiteStatement?
    private var insertField: SQLiteStatement?
    private var insertSchema: SQLiteStatement?
    private var insertChange: SQLiteStatement?
    /// Where the time goes, when the bench asks (`SQLiteWritePhases`).
    var phases: SQLiteWritePhases?

    init(database: SQLiteDatabase, codePage: CodePage) {
        self.database = database
        self.codePage = codePage
        binder = RowBinder(image: ValueImage(codePage: codePage))
    }

    /// Opens the transaction and writes the head; `elementsTable` false leaves
    /// `_briefcase_elements` to the caller (`OnDemandDatabase` makes it a virtual table).
    mutating func begin(_ head: BriefcaseHead, elementsTable: Bool = true) throws(BriefcaseError) {
        // Written once into a new file that appears only when complete: no journal on disk, no
        // fsync. The journal in memory costs next to nothing (the pages are all new: there is no
        // old content to keep) and keeps ROLLBACK TO a savepoint defined (createAndFill).
        try database.execute("PRAGMA page_size = 16384; PRAGMA journal_mode = MEMORY; PRAGMA temp_store = MEMORY; PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE; BEGIN")
        try database.execute("""
            CREATE TABLE _briefcase (key TEXT PRIMARY KEY NOT NULL, value);
            CREATE TABLE _briefcase_properties (position INTEGER PRIMARY KEY, name TEXT NOT NULL, value TEXT NOT NULL,
                name_bytes BLOB NOT NULL, value_bytes BLOB NOT NULL);
            CREATE TABLE _briefcase_fields (element INTEGER NOT NULL, position INTEGER NOT NULL, name TEXT NOT NULL,
                type TEXT NOT NULL, size INTEGER, sql_type TEXT, in_primary_key BOOLEAN NOT NULL, sql_name TEXT,
                PRIMARY KEY (element, position));
            CREATE TABLE _briefcase_schema (element INTEGER NOT NULL, section TEXT NOT NULL, item INTEGER NOT NULL,
                position INTEGER NOT NULL, name TEXT NOT NULL, value TEXT, PRIMARY KEY (element, section, item, position));
            CREATE TABLE _briefcase_changes (element INTEGER NOT NULL, position INTEGER NOT NULL, type TEXT NOT NULL,
                record_id INTEGER NOT NULL, status TEXT NOT NULL, message TEXT NOT NULL, old_values TEXT NOT NULL,
                new_values TEXT NOT NULL, PRIMARY KEY (element, position));
            """)
        if elementsTable { try database.execute("CREATE TABLE _briefcase_elements (\(Self.elementsColumns))") }
        let setting = try database.prepare("INSERT INTO _briefcase (key, value) VALUES (?1, ?2)")
        try setting.run([.text("format"), .text(SQLiteMapping.format)])
        try setting.run([.text("container"), .text(head.container.rawValue)])
        try setting.run([.text("code_page"), .text(head.codePage.name)])
        try setting.run([.text("header_padding"), .blob(head.headerPadding.array)])
        let property = try database.prepare("INSERT INTO _briefcase_properties VALUES (?1, ?2, ?3, ?4, ?5)")
        for (position, item) in head.properties.enumerated() {
            try property.run([.integer(Int64(position)), .text(codePage.decodeForDisplay(item.name)),
                              .text(codePage.decodeForDisplay(item.value)), .blob(item.name.array), .blob(item.value.array)])
        }
        // bin2 (?10) is bound where the bytes lie, not copied first (`writeElement`).
        if elementsTable { insertElement = try database.prepare("INSERT INTO _briefcase_elements VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)") }
        insertField = try database.prepare("INSERT INTO _briefcase_fields VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")
        insertSchema = try database.prepare("INSERT INTO _briefcase_schema VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
        insertChange = try database.prepare("INSERT INTO _briefcase_changes VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")
    }

    /// The columns of `_briefcase_elements` (Spec/sqlite-mapping.md §2).
    static let elementsColumns = """
        position INTEGER PRIMARY KEY, kind TEXT NOT NULL, name TEXT NOT NULL, current_table TEXT, stored_table TEXT, \
        row_ids TEXT, note TEXT, rows INTEGER, changes INTEGER, bin2 BLOB NOT NULL, checksum INTEGER NOT NULL
        """

    mutating func finish() throws(BriefcaseError) {
        insertElement = nil
        insertField = nil
        insertSchema = nil
        insertChange = nil
        try timed(phases, .commit) { () throws(BriefcaseError) in try database.execute("COMMIT") }
    }

    /// The element's exact bytes: a Bin2 stream of this one element, read back by the one Bin2
    /// reader (Spec/sqlite-mapping.md §2).
    func bin2(_ element: Element) throws(BriefcaseError) -> [UInt8] {
        try Self.bin2(element, codePage: codePage)
    }

    static func bin2(_ element: Element, codePage: CodePage) throws(BriefcaseError) -> [UInt8] {
        let bytes = try Bin2Encoder.encode(Bin2Stream(elements: [element]))
        guard bytes.count <= SQLiteDatabase.longestValue else {
            throw BriefcaseError(.invalidModel, "takes \(bytes.count) bytes as Bin2; SQLite holds at most \(SQLiteDatabase.longestValue) bytes in one value",
                                 element: codePage.decodeForDisplay(element.name))
        }
        return bytes
    }

    // MARK: tables


    /// A table element: its exact bytes, fields and schema, and its current rows (the stored
    /// rows with `delta` replayed) in an SQL table of its own name (or a derived one,
    /// `SQLiteNames`); its stored rows in a table of their own when the delta changes them.
    mutating func write(table: Table, at position: Int, delta: Delta?) throws(BriefcaseError) {
        let name = codePage.decodeForDisplay(table.name)
        let (bytes, checksum) = try elementBytes(.table(table))
        let sqlName = names.table(named: name, at: position)
        let layout = CurrentTableLayout(table: table, codePage: codePage)
        var current: SQLValue = .null, stored: SQLValue = .null, rowIDs: SQLValue = .null
        let note = layout.refusal
        if layout.refusal == nil {
            (stored, rowIDs) = try writeCurrentRows(of: table, named: sqlName, layout: layout, delta: delta, position: position)
            current = .text(sqlName)
            if sqlName != name { derivedNames.append(SQLiteSink.DerivedName(element: name, field: nil, sqlName: sqlName)) }
            for (column, field) in table.fields.enumerated() where layout.columns[column] != codePage.decodeForDisplay(field.name) {
                derivedNames.append(SQLiteSink.DerivedName(element: name, field: codePage.decodeForDisplay(field.name), sqlName: layout.columns[column]))
            }
        }
        try writeElement([.integer(Int64(position)), .text("table"), .text(name), current, stored, rowIDs,
                          note.map(SQLValue.text) ?? .null, .integer(Int64(table.rows.count)), .null, .integer(checksum)], bytes: bytes)
        try timed(phases, .views) { () throws(BriefcaseError) in try writeFields(of: table, at: position, layout: layout) }
    }

    /// The element's exact bytes (`bin2`) and their checksum.
    private func elementBytes(_ element: Element) throws(BriefcaseError) -> ([UInt8], Int64) {
        try timed(phases, .elementBytes) { () throws(BriefcaseError) in
            let bytes = try bin2(element)
            return (bytes, SQLiteMapping.checksum(bytes))
        }
    }

    /// The element's row of `_briefcase_elements`: `values` are its columns but `bin2` (the
    /// last, `checksum`, included), `bytes` its `bin2`. The bytes are bound where they lie
    /// (`SQLITE_STATIC`): SQLite copies them once, into the row's record. (A zeroblob written
    /// over by incremental blob I/O cost more: `bin2` is not the row's last column, so SQLite
    /// made the record of zeros in memory, wrote its pages, then read and wrote them again.)
    private func writeElement(_ values: [SQLValue], bytes: [UInt8]) throws(BriefcaseError) {
        let statement = insertElement!
        try timed(phases, .elementWrite) { () throws(BriefcaseError) in
            defer { statement.reset() }
            for (index, value) in values.enumerated() { try statement.bind(value, at: index < 9 ? index + 1 : index + 2) }
            try bytes.withUnsafeBufferPointer { (buffer) throws(BriefcaseError) in
                try statement.bindStatic(buffer.baseAddress!, count: buffer.count, encoding: nil, at: 10)
                while try statement.step() {}
            }
        }
    }

    /// The fields of a table (or of its head) and their schema properties.
    func writeFields(of table: Table, at position: Int, layout: CurrentTableLayout) throws(BriefcaseError) {
        let keys = Set(layout.keyColumns)
        for (column, field) in table.fields.enumerated() {
            try insertField!.run([.integer(Int64(position)), .integer(Int64(column)), .text(codePage.decodeForDisplay(field.name)),
                                  .text(field.type.name), .integer(Int64(field.size)), .text(SQLiteMapping.declaredType(field.type)),
                                  .integer(keys.contains(column) ? 1 : 0), layout.refusal == nil ? .text(layout.columns[column]) : .null])
        }
        if let schema = table.schema {
            try writeSchema(schema.fields, section: "field", element: position)
            try writeSchema(schema.parameters, section: "parameter", element: position)
        }
    }

    /// The current-rows table of `table` (its stored rows replayed with `delta`), and, when the
    /// delta has changes, the stored rows its changes update or delete (the others are current
    /// rows as they are, and all of them are in the element's bytes: not stored twice); returns
    /// the `stored_table` and `row_ids` of its element.
    func writeCurrentRows(of table: Table, named name: String, layout: CurrentTableLayout, delta: Delta?,
                          position: Int) throws(BriefcaseError) -> (stored: SQLValue, rowIDs: SQLValue) {
        guard let delta, !delta.changes.isEmpty else {
            let byKey = try createAndFill(name, layout: layout, rows: InsertedRows(table))
            return (.null, .text(byKey ? "key" : "position"))
        }
        let replayed = timed(phases, .replay) { ReplayedTable(table, delta: delta) }
        let slots = replayed.touchedSlots
        let storedName = SQLiteMapping.storedRowsTable(position: position)
        try createTable(storedName, layout: layout, primaryKey: false)
        _ = try insert(.values(slots.map { table.rows[$0] }), into: storedName, layout: layout, primaryKey: false, rowIDs: slots.map { Int64($0) + 1 })
        let byKey = try createAndFill(name, layout: layout, rows: replayed.current)
        return (.text(storedName), .text(byKey ? "key" : "position"))
    }

    /// The stored rows a replay updated or deleted (row i has rowid i + 1 in `_briefcase_stored_N`), in order.
    static func touchedSlots(_ replay: DeltaReplay, storedRows: Int) -> [Int] {
        var touched = Set(replay.changes.compactMap { $0.outcome == .updated ? $0.slot : nil })
        for (slot, row) in replay.slots.prefix(storedRows).enumerated() where row == nil { touched.insert(slot) }
        return touched.filter { $0 < storedRows }.sorted()
    }

    /// A delta that came after its table, written without it: the table's element read back,
    /// its current-rows table made again with the delta.
    mutating func attach(_ delta: Delta, toTableAt position: Int) throws(BriefcaseError) {
        let lookup = try database.prepare("SELECT current_table FROM _briefcase_elements WHERE position = ?1")
        try lookup.bind(.integer(Int64(position)), at: 1)
        let current = try lookup.step() ? lookup.value(at: 0).text : nil
        lookup.reset() // a statement still running would keep the table from being dropped
        guard let name = current,
              let bytes = try database.readBlob(table: SQLiteMapping.elementsTable, column: "bin2", rowID: Int64(position)) else { return }
        var warnings: [DecodingWarning] = []
        guard case .table(let table)? = try BriefcaseDocument.decode(bytes, as: .bin2, warnings: &warnings).file.stream.elements.first else {
            return
        }
        let layout = CurrentTableLayout(table: table, codePage: codePage)
        try database.execute("DROP TABLE \(SQLiteDatabase.quote(name))")
        let (stored, rowIDs) = try writeCurrentRows(of: table, named: name, layout: layout, delta: delta, position: position)
        try database.prepare("UPDATE _briefcase_elements SET stored_table = ?1, row_ids = ?2 WHERE position = ?3")
            .run([stored, rowIDs, .integer(Int64(position))])
    }

    private func writeSchema(_ items: [[SchemaProperty]], section: String, element: Int) throws(BriefcaseError) {
        for (item, properties) in items.enumerated() {
            for (position, property) in properties.enumerated() {
                try insertSchema!.run([.integer(Int64(element)), .text(section), .integer(Int64(item)), .integer(Int64(position)),
                                       .text(codePage.decodeForDisplay(property.name)),
                                       property.value.map { .text(String(decoding: $0.bytes, as: UTF8.self)) } ?? .null])
            }
        }
    }

    /// Creates the current-rows table with its primary key and fills it with `rows`; when SQLite
    /// refuses a key (NULL, the same key twice, a non-integer in the rowid alias), the same table
    /// without one. Returns whether the rowid is the key (else row i has rowid i + 1).
    private func createAndFill(_ name: String, layout: CurrentTableLayout, rows: InsertedRows) throws(BriefcaseError) -> Bool {
        // SQLite's rowid alias (a single INTEGER key) takes a NULL for "the next rowid", and
        // holds integers only (not a LargeUInt above 2^63 − 1, shown as REAL): checked here.
        let rowIDAlias = layout.keyColumns.count == 1 && layout.types[layout.keyColumns[0]] == "INTEGER"
        let aliasHoldsKeys = !rowIDAlias || rows.allIntegers(layout.keyColumns[0])
        guard !layout.keyColumns.isEmpty, layout.identityColumn == nil, aliasHoldsKeys else {
            try createTable(name, layout: layout, primaryKey: false)
            return try insert(rows, into: name, layout: layout, primaryKey: false)
        }
        try database.execute("SAVEPOINT briefcase_table")
        let byKey: Bool
        do throws(BriefcaseError) {
            try createTable(name, layout: layout, primaryKey: true)
            byKey = try insert(rows, into: name, layout: layout, primaryKey: true)
        } catch {
            guard database.failedOnConstraint else { throw error }
            try database.execute("ROLLBACK TO briefcase_table")
            try createTable(name, layout: layout, primaryKey: false)
            byKey = try insert(rows, into: name, layout: layout, primaryKey: false)
        }
        try database.execute("RELEASE briefcase_table")
        return byKey
    }

    func createTable(_ name: String, layout: CurrentTableLayout, primaryKey: Bool) throws(BriefcaseError) {
        var columns = layout.columns.indices.map { column in
            SQLiteDatabase.quote(layout.columns[column]) + " " + layout.types[column]
                + (primaryKey && layout.keyColumns.contains(column) ? " NOT NULL" : "")
        }
        if let identity = layout.identityColumn { columns.insert(SQLiteDatabase.quote(identity) + " INTEGER PRIMARY KEY", at: 0) }
        if primaryKey { columns.append("PRIMARY KEY (" + layout.keyColumns.map { SQLiteDatabase.quote(layout.columns[$0]) }.joined(separator: ", ") + ")") }
        try timed(phases, .views) { () throws(BriefcaseError) in
            try database.execute("CREATE TABLE \(SQLiteDatabase.quote(name)) (\(columns.joined(separator: ", ")))")
        }
    }

    // MARK: deltas

    /// A delta element: its exact bytes, logged fields and changes (old and new values as `cat`
    /// prints a row). Returns the delta with its changes decoded (`Changes.decodeStored`), for
    /// the replay that follows: its bytes are written from the changes as they were read.
    mutating func write(delta stored: Delta, at position: Int) throws(BriefcaseError) -> Delta {
        let name = codePage.decodeForDisplay(stored.name)
        let (bytes, checksum) = try elementBytes(.delta(stored))
        var delta = stored
        delta.changes.decodeStored()
        try writeElement([.integer(Int64(position)), .text("delta"), .text(name), .null, .null, .null, .null, .null,
                          .integer(Int64(delta.changes.count)), .integer(checksum)], bytes: bytes)
        try timed(phases, .views) { () throws(BriefcaseError) in try writeFieldsAndChanges(of: delta, at: position) }
        return delta
    }

    /// The logged fields of a delta (its changes decoded) and its changes.
    func writeFieldsAndChanges(of delta: Delta, at position: Int) throws(BriefcaseError) {
        let keys = Set(delta.keyFields.map { codePage.decodeForDisplay($0).asciiLowercased })
        for (column, field) in delta.loggedFields.enumerated() {
            let fieldName = codePage.decodeForDisplay(field.name)
            try insertField!.run([.integer(Int64(position)), .integer(Int64(column)), .text(fieldName), .text(field.type.name), .null,
                                  .text(SQLiteMapping.declaredType(field.type)), .integer(keys.contains(fieldName.asciiLowercased) ? 1 : 0), .null])
        }
        let columns = delta.loggedFields.map { FieldDescriptor(name: $0.name, type: $0.type) }
        // One printer for the delta (making one, with its 64 KiB buffer, per value list cost
        // more than printing the values); each value list is one JSON object, as `cat --format
        // jsonl` prints a row.
        // The two value lists are bound where their printers wrote them (no string made of
        // either): a fifth of → sqlite on delta-heavy data went to those strings and their copies.
        var oldPrinter = RowPrinter(sink: ArraySink(), columns: columns, codePage: codePage, format: .jsonl)
        var newPrinter = RowPrinter(sink: ArraySink(), columns: columns, codePage: codePage, format: .jsonl)
        let statement = insertChange!
        for (index, change) in delta.changes.enumerated() {
            defer { statement.reset() }
            try statement.bindInteger(Int64(position), at: 1)
            try statement.bindInteger(Int64(index), at: 2)
            try statement.bind(.text(change.type.description), at: 3)
            try statement.bindInteger(Int64(change.recordID), at: 4)
            try statement.bind(.text(change.status.description), at: 5)
            try statement.bind(.text(codePage.decodeForDisplay(change.message)), at: 6)
            try oldPrinter.withLine(change.oldValues) { (old) throws(BriefcaseError) in
                try newPrinter.withLine(change.newValues) { (new) throws(BriefcaseError) in
                    try Self.bindText(old, to: statement, at: 7)
                    try Self.bindText(new, to: statement, at: 8)
                    while try statement.step() {}
                }
            }
        }
    }

    /// UTF-8 `bytes` bound as text where they lie (`SQLITE_STATIC`: they must stay until the
    /// statement has run); bytes that are not UTF-8 as the text they decode to, repaired.
    private static func bindText(_ bytes: UnsafeBufferPointer<UInt8>, to statement: SQLiteStatement, at index: Int) throws(BriefcaseError) {
        guard let base = bytes.baseAddress, UTF8Validation.isValid(bytes) else {
            return try statement.bind(.text(String(decoding: bytes, as: UTF8.self)), at: index)
        }
        try statement.bindStatic(base, count: bytes.count, encoding: SQLITE_UTF8, at: index)
    }
}

extension String {
    /// ASCII letters lower-cased: how SQLite compares names.
    var asciiLowercased: String {
        String(decoding: utf8.map { (65...90).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
