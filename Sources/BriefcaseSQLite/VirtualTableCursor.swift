import BriefcaseKit
import CSQLite

/// How a statement reads a virtual table (`xBestIndex`): every row in rowid order, the row of one
/// rowid, or the rows of one value of a column (an index made the first time it is used, as
/// SQLite makes an automatic index for a join). SQLite checks every constraint again on the rows
/// given (`omit` stays 0): a plan only has to give every row that can match, so a value it cannot
/// look up as SQLite would compare it (another storage class, another collation) makes it scan.
enum VirtualPlan {
    static let scan: Int32 = 0, rowID: Int32 = 1, column: Int32 = 2

    static func choose(for table: VirtualTable, rows: any VirtualRows, _ info: UnsafeMutablePointer<sqlite3_index_info>) {
        var chosen: (plan: Int32, constraint: Int)?
        for i in 0 ..< Int(info.pointee.nConstraint) {
            let constraint = info.pointee.aConstraint[i]
            guard constraint.usable != 0, Int32(constraint.op) == SQLITE_INDEX_CONSTRAINT_EQ else { continue }
            let column = Int(constraint.iColumn)
            if column < 0 || column == table.rowIDColumn {
                chosen = (rowID, i)
                break
            }
            guard chosen == nil, let collation = sqlite3_vtab_collation(info, Int32(i)),
                  String(cString: collation).uppercased() == "BINARY" else { continue }
            chosen = (Self.column + Int32(column), i)
        }
        let count = Double(max(rows.count, 1))
        if let (plan, constraint) = chosen {
            info.pointee.idxNum = plan
            info.pointee.aConstraintUsage[constraint].argvIndex = 1
            info.pointee.aConstraintUsage[constraint].omit = 0
            info.pointee.estimatedCost = plan == rowID ? 1 : 10 + count.squareRoot()
            info.pointee.estimatedRows = plan == rowID ? 1 : 10
        } else {
            info.pointee.idxNum = scan
            info.pointee.estimatedCost = count
            info.pointee.estimatedRows = sqlite3_int64(rows.count)
        }
        // Rows come in rowid order, whatever the plan: an ORDER BY of the rowid (or of the column
        // that orders the same) needs no sort.
        if info.pointee.nOrderBy == 1 {
            let term = info.pointee.aOrderBy[0]
            let column = Int(term.iColumn)
            if term.desc == 0 && (column < 0 || column == table.rowIDColumn || column == rows.orderingColumn) {
                info.pointee.orderByConsumed = 1
            }
        }
    }
}

/// A value as an equality index holds it: numbers as SQLite compares them (5 and 5.0 alike).
enum IndexKey: Hashable {
    case integer(Int64), real(Double), text([UInt8]), blob([UInt8])

    init?(_ value: SQLValue) {
        switch value {
        case .null: return nil
        case .integer(let i): self = .integer(i)
        case .real(let r): self = Self.number(r)
        case .text(let s): self = .text(Array(s.utf8))
        case .blob(let b): self = .blob(b)
        }
    }

    static func number(_ r: Double) -> IndexKey {
        r == r.rounded(.towardZero) && r >= -9.223372036854775808e18 && r < 9.223372036854775808e18 ? .integer(Int64(r)) : .real(r)
    }

    /// The value SQLite gives a plan, when it compares with a column of `affinity` as the index
    /// holds it (nil: look at every row; `.none`: no row can match, the value is NULL).
    static func lookup(_ value: OpaquePointer?, affinity: ColumnAffinity) -> IndexKey?? {
        switch (sqlite3_value_type(value), affinity) {
        case (SQLITE_NULL, _): return .some(nil)
        case (SQLITE_INTEGER, .integer), (SQLITE_INTEGER, .real), (SQLITE_INTEGER, .numeric): return .integer(sqlite3_value_int64(value))
        case (SQLITE_FLOAT, .integer), (SQLITE_FLOAT, .real), (SQLITE_FLOAT, .numeric): return number(sqlite3_value_double(value))
        case (SQLITE_TEXT, .text):
            let count = Int(sqlite3_value_bytes(value))
            guard let text = sqlite3_value_text(value) else { return .text([]) }
            return .text(Array(UnsafeBufferPointer(start: text, count: count)))
        case (SQLITE_BLOB, .blob):
            let count = Int(sqlite3_value_bytes(value))
            guard let blob = sqlite3_value_blob(value), count > 0 else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: blob, count: count)))
        default: return nil
        }
    }
}

