import BriefcaseKit

/// A briefcase as `briefcase query` reads it (Spec/sqlite-mapping.md §6, "On demand"): a
/// database in memory holding what `SQLiteSink` writes, where every table of rows — each
/// current-rows table, each `_briefcase_stored_N`, and `_briefcase_elements` with its elements'
/// bytes — is a virtual table over the briefcase, read when a statement first reads it. The head,
/// fields, schema and pending changes (all small) are written as tables. A count over one table
/// of a large briefcase reads that table's element and nothing else.
package struct OnDemandDatabase {
    /// The connection (its virtual tables answer from `reader`).
    package let database: SQLiteDatabase
    let reader: OnDemandReader
    /// What could not be made, for standard error (a `X_stored` table whose name was taken).
    package let notes: [String]

    /// Its virtual tables, for a connection that holds this database among others
    /// (`VirtualTables.combining`).
    package var virtualTables: VirtualTables { reader.virtualTables }
    /// The first error reading a table met (SQLite passes on only its text).
    package var failure: BriefcaseError? { reader.virtualTables.failure }
    /// Whether a string read so far contradicts the code page the heads suggest: the database
    /// `SQLiteSink` writes from the briefcase read whole can then show text otherwise.
    package var contradictsHeads: Bool { reader.tables.contradictsHeads }
    /// The warnings of the elements read so far.
    package var warnings: [DecodingWarning] { reader.tables.warningsSoFar }

    /// The database of a binary briefcase opened element by element, its 8-bit text read in
    /// `encoding`, else in the code page its heads suggest (`contradictsHeads` tells whether a
    /// table read said otherwise); nil as below.
    package static func open(_ elements: BriefcaseElements, encoding: CodePage? = nil) throws(BriefcaseError) -> OnDemandDatabase? {
        let tables = BriefcaseTables(elements, encoding: encoding)
        return try open(tables, head: head(of: elements, tables: tables, encoding: encoding))
    }

    /// The head of `elements` read as `tables`: its 8-bit text in `encoding`, else in the code
    /// page the heads suggest.
    package static func head(of elements: BriefcaseElements, tables: BriefcaseTables, encoding: CodePage?) -> BriefcaseHead {
        BriefcaseHead(container: elements.container, codePage: encoding ?? tables.headsDetection?.detection.codePage ?? .utf8,
                      properties: elements.properties, headerPadding: elements.headerPadding)
    }

    /// The database of `tables`, its 8-bit text read in `head.codePage`; nil when an element's
    /// head cannot be read (reading the briefcase whole says why).
    package static func open(_ tables: BriefcaseTables, head: BriefcaseHead) throws(BriefcaseError) -> OnDemandDatabase? {
        let heads = tables.heads
        guard heads.allSatisfy({ $0 != nil }) else { return nil }
        let elements = heads.map { $0! }
        let pairing = ElementPairing(kinds: elements.map(\.kind), names: elements.map(\.name))
        let codePage = head.codePage
        let reader = OnDemandReader(tables: tables, codePage: codePage, partners: pairing.partner)
        for (i, element) in elements.enumerated() where element.kind == .delta {
            guard case .delta(var delta) = try tables.element(i) else { continue }
            delta.changes.decodeStored()  // (read once here, and again by each replay)
            reader.deltas[i] = delta
        }
        let database = try SQLiteDatabase(path: ":memory:", mode: .memory)
        var writer = SQLiteTableWriter(database: database, codePage: codePage)
        try writer.begin(head, elementsTable: false)
        try reader.virtualTables.register(on: database)
        var entries: [ElementsVirtualRows.Entry] = []
        for (i, element) in elements.enumerated() {
            let name = codePage.decodeForDisplay(element.name)
            switch element {
            case .table(let table):
                let sqlName = writer.names.table(named: name, at: i)
                let layout = CurrentTableLayout(table: table, codePage: codePage)
                try writer.writeFields(of: table, at: i, layout: layout)
                var stored: String?
                if layout.refusal == nil {
                    try reader.add(table: "rows_\(i)", named: sqlName, layout: layout, in: database) { rowsWanted throws(BriefcaseError) in
                        try reader.currentRows(i, ordered: rowsWanted)
                    }
                    if let delta = pairing.partner[i].flatMap({ reader.deltas[$0] }), !delta.changes.isEmpty {
                        stored = SQLiteMapping.storedRowsTable(position: i)
                        try reader.add(table: "stored_\(i)", named: stored!, layout: layout, in: database) { _ throws(BriefcaseError) in
                            try reader.storedRows(i)
                        }
                    }
                }
                entries.append(.init(kind: "table", name: name, currentTable: layout.refusal == nil ? sqlName : nil,
                                     storedTable: stored, note: layout.refusal, changes: nil))
            case .delta:
                try writer.writeFieldsAndChanges(of: reader.deltas[i]!, at: i)
                entries.append(.init(kind: "delta", name: name, currentTable: nil, storedTable: nil, note: nil,
                                     changes: reader.deltas[i]!.changes.count))
            }
        }
        // Each table's stored rows, as the file holds them, beside its current rows (`X_stored`),
        // where no table took the name.
        var notes: [String] = []
        var taken = Set(entries.compactMap { $0.currentTable?.asciiLowercased })
        for (i, entry) in entries.enumerated() {
            guard let current = entry.currentTable, case .table(let table) = elements[i] else { continue }
            let name = current + "_stored"
            guard taken.insert(name.asciiLowercased).inserted else {
                notes.append("\(name): the name is taken, so \(current)'s stored rows have no such table (_briefcase_elements.bin2 holds them)")
                continue
            }
            try reader.add(table: "all_\(i)", named: name, layout: CurrentTableLayout(table: table, codePage: codePage), in: database) {
                _ throws(BriefcaseError) in try reader.allStoredRows(i)
            }
        }
        let rows = ElementsVirtualRows(entries: entries, reader: reader)
        reader.virtualTables.add(VirtualTable(declaration: "CREATE TABLE x(\(SQLiteTableWriter.elementsColumns))",
                                              types: ["INTEGER", "TEXT", "TEXT", "TEXT", "TEXT", "TEXT", "TEXT", "INTEGER", "INTEGER", "BLOB", "INTEGER"],
                                              rowIDColumn: 0, read: { _ in rows }, prepare: rows.prepare), as: "elements")
        try database.execute("CREATE VIRTUAL TABLE \(SQLiteMapping.elementsTable) USING \(VirtualTables.module)(elements)")
        try writer.finish()
        return OnDemandDatabase(database: database, reader: reader, notes: notes)
    }
}

