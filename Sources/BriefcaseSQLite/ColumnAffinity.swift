import BriefcaseKit
import CSQLite

/// SQLite's affinity of a declared type (the rules of "Datatypes In SQLite", §3.1), which a value
/// written into a table of that type takes.
enum ColumnAffinity: Int {
    case integer, text, blob, real, numeric

    init(_ declared: String) {
        let type = declared.uppercased()
        if type.contains("INT") { self = .integer }
        else if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") { self = .text }
        else if type.contains("BLOB") || type.isEmpty { self = .blob }
        else if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") { self = .real }
        else { self = .numeric }
    }

    var declared: String { ["INTEGER", "TEXT", "BLOB", "REAL", "NUMERIC"][rawValue] }
}

/// A value as a column of a table stores it and reads it back — what a virtual table gives where
/// `SQLiteSink` would have written the value into a table (Spec/sqlite-mapping.md §6). The common
/// cases are answered here: a value of the column's own class, -0.0 in a REAL column (SQLite writes
/// a whole REAL as an integer, which reads back as 0.0). The rare others — text in a numeric
/// column, a number in a text column, a REAL in an INTEGER or NUMERIC one (a pending change of
/// a field of another type, an OLE date outside years 1–9999) — are written into a table of
/// SQLite's own and read back, so that SQLite's rules decide, not a copy of them.
final class StoredValues {
    private var database: SQLiteDatabase?
    private var statements: [ColumnAffinity: (write: SQLiteStatement, read: SQLiteStatement)] = [:]

    func stored(_ value: SQLValue, _ affinity: ColumnAffinity) -> SQLValue {
        switch (value, affinity) {
        case (.null, _), (.blob, _), (_, .blob), (.integer, .integer), (.integer, .numeric), (.text, .text): return value
        case (.real(let real), .real): return real == 0 ? .real(0) : value
        // (Only text of digits, signs, points, exponents and spaces can read as a number.)
        case (.text(let text), _) where !text.utf8.allSatisfy({ (0x30...0x39).contains($0) || Self.numberBytes.contains($0) }): return value
        default: return (try? storedBySQLite(value, affinity)) ?? value
        }
    }

    private static let numberBytes: Set<UInt8> = Set("+-.eE \t\n\r\u{0B}\u{0C}".utf8)

    private func storedBySQLite(_ value: SQLValue, _ affinity: ColumnAffinity) throws(BriefcaseError) -> SQLValue {
        if database == nil {
            let made = try SQLiteDatabase(path: ":memory:", mode: .memory)
            try made.execute("CREATE TABLE t (i INTEGER, t TEXT, b BLOB, r REAL, n NUMERIC)")
            try made.execute("INSERT INTO t VALUES (NULL, NULL, NULL, NULL, NULL)")
            database = made
        }
        if statements[affinity] == nil {
            let column = ["i", "t", "b", "r", "n"][affinity.rawValue]
            statements[affinity] = (try database!.prepare("UPDATE t SET \(column) = ?1"), try database!.prepare("SELECT \(column) FROM t"))
        }
        let (write, read) = statements[affinity]!
        try write.run([value])
        defer { read.reset() }
        guard try read.step() else { return value }
        return read.value(at: 0)
    }
}
