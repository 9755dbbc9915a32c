import Foundation
import Testing
import BriefcaseKit
import BriefcaseSQLite
import BriefcaseTestSupport

/// A current-rows table nobody edited is read without making values of its rows (the rows SQLite
/// gives back are compared with the bytes they were written from); any edit, of any value of
/// any type, must still be seen. Random briefcases (every type, NULLs, NaN, -0.0, keys and
/// keyless tables, pending deltas) are edited with the sqlite3 shell, one value or one row at a
/// time: reading back must report an edit of that table or refuse the value — never give the
/// briefcase back as it was.
@Suite(.enabled(if: SQLiteTesting.sqlite3Present, "sqlite3 is not installed (apt-get install sqlite3)"))
struct SQLiteUneditedTests {
    /// The SQL tables of the current rows, with their columns.
    static func currentTables(_ db: String) throws -> [(table: String, columns: [String])] {
        try SQLiteTesting.rows(db, "SELECT current_table FROM _briefcase_elements WHERE current_table IS NOT NULL ORDER BY position")
            .map { $0["current_table"] as! String }
            .map { table in
                let quoted = table.replacingOccurrences(of: "'", with: "''")
                let columns = try SQLiteTesting.rows(db, "SELECT name FROM pragma_table_info('\(quoted)')").map { $0["name"] as! String }
                return (table, columns)
            }
    }

    static func quote(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// A change of the value whatever it holds, keeping its length where it has one: NULL
    /// becomes 1, an integer its complement, a REAL its negation (0 becomes 1.5), text and blobs
    /// another first byte (empty ones gain one).
    static func changing(_ column: String) -> String {
        let c = quote(column)
        let text = "(CASE WHEN substr(\(c), 1, 1) = 'x' THEN 'y' ELSE 'x' END || substr(\(c), 2))"
        func repeated(_ letter: String) -> String { "CAST(printf('%.*c', length(\(c)), '\(letter)') AS BLOB)" }
        let blob = "CASE WHEN length(\(c)) = 0 THEN x'00' WHEN \(c) = \(repeated("a")) THEN \(repeated("b")) ELSE \(repeated("a")) END"
        return "CASE typeof(\(c)) WHEN 'null' THEN 1 WHEN 'integer' THEN ~\(c) WHEN 'real' THEN CASE WHEN \(c) = 0 THEN 1.5 ELSE -\(c) END "
            + "WHEN 'text' THEN \(text) ELSE \(blob) END"
    }

    /// Reading `db` back either reports edits of `table` or refuses the database.
    static func expectSeen(_ db: String, table: String, _ what: String) throws -> Bool {
        do {
            let (_, edits) = try SQLiteTesting.read(db)
            #expect(edits.contains { $0.table == table && $0.hasEdits }, "\(what): the edit was not seen")
            return true
        } catch {
            return false
        }
    }

    @Test func everyEditOfARandomBriefcaseIsSeen() throws {
        let scratch = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        var random = SplitMix(seed: 29)
        var seen = 0, refused = 0
        for i in 0 ..< 60 {
            let document = RandomBriefcase.make(&random)
            // (A random table may name two fields `ID`; a delta's values are then replayed into
            // the first by name, and the briefcase is not one a reader can take back.)
            let namesRepeat = document.file.stream.elements.contains { element in
                guard let table = element.asTable else { return false }
                return Set(table.fields.map(\.name)).count < table.fields.count
            }
            if namesRepeat { continue }
            let base = scratch.appendingPathComponent("r\(i).sqlite").path
            // (Random 8-bit text is not all UTF-8.)
            try SQLiteTesting.export(document, codePage: .windows1252, to: base)
            // Unedited: no edits, the same briefcase.
            let (back, edits) = try SQLiteTesting.read(base)
            #expect(!edits.contains { $0.hasEdits }, "random briefcase \(i): edits reported in a database nobody edited")
            #expect(try BriefcaseFileCodec.encode(back.file) == BriefcaseFileCodec.encode(document.file), "random briefcase \(i)")
            for (table, columns) in try Self.currentTables(base) {
                let count = Int(try SQLiteTesting.sqlite3(base, "SELECT count(*) FROM \(Self.quote(table))").trimmingCharacters(in: .whitespacesAndNewlines))!
                guard count > 0 else { continue }
                let edited = scratch.appendingPathComponent("e.sqlite").path
                let row = "(SELECT rowid FROM \(Self.quote(table)) ORDER BY rowid LIMIT 1 OFFSET \(random.below(count)))"
                let column = columns[random.below(columns.count)]
                let sqls = ["UPDATE \(Self.quote(table)) SET \(Self.quote(column)) = \(Self.changing(column)) WHERE rowid = \(row)",
                            "DELETE FROM \(Self.quote(table)) WHERE rowid = \(row)",
                            // (The last row with the next rowid: the rows read alike, in the same order.)
                            "UPDATE \(Self.quote(table)) SET rowid = rowid + 1 WHERE rowid = (SELECT max(rowid) FROM \(Self.quote(table)))",
                            "INSERT INTO \(Self.quote(table)) SELECT * FROM \(Self.quote(table)) WHERE rowid = \(row)"]
                for sql in sqls {
                    try? FileManager.default.removeItem(atPath: edited)
                    try FileManager.default.copyItem(atPath: base, toPath: edited)
                    // (An INSERT of a copy fails on a primary key: nothing to read back then.)
                    guard (try? SQLiteTesting.sqlite3(edited, sql)) != nil else { continue }
                    if try Self.expectSeen(edited, table: table, "random briefcase \(i), \(sql)") { seen += 1 } else { refused += 1 }
                }
            }
        }
        // Most edits fit their fields and become pending changes; some are refused (text in a
        // date, a key that would repeat…), which is also seeing them.
        #expect(seen > 80 && refused > 0, "seen \(seen), refused \(refused)")
    }
}
