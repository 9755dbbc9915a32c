import BriefcaseKit
import CSQLite

/// What a virtual table of `briefcase query` answers (Spec/sqlite-mapping.md §6, "On demand"):
/// its columns, and its rows once read. SQLite asks for the rows when it plans a statement that
/// reads the table (`xBestIndex`), so a table is read before the statement gives its first row,
/// and a table the statement does not read is never read.
package final class VirtualTable {
    /// `CREATE TABLE x(…)`: the columns and their declared types, as `sqlite3_declare_vtab` takes them.
    let declaration: String
    /// Each column's affinity (from its declared type).
    let affinities: [ColumnAffinity]
    /// Whether column 0 is the rowid (a table whose fields took SQLite's three names for it).
    let rowIDColumn: Int?
    /// Reads the rows; false: the statement asks for no column, rowid or order of them (a count).
    private let read: (_ rowsWanted: Bool) throws(BriefcaseError) -> any VirtualRows
    /// What a statement that reads these columns (`colUsed`, one bit each, the 64th for the
    /// 64th on) needs read before its first row, read when it is planned.
    let prepare: ((UInt64) throws(BriefcaseError) -> Void)?
    private var rows: (any VirtualRows)?

    init(declaration: String, types: [String], rowIDColumn: Int?, read: @escaping (_ rowsWanted: Bool) throws(BriefcaseError) -> any VirtualRows,
         prepare: ((UInt64) throws(BriefcaseError) -> Void)? = nil) {
        self.declaration = declaration
        affinities = types.map(ColumnAffinity.init)
        self.rowIDColumn = rowIDColumn
        self.read = read
        self.prepare = prepare
    }

    /// The rows, read the first time they are asked for.
    func readRows(rowsWanted: Bool = true) throws(BriefcaseError) -> any VirtualRows {
        if let rows { return rows }
        let read = try read(rowsWanted)
        rows = read
        return read
    }
}

/// The rows of a virtual table: places 0 ..< count, scanned in rowid order (as SQLite scans a
/// table of its own), each cell the SQL value a table written by `SQLiteSink` would hold.
protocol VirtualRows: AnyObject {
    var count: Int { get }
    /// The place of the row scanned `k`-th (rowid order).
    func place(scanned k: Int) -> Int
    func rowID(_ place: Int) -> Int64
    /// The place of the row with `rowID`, if any.
    func place(ofRowID rowID: Int64) -> Int?
    func cell(_ place: Int, column: Int) throws(BriefcaseError) -> SQLValue
    /// A column whose ascending order is the rowid's (a key that is the rowid), if any.
    var orderingColumn: Int? { get }
}

/// The virtual tables of one connection, by the argument their `CREATE VIRTUAL TABLE … USING
/// briefcase(ARGUMENT)` names; the first error reading one met, kept whole for the caller
/// (SQLite passes on only its text).
package final class VirtualTables {
    private var tables: [String: VirtualTable] = [:]
    /// How a table of SQLite's would hold each value.
    let storedValues = StoredValues()
    /// The first error a table's reading met.
    package private(set) var failure: BriefcaseError?

    func add(_ table: VirtualTable, as argument: String) { tables[argument] = table }
    /// Each input's tables on a connection that holds several inputs (`combining`), by schema
    /// name lower-cased; such a connection has no tables of its own.
    private var schemas: [String: VirtualTables] = [:]

    /// The table `argument` names in schema `schema`, and the tables it is one of. A schema that
    /// is not one of the connection's inputs read on demand has none: a `CREATE VIRTUAL TABLE …
    /// USING briefcase` in another database (an SQLite input) finds nothing.
    func table(_ argument: String, schema: String) -> (VirtualTables, VirtualTable)? {
        if schemas.isEmpty {
            guard schema.lowercased() == "main", let table = tables[argument] else { return nil }
            return (self, table)
        }
        guard let input = schemas[schema.lowercased()], let table = input.tables[argument] else { return nil }
        return (input, table)
    }

    /// A connection's tables that are `inputs`' (each read on demand), under their schema names.
    package static func combining(_ inputs: [(name: String, tables: VirtualTables)]) -> VirtualTables {
        let combined = VirtualTables()
        for (name, tables) in inputs { combined.schemas[name.lowercased()] = tables }
        return combined
    }
    func failed(_ error: BriefcaseError) { if failure == nil { failure = error } }

    /// The module's name in SQL.
    static let module = "briefcase"

    /// Registers the module on `database`, answering from `self` (kept until the connection closes).
    package func register(on database: SQLiteDatabase) throws(BriefcaseError) {
        let owner = Unmanaged.passRetained(self).toOpaque()
        let status = sqlite3_create_module_v2(database.handle, Self.module, virtualTableModule, owner) { owner in
            if let owner { Unmanaged<VirtualTables>.fromOpaque(owner).release() }
        }
        guard status == SQLITE_OK else { throw database.lastError() }
    }
}

