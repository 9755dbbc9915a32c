import Foundation
import Testing
import BriefcaseKit
import BriefcaseSQLite
import BriefcaseTestSupport

/// Every table with fields is visible in SQLite whatever its names (Spec/sqlite-mapping.md §2):
/// under its own name when SQLite can take it, else `POSITION:NAME`; fields likewise
/// (`INDEX:NAME`); a field named like SQLite's rowid leaves the row id to another of its names.
/// Expected names follow the rules written out by hand; values come from the documents built here.
@Suite(.enabled(if: SQLiteTesting.sqlite3Present, "sqlite3 is not installed (apt-get install sqlite3)"))
struct SQLiteNamingTests {
    static func table(_ name: String, _ fields: [String], rows: [Row]) -> Element {
        .table(Table(name: ByteString(utf8: name), fields: fields.map { FieldDescriptor(name: ByteString(utf8: $0), type: .integer) }, rows: Rows(rows)))
    }

    static let elements: [Element] = [
        table("Orders", ["ID"], rows: [[.integer(1)]]),
        table("orders", ["ID"], rows: [[.integer(2)]]),                       // taken without case
        table("_briefcase_elements", ["A"], rows: [[.integer(3)]]),           // the mapping's
        table("sqlite_stat1", ["A"], rows: [[.integer(4)]]),                  // SQLite's
        table("nul\u{0}name", ["A"], rows: [[.integer(5)]]),                  // NUL
        table("Empty", [], rows: []),                                         // no fields: no table
        table("Twice", ["a", "A", "b"], rows: [[.integer(6), .integer(7), .integer(8)]]),
        table("RowIDs", ["rowid", "_ROWID_", "oid", "x"], rows: [[.integer(9), .integer(10), .integer(11), .integer(12)]]),
        table("Rowid", ["rowid", "y"], rows: [[.integer(13), .integer(14)], [.integer(15), .integer(16)]]),
        table("4:nul␀name", ["A"], rows: [[.integer(17)]]),                    // its own name, taken by then
    ]

    static func exported(in dir: URL) throws -> String {
        let db = dir.appendingPathComponent("names.sqlite").path
        let document = BriefcaseDocument(container: .bin2, file: BriefcaseFile(stream: Bin2Stream(elements: elements)))
        try SQLiteTesting.export(document, to: db)
        return db
    }