/// The briefcase behind an `OnDemandDatabase`'s virtual tables: each table decoded once, when
/// first read (its rows views into the file), its current rows made then.
final class OnDemandReader {
    let tables: BriefcaseTables
    let codePage: CodePage
    /// Each element's partner (`ElementPairing`): a table's delta, a delta's table.
    let partners: [Int?]
    /// Every delta, its changes decoded.
    var deltas: [Int: Delta] = [:]
    let virtualTables = VirtualTables()
    private var decoded: [Int: Table] = [:]
    private var current: [Int: TableVirtualRows] = [:]
    /// Each table's replay (`ReplayedTable`), made once for its current rows and `_briefcase_stored_N`.
    private var replays: [Int: ReplayedTable] = [:]

    init(tables: BriefcaseTables, codePage: CodePage, partners: [Int?]) {
        self.tables = tables
        self.codePage = codePage
        self.partners = partners
    }

    /// A virtual table `name` in `database`, its rows `read` when first wanted.
    func add(table argument: String, named name: String, layout: CurrentTableLayout, in database: SQLiteDatabase,
             read: @escaping (_ rowsWanted: Bool) throws(BriefcaseError) -> any VirtualRows) throws(BriefcaseError) {
        let identity = layout.identityColumn.map { [SQLiteDatabase.quote($0) + " INTEGER"] } ?? []
        let columns = identity + layout.columns.indices.map { SQLiteDatabase.quote(layout.columns[$0]) + " " + layout.types[$0] }
        virtualTables.add(VirtualTable(declaration: "CREATE TABLE x(\(columns.joined(separator: ", ")))",
                                       types: (layout.identityColumn == nil ? [] : ["INTEGER"]) + layout.types,
                                       rowIDColumn: layout.identityColumn == nil ? nil : 0, read: read), as: argument)
        try database.execute("CREATE VIRTUAL TABLE \(SQLiteDatabase.quote(name)) USING \(VirtualTables.module)(\(argument))")
    }