/// The table and cursor objects behind SQLite's pointers.
private func table(_ vtab: UnsafeMutablePointer<sqlite3_vtab>?) -> VirtualTableState {
    let briefcase = UnsafeMutableRawPointer(vtab!).assumingMemoryBound(to: briefcase_vtab.self)
    return Unmanaged<VirtualTableState>.fromOpaque(briefcase.pointee.owner).takeUnretainedValue()
}

private func cursor(_ cursor: UnsafeMutablePointer<sqlite3_vtab_cursor>?) -> VirtualCursor {
    let briefcase = UnsafeMutableRawPointer(cursor!).assumingMemoryBound(to: briefcase_vtab_cursor.self)
    return Unmanaged<VirtualCursor>.fromOpaque(briefcase.pointee.owner).takeUnretainedValue()
}

/// One table as SQLite holds it: what answers for it, and where its errors are kept.
final class VirtualTableState {
    let table: VirtualTable
    let tables: VirtualTables
    /// Equality indexes made so far (`VirtualCursor`), by column: each value's places in rowid order.
    var indexes: [Int: [IndexKey: [Int32]]] = [:]
    init(table: VirtualTable, tables: VirtualTables) {
        self.table = table
        self.tables = tables
    }

    /// The value of column `column` of the row at `place`, as a table of SQLite's would hold it.
    func cell(_ rows: any VirtualRows, _ place: Int, column: Int) throws(BriefcaseError) -> SQLValue {
        tables.storedValues.stored(try rows.cell(place, column: column), table.affinities[column])
    }

    /// The rows, or nil with the error's text given to SQLite (and the error kept); with
    /// `columns`, what reading them needs read first.
    func rows(_ vtab: UnsafeMutablePointer<sqlite3_vtab>?, columns: UInt64? = nil, rowsWanted: Bool = true) -> (any VirtualRows)? {
        do throws(BriefcaseError) {
            let rows = try table.readRows(rowsWanted: rowsWanted)
            if let columns { try table.prepare?(columns) }
            return rows
        } catch {
            tables.failed(error)
            fail(vtab, error.description)
            return nil
        }
    }
}

func fail(_ vtab: UnsafeMutablePointer<sqlite3_vtab>?, _ message: String) {
    guard let vtab else { return }
    if let old = vtab.pointee.zErrMsg { sqlite3_free(old) }
    vtab.pointee.zErrMsg = briefcase_sqlite_message(message)
}

/// The module: read-only tables (no `xUpdate`), made and connected alike. SQLite keeps the pointer
/// it is given (it does not copy the module): the module lives in memory of its own for the
/// process's lifetime, never at a Swift variable's address.
nonisolated(unsafe) private let virtualTableModule: UnsafeMutablePointer<sqlite3_module> = {
    let pointer = UnsafeMutablePointer<sqlite3_module>.allocate(capacity: 1)
    pointer.initialize(to: makeModule())
    return pointer
}()