/// A statement's walk over a virtual table.
final class VirtualCursor {
    let state: VirtualTableState
    private var rows: (any VirtualRows)?
    /// The places to give (a plan's lookup), or nil: every row, in rowid order.
    private var places: [Int32]?
    private var k = 0, end = 0

    init(_ state: VirtualTableState) { self.state = state }

    func filter(plan: Int32, _ values: [OpaquePointer?], vtab: UnsafeMutablePointer<sqlite3_vtab>?) -> Int32 {
        guard let rows = state.rows(vtab) else { return SQLITE_ERROR }
        self.rows = rows
        places = nil
        k = 0
        end = rows.count
        if plan == VirtualPlan.rowID, let value = values.first {
            switch IndexKey.lookup(value, affinity: .integer) {
            case .some(.some(.integer(let rowID))): places = rows.place(ofRowID: rowID).map { [Int32($0)] } ?? []
            case .some(.some): places = []  // a REAL that is no integer: no rowid
            case .some(.none): places = []
            case .none: break
            }
        } else if plan >= VirtualPlan.column, let value = values.first {
            let column = Int(plan - VirtualPlan.column)
            switch IndexKey.lookup(value, affinity: state.table.affinities[column]) {
            case .some(.some(let key)):
                do throws(BriefcaseError) {
                    places = try index(column, rows)[key] ?? []
                } catch {
                    state.tables.failed(error)
                    fail(vtab, error.description)
                    return SQLITE_ERROR
                }
            case .some(.none): places = []
            case .none: break
            }
        }
        if let places { end = places.count }
        return SQLITE_OK
    }

    private func index(_ column: Int, _ rows: any VirtualRows) throws(BriefcaseError) -> [IndexKey: [Int32]] {
        if let made = state.indexes[column] { return made }
        var index: [IndexKey: [Int32]] = [:]
        for k in 0 ..< rows.count {
            let place = rows.place(scanned: k)
            if let key = IndexKey(try state.cell(rows, place, column: column)) { index[key, default: []].append(Int32(place)) }
        }
        state.indexes[column] = index
        return index
    }

    func next() { k += 1 }
    var atEnd: Bool { k >= end }

    private var place: Int { places.map { Int($0[k]) } ?? rows!.place(scanned: k) }
    var rowID: Int64 { rows!.rowID(place) }

    func result(column: Int, _ context: OpaquePointer?, vtab: UnsafeMutablePointer<sqlite3_vtab>?) -> Int32 {
        do throws(BriefcaseError) {
            SQLiteResult.set(try state.cell(rows!, place, column: column), context)
            return SQLITE_OK
        } catch {
            state.tables.failed(error)
            sqlite3_result_error(context, error.description, -1)
            return SQLITE_ERROR
        }
    }
}

/// A function's or a virtual table's result.
enum SQLiteResult {
    static func set(_ value: SQLValue, _ context: OpaquePointer?) {
        switch value {
        case .null: sqlite3_result_null(context)
        case .integer(let i): sqlite3_result_int64(context, i)
        case .real(let r): sqlite3_result_double(context, r)
        case .text(var text):
            text.withUTF8 { buffer in
                let start = UnsafeRawPointer(buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self)
                sqlite3_result_text64(context, start, sqlite3_uint64(buffer.count), briefcase_sqlite_transient(), UInt8(SQLITE_UTF8))
            }
        case .blob(let bytes):
            bytes.withUnsafeBytes { buffer in
                sqlite3_result_blob64(context, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, sqlite3_uint64(buffer.count),
                                      briefcase_sqlite_transient())
            }
        }
    }
}
