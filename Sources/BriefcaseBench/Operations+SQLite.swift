import BriefcaseKit
import BriefcaseSQLite

/// The SQLite conversions the bench measures, as `briefcase convert` does them.
enum SQLiteBench {
    /// dabriefcase → sqlite: the element reader into `SQLiteSink`, one table at a time.
    /// With `phases`, the writer's time is gathered phase by phase.
    static func toSQLite(_ input: String, _ path: String, jobs: Int, phases: SQLiteWritePhases? = nil) throws {
        BriefcaseElements.keepFreedMemoryForReuse()
        let elements = try BriefcaseElements.open(input, as: .dabriefcase)
        var sink = SQLiteSink(path: path, replacing: true)  // (what an interrupted run left is replaced)
        sink.phases = phases
        _ = try elements.read(into: &sink, encoding: nil, skipDamaged: false, jobs: jobs)
    }

    /// The phases `clock` timed, and the rest of `total`: reading and decoding the input (on
    /// this thread, or waiting for the elements decoded ahead), opening, pairing.
    static func phases(_ clock: SQLiteWritePhases, total: UInt64) -> [PhaseTime] {
        let timed = SQLiteWritePhases.Phase.allCases.map { PhaseTime(name: $0.label, nanoseconds: clock.nanoseconds[$0.rawValue]) }
        let rest = total - min(total, timed.reduce(0) { $0 + $1.nanoseconds })
        return timed + [PhaseTime(name: "read and decode the input, and the rest (ours)", nanoseconds: rest)]
    }

    /// sqlite → dabriefcase: `SQLiteSource` (edits looked for in every table) into the stream writer.
    static func fromSQLite(_ database: String, _ path: String) throws {
        var sink = BinarySink(output: FileSink(path: path), container: .dabriefcase)
        try SQLiteSource(path: database).read(into: &sink)
        sink.output.close()
    }

    /// `name` as an SQL identifier.
    static func quote(_ name: String) -> String { SQLiteDatabase.quote(name) }

    /// The table of `input` with the most rows: what the query operations ask about.
    static func largestTable(_ input: String) throws -> String {
        let elements = try BriefcaseElements.open(input, as: .dabriefcase)
        var largest: (name: String, rows: Int)?
        var warnings: [DecodingWarning] = []
        for i in elements.elements.indices where elements.elements[i].kind == .table {
            guard case .table(let table) = try elements.decode(i, warnings: &warnings) else { continue }
            if table.rows.count > largest?.rows ?? -1 { largest = (elements.elements[i].label, table.rows.count) }
        }
        guard let largest else { System.fail("query: no table") }
        return largest.name
    }

    /// `sql` over `input` as `briefcase query INPUT SQL` answers it: the briefcase's tables as
    /// virtual tables (`OnDemandDatabase`), each read when the statement reads it; its first value
    /// when `firstRowOnly` (the time to the first row), else the number of rows.
    static func query(_ input: String, _ sql: String, firstRowOnly: Bool) throws -> [SQLValue] {
        let elements = try BriefcaseElements.open(input, as: .dabriefcase)
        guard let database = try OnDemandDatabase.open(elements) else { System.fail("query: an element's head does not read") }
        var query = try SQLiteQuery(sql, in: database.database)
        var rows: [SQLValue] = []
        while let row = try query.next() {
            rows.append(row[0])
            if firstRowOnly { break }
        }
        return rows
    }
}