private func makeModule() -> sqlite3_module {
    var module = sqlite3_module()
    module.iVersion = 1
    let connect: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32, UnsafePointer<UnsafePointer<CChar>?>?,
                                 UnsafeMutablePointer<UnsafeMutablePointer<sqlite3_vtab>?>?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 = {
        db, owner, argc, argv, result, message in
        let tables = Unmanaged<VirtualTables>.fromOpaque(owner!).takeUnretainedValue()
        // argv: the module, the schema, the table, then the arguments (one: which table).
        guard argc == 4, let schema = argv?[1].map({ String(cString: $0) }), let argument = argv?[3].map({ String(cString: $0) }),
              let (tables, table) = tables.table(argument, schema: schema) else {
            message?.pointee = briefcase_sqlite_message("briefcase: no such virtual table")
            return SQLITE_ERROR
        }
        let status = sqlite3_declare_vtab(db, table.declaration)
        guard status == SQLITE_OK else { return status }
        briefcase_sqlite_vtab_innocuous(db)
        let vtab = UnsafeMutablePointer<briefcase_vtab>.allocate(capacity: 1)
        vtab.initialize(to: briefcase_vtab())
        vtab.pointee.owner = Unmanaged.passRetained(VirtualTableState(table: table, tables: tables)).toOpaque()
        result?.pointee = UnsafeMutableRawPointer(vtab).assumingMemoryBound(to: sqlite3_vtab.self)
        return SQLITE_OK
    }
    module.xCreate = connect
    module.xConnect = connect
    let disconnect: @convention(c) (UnsafeMutablePointer<sqlite3_vtab>?) -> Int32 = { vtab in
        let briefcase = UnsafeMutableRawPointer(vtab!).assumingMemoryBound(to: briefcase_vtab.self)
        Unmanaged<VirtualTableState>.fromOpaque(briefcase.pointee.owner).release()
        if let message = briefcase.pointee.base.zErrMsg { sqlite3_free(message) }
        briefcase.deinitialize(count: 1)
        briefcase.deallocate()
        return SQLITE_OK
    }
    module.xDisconnect = disconnect
    module.xDestroy = disconnect
    module.xBestIndex = { vtab, infoPointer in
        let state = table(vtab)
        let info = infoPointer!.pointee
        guard let rows = state.rows(vtab, columns: info.colUsed, rowsWanted: info.colUsed != 0 || info.nConstraint > 0 || info.nOrderBy > 0)
        else { return SQLITE_ERROR }
        VirtualPlan.choose(for: state.table, rows: rows, infoPointer!)
        return SQLITE_OK
    }
    module.xOpen = { vtab, result in
        let opened = UnsafeMutablePointer<briefcase_vtab_cursor>.allocate(capacity: 1)
        opened.initialize(to: briefcase_vtab_cursor())
        opened.pointee.owner = Unmanaged.passRetained(VirtualCursor(table(vtab))).toOpaque()
        result?.pointee = UnsafeMutableRawPointer(opened).assumingMemoryBound(to: sqlite3_vtab_cursor.self)
        return SQLITE_OK
    }
    module.xClose = { pointer in
        let briefcase = UnsafeMutableRawPointer(pointer!).assumingMemoryBound(to: briefcase_vtab_cursor.self)
        Unmanaged<VirtualCursor>.fromOpaque(briefcase.pointee.owner).release()
        briefcase.deinitialize(count: 1)
        briefcase.deallocate()
        return SQLITE_OK
    }
    module.xFilter = { pointer, plan, _, argc, argv in
        let values = (0 ..< Int(argc)).map { argv![$0] }
        return cursor(pointer).filter(plan: plan, values, vtab: pointer!.pointee.pVtab)
    }
    module.xNext = { pointer in
        cursor(pointer).next()
        return SQLITE_OK
    }
    module.xEof = { pointer in cursor(pointer).atEnd ? 1 : 0 }
    module.xColumn = { pointer, context, column in
        cursor(pointer).result(column: Int(column), context, vtab: pointer!.pointee.pVtab)
    }
    module.xRowid = { pointer, rowID in
        rowID?.pointee = cursor(pointer).rowID
        return SQLITE_OK
    }
    return module
}