    @Test func everyTableWithFieldsHasAnSQLTable() throws {
        let dir = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.exported(in: dir)
        #expect(try SQLiteTesting.sqlite3(db, "SELECT position, ifnull(current_table, '-') FROM _briefcase_elements ORDER BY position") == """
            0|Orders
            1|1:orders
            2|2:_briefcase_elements
            3|3:sqlite_stat1
            4|4:nul␀name
            5|-
            6|Twice
            7|RowIDs
            8|Rowid
            9|9:4:nul␀name

            """)
        #expect(try SQLiteTesting.sqlite3(db, "SELECT ID FROM \"1:orders\"") == "2\n")
        #expect(try SQLiteTesting.sqlite3(db, "SELECT A FROM \"3:sqlite_stat1\"") == "4\n")
        #expect(try SQLiteTesting.sqlite3(db, "SELECT A FROM \"9:4:nul␀name\"") == "17\n")
        #expect(try SQLiteTesting.sqlite3(db, "SELECT name FROM pragma_table_info('Twice')") == "a\n1:A\nb\n")
        #expect(try SQLiteTesting.sqlite3(db, "SELECT a, \"1:A\", b FROM Twice") == "6|7|8\n")
        // All three of SQLite's names for the row id taken: an id column of the mapping's own first.
        #expect(try SQLiteTesting.sqlite3(db, "SELECT name FROM pragma_table_info('RowIDs')") == "_briefcase_row\nrowid\n_ROWID_\noid\nx\n")
        #expect(try SQLiteTesting.sqlite3(db, "SELECT rowid, y FROM Rowid ORDER BY _rowid_") == "13|14\n15|16\n")
        #expect(try SQLiteTesting.sqlite3(db, "SELECT ifnull(note, '-') FROM _briefcase_elements WHERE position IN (1, 5) ORDER BY position") == """
            -
            the table has no fields (an SQL table has at least one column)

            """)
        #expect(try SQLiteTesting.sqlite3(db, "SELECT name, sql_name FROM _briefcase_fields WHERE element = 6 ORDER BY position") == "a|a\nA|1:A\nb|b\n")
        // Unedited, the briefcase comes back as it was.
        #expect(try SQLiteTesting.read(db).0.file.stream.elements == Self.elements)
    }

    /// Edits of tables under derived names come back as their pending changes; the second table
    /// of a name (without case), when no delta of the name comes before it, cannot take edits: a
    /// new delta would be the first table's (Spec/bin2.md §8.10);
    /// nor can the second of two fields named alike but for case (a delta logs fields by name).
    @Test func editsOfRenamedTablesComeBack() throws {
        let dir = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.exported(in: dir)
        try SQLiteTesting.sqlite3(db, """
            UPDATE "3:sqlite_stat1" SET A = 40;
            UPDATE Twice SET b = 80;
            INSERT INTO RowIDs (rowid, _ROWID_, oid, x) VALUES (1, 2, 3, 4);
            DELETE FROM Rowid WHERE rowid = 13;
            """)
        let (document, edits) = try SQLiteTesting.read(db)
        #expect(edits.map(\.table) == ["3:sqlite_stat1", "Twice", "RowIDs", "Rowid"])
        #expect(edits.map { [$0.inserts, $0.updates, $0.deletes] } == [[0, 1, 0], [0, 1, 0], [1, 0, 0], [0, 0, 1]])
        var current: [String: [Row]] = [:]
        for case .table(let table) in document.file.stream.elements {
            let delta = document.file.stream.delta(named: table.name)
            current[String(decoding: table.name.bytes, as: UTF8.self)] = delta.map { table.applying($0).rows } ?? table.rows.array
        }
        #expect(current["sqlite_stat1"] == [[.integer(40)]])
        #expect(current["Twice"] == [[.integer(6), .integer(7), .integer(80)]])
        #expect(current["RowIDs"] == [[.integer(9), .integer(10), .integer(11), .integer(12)], [.integer(1), .integer(2), .integer(3), .integer(4)]])
        #expect(current["Rowid"] == [[.integer(15), .integer(16)]])

        // A delta names fields without case: it cannot tell Twice's A from its a.
        try SQLiteTesting.sqlite3(db, "UPDATE Twice SET \"1:A\" = 70")
        let notLogged = try #require(throws: BriefcaseError.self) { _ = try SQLiteTesting.read(db) }
        #expect(notLogged.kind == .invalidData && notLogged.element == "Twice" && notLogged.file == db
                && notLogged.message.contains("the edits cannot be recorded as pending changes: field 'A' is not logged by the delta"), "\(notLogged)")
        try SQLiteTesting.sqlite3(db, "UPDATE Twice SET \"1:A\" = 7; UPDATE \"1:orders\" SET ID = 20")
        let sameName = try #require(throws: BriefcaseError.self) { _ = try SQLiteTesting.read(db) }
        #expect(sameName.kind == .invalidData && sameName.file == db
                && sameName.message.contains("table '1:orders' was edited, but a new pending delta for it would be another table's"), "\(sameName)")
    }

    /// Two tables and two deltas of one name: the k-th table takes the k-th delta (Spec/bin2.md
    /// §8.10), in SQL as in `info` and `cat`; the second table's edits join its own delta.
    @Test func eachTableOfANameShowsItsOwnDelta() throws {
        let dir = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fields = [FieldDescriptor(name: "N", type: .integer)]
        let logged = [LoggedField(name: "N", type: .integer)]
        func insert(_ n: Int64, id: Int32) -> DeltaChange { DeltaChange(type: .insert, recordID: id, oldValues: [nil], newValues: [.integer(n)]) }
        let elements: [Element] = [
            .table(Table(name: "A", fields: fields, rows: [[.integer(1)]])),
            .delta(Delta(name: "a", loggedFields: logged, reducedDeltaFlag: 0, changes: [insert(2, id: 1100)])),
            .table(Table(name: "a", fields: fields, rows: [[.integer(10)]])),
            .delta(Delta(name: "A", loggedFields: logged, reducedDeltaFlag: 0, changes: [insert(20, id: 1100)])),
        ]
        let document = BriefcaseDocument(container: .bin2, file: BriefcaseFile(stream: Bin2Stream(elements: elements)))
        let db = dir.appendingPathComponent("pairs.sqlite").path
        try SQLiteTesting.export(document, to: db)
        #expect(try SQLiteTesting.sqlite3(db, "SELECT N FROM A ORDER BY N") == "1\n2\n")
        #expect(try SQLiteTesting.sqlite3(db, "SELECT N FROM \"2:a\" ORDER BY N") == "10\n20\n")
        #expect(try SQLiteTesting.read(db).0 == document)
        try SQLiteTesting.sqlite3(db, "INSERT INTO \"2:a\" VALUES (30)")
        let (edited, edits) = try SQLiteTesting.read(db)
        #expect(edits.map(\.table) == ["2:a"])
        let second = try #require(edited.file.stream.elements[3].asDelta, "the fourth element is not a delta any more")
        #expect(second.changes.map(\.newValues) == [[.integer(20)], [.integer(30)]])
        #expect(Array(edited.file.stream.elements.prefix(3)) == Array(elements.prefix(3)))
    }
}