    /// The table element at `i`, decoded.
    func table(_ i: Int) throws(BriefcaseError) -> Table {
        if let table = decoded[i] { return table }
        guard case .table(let table) = try tables.element(i, alongside: nil) else {
            throw BriefcaseError(.invalidModel, "internal: element \(i) is not a table")
        }
        decoded[i] = table
        return table
    }

    /// The element at `i` as the stream holds it (a delta with its changes decoded).
    func element(_ i: Int) throws(BriefcaseError) -> Element {
        if let delta = deltas[i] { return .delta(delta) }
        return .table(try table(i))
    }

    /// The current rows of the table at `i`; `ordered`, their rowid order worked out as the
    /// table is read (side by side with the check of its strings), else when first needed.
    func currentRows(_ i: Int, ordered: Bool = true) throws(BriefcaseError) -> TableVirtualRows {
        if let rows = current[i] { return rows }
        let delta = partners[i].flatMap { deltas[$0] }, layout = { CurrentTableLayout(table: $0, codePage: self.codePage) }
        let image = ValueImage(codePage: codePage)
        var made: (ReplayedTable, TableVirtualRows)?
        if decoded[i] == nil && ordered {
            // The rows replayed and put in rowid order while the table's strings are checked, on
            // two cores: both before the first row.
            guard case .table(let table) = try tables.element(i, alongside: { element in
                guard case .table(let table) = element else { return }
                let replayed = ReplayedTable(table, delta: delta)
                made = (replayed, .current(replayed.current, layout: layout(table), image: image))
                made!.1.orderRows()
            }) else { throw BriefcaseError(.invalidModel, "internal: element \(i) is not a table") }
            decoded[i] = table
        }
        if made == nil {
            let table = try table(i)
            let replayed = self.replayed(i, table)
            made = (replayed, .current(replayed.current, layout: layout(table), image: image))
        }
        replays[i] = made!.0
        current[i] = made!.1
        return made!.1
    }

    /// The table at `i` with its delta replayed, once.
    private func replayed(_ i: Int, _ table: Table) -> ReplayedTable {
        if let replayed = replays[i] { return replayed }
        let replayed = ReplayedTable(table, delta: partners[i].flatMap { deltas[$0] })
        replays[i] = replayed
        return replayed
    }

    /// Every stored row of the table at `i` (row i with rowid i + 1).
    func allStoredRows(_ i: Int) throws(BriefcaseError) -> TableVirtualRows {
        let table = try table(i)
        return TableVirtualRows.stored(table, slots: nil, layout: CurrentTableLayout(table: table, codePage: codePage), image: ValueImage(codePage: codePage))
    }

    /// The stored rows of the table at `i` its pending delta updated or deleted.
    func storedRows(_ i: Int) throws(BriefcaseError) -> TableVirtualRows {
        let table = try table(i)
        return TableVirtualRows.stored(table, slots: replayed(i, table).touchedSlots, layout: CurrentTableLayout(table: table, codePage: codePage),
                                       image: ValueImage(codePage: codePage))
    }
}
