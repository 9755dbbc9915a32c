import Foundation
import Testing
import BriefcaseKit
import BriefcaseSQLite
import BriefcaseTestSupport

/// Rows inserted, updated and deleted with SQL (the sqlite3 shell) in a table's current rows come
/// back as that table's pending changes; expected deltas are written by hand from the fixtures'
/// models (Sources/FixtureMaker/main.swift) and the rules of Spec/change-tracking.md §4.
@Suite(.enabled(if: SQLiteTesting.sqlite3Present, "sqlite3 is not installed (apt-get install sqlite3)"))
struct SQLiteEditTests {
    static func original(_ fixture: String) throws -> BriefcaseDocument {
        var warnings: [DecodingWarning] = []
        let path = SamplePaths.fixtures.appendingPathComponent(fixture).path
        return try BriefcaseDocument.decode(FileIO.read(path), as: ExpectedFiles.container(of: fixture), warnings: &warnings)
    }

    /// Exports `fixture`, runs `sql` on the database with sqlite3, reads it back.
    static func edited(_ fixture: String, _ sql: String) throws -> (BriefcaseDocument, [SQLiteSource.TableEdits]) {
        let dir = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("edited.sqlite").path
        try SQLiteTesting.export(SamplePaths.fixtures.appendingPathComponent(fixture).path, as: ExpectedFiles.container(of: fixture), to: db)
        try SQLiteTesting.sqlite3(db, sql)
        return try SQLiteTesting.read(db)
    }

    static func money(_ scaled: Int64) -> Value { .currency(Currency(scaled: scaled)) }

    /// orders.bin2 holds Alice (1, 12.5), Bob (2, 7) and Carol (3, 100), and a reduced delta keyed
    /// on ID: 1100 updates Bob (7 → 8, shipped → 45000.25), 1101 deletes Carol, 1102 inserts Dora.
    @Test func insertUpdateDeleteOnTopOfThePendingDelta() throws {
        let (document, edits) = try Self.edited("orders.bin2", """
            UPDATE Orders SET Amount = '20.25' WHERE ID = 1;
            DELETE FROM Orders WHERE ID = 2;
            INSERT INTO Orders VALUES (7, 'Eve', '1.5', '2024-01-02 03:04:05');
            UPDATE Orders SET Customer = 'Dora!' WHERE ID = 4;
            """)
        #expect(edits == [SQLiteSource.TableEdits(table: "Orders", inserts: 1, updates: 2, deletes: 1)])
        let original = try Self.original("orders.bin2")
        let delta = try #require(document.file.stream.elements[0].asDelta, "the delta is not first any more")
        let before = try #require(original.file.stream.elements[0].asDelta)
        // The stored rows stay as they were.
        #expect(document.file.stream.elements.count == 2)
        #expect(document.file.stream.elements[1] == original.file.stream.elements[1])
        #expect(delta.loggedFields == before.loggedFields && delta.keyFields == before.keyFields && delta.reducedDeltaFlag == 1)
        let none: [Value?] = [nil, nil, nil, nil]
        // 2024-01-02 is OLE day 45293 (2024-01-01 is 45292); 03:04:05 is 11 045 s of the day.
        let eveShipped = Value.dateTime(OLEDateTime(Double(45293 * 86_400_000 + 11_045_000) / 86_400_000))
        let expected: [DeltaChange] = [
            // Bob had a pending update: deleting him turns it into a delete with his stored values.
            DeltaChange(type: .delete, recordID: 1100, oldValues: [.integer(2), .wide("Bob"), Self.money(70000), nil], newValues: none),
            DeltaChange(type: .delete, recordID: 1101, oldValues: [.integer(3), .wide("Carol"), Self.money(1_000_000), .dateTime(OLEDateTime(45001))],
                        newValues: none),
            // Dora's pending insert carries her new name.
            DeltaChange(type: .insert, recordID: 1102, oldValues: none, newValues: [.integer(4), .wide("Dora!"), Self.money(50000), nil]),
            // Reduced update with a key: the key and the changed field on both sides.
            DeltaChange(type: .update, recordID: 1103, oldValues: [.integer(1), nil, Self.money(125000), nil],
                        newValues: [.integer(1), nil, Self.money(202500), nil]),
            DeltaChange(type: .insert, recordID: 1104, oldValues: none, newValues: [.integer(7), .wide("Eve"), Self.money(15000), eveShipped]),
        ]
        #expect(delta.changes.count == expected.count)
        for (index, change) in delta.changes.enumerated() where index < expected.count {
            #expect(change == expected[index], "change \(index)")
        }
        // What the app sees now: the delta replayed over the stored rows.
        let table = try #require(document.file.stream.elements[1].asTable)
        #expect(table.applying(delta).rows.map { $0[0] } == [.integer(1), .integer(4), .integer(7)])
    }

    /// A table without a delta gets a new, full one, right before it; every other element stays.
    @Test func newDeltaBeforeItsTableOthersUntouched() throws {
        let (document, edits) = try Self.edited("unsafe-names.daBriefcase", "UPDATE \"a/b\" SET Name = 'x' WHERE ID = 1")
        #expect(edits == [SQLiteSource.TableEdits(table: "a/b", inserts: 0, updates: 1, deletes: 0)])
        var elements = try Self.original("unsafe-names.daBriefcase").file.stream.elements
        let delta = Delta(name: ByteString(utf8: "a/b"),
                          loggedFields: [LoggedField(name: ByteString(utf8: "ID"), type: .integer), LoggedField(name: ByteString(utf8: "Name"), type: .wideString)],
                          keyFields: [ByteString(utf8: "ID")], reducedDeltaFlag: 0, changes: [
                              DeltaChange(type: .update, recordID: 1100, oldValues: [.integer(1), .wide("a/b")], newValues: [.integer(1), .wide("x")]),
                          ])
        elements.insert(.delta(delta), at: 1) // the tables: ../../escape, a/b, …
        #expect(document.file.stream.elements == elements)
        #expect(try document.encode().count > 0)
    }

    @Test(arguments: [
        ("UPDATE AllTypes SET SmallInt = 40000 WHERE AutoInc = 2147483647", "field 'SmallInt': 40000 is out of range for datSmallInt"),
        ("UPDATE AllTypes SET Integer = 'abc' WHERE AutoInc = 2147483647", "field 'Integer': 'abc' (text) does not fit a field of type datInteger"),
        ("UPDATE AllTypes SET Boolean = 2 WHERE AutoInc = 2147483647", "field 'Boolean': a Boolean is 0 or 1, not 2"),
        ("UPDATE AllTypes SET Currency = '1.23456' WHERE AutoInc = 2147483647", "field 'Currency': '1.23456' is not a Currency"),
        ("UPDATE AllTypes SET DateTime = 'soon' WHERE AutoInc = 2147483647", "field 'DateTime': 'soon' is not a date and time"),
        ("UPDATE AllTypes SET Blob = 'text' WHERE AutoInc = 2147483647", "field 'Blob': 'text' (text) does not fit a field of type datBlob"),
        // What `validate` would find wrong is refused too: a GUID that is not hexadecimal, a NaN date.
        ("UPDATE AllTypes SET Guid = 'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz' WHERE AutoInc = 2147483647", "field 'Guid': a GUID is 36 characters XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX"),
        ("UPDATE AllTypes SET DateTime = 'NaN' WHERE AutoInc = 2147483647", "field 'DateTime': 'NaN' is not a date and time"),
        ("UPDATE AllTypes SET DateTime = 2958466.5 WHERE AutoInc = 2147483647", "field 'DateTime': 2958466.5 is not a date .NET can hold"),
    ])
    func valuesThatDoNotFitAreRefused(sql: String, message: String) throws {
        let error = try #require(throws: BriefcaseError.self) { _ = try Self.edited("all-types.daBriefcase", sql) }
        #expect(error.kind == .invalidData && error.element == "AllTypes" && error.message.contains("row with rowid 2147483647: \(message)"),
                "\(error)")
    }

    /// A database with triggers and views is read, never written: its bytes stay, the briefcase
    /// comes back, a query that would write is refused.
    @Test func triggersAndViewsNeverRun() throws {
        let dir = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fixture = SamplePaths.fixtures.appendingPathComponent("orders.bin2").path
        let db = dir.appendingPathComponent("hostile.sqlite").path
        try SQLiteTesting.export(fixture, as: .bin2, to: db)
        try SQLiteTesting.sqlite3(db, """
            CREATE TABLE log (what TEXT);
            CREATE TRIGGER spy AFTER UPDATE ON Orders BEGIN INSERT INTO log VALUES ('updated'); END;
            CREATE TRIGGER spy2 AFTER INSERT ON _briefcase_elements BEGIN DELETE FROM Orders; END;
            CREATE VIEW bobs AS SELECT * FROM Orders WHERE Customer = 'Bob';
            """)
        let bytes = try FileIO.read(db)
        let (document, edits) = try SQLiteTesting.read(db)
        #expect(edits.isEmpty)
        #expect(try document.encode() == FileIO.read(fixture))
        let database = try SQLiteDatabase(path: db, mode: .readOnly)
        let refusal = try #require(throws: SQLiteQuery.Refusal.self) { try SQLiteQuery("UPDATE Orders SET Amount = '1'", in: database) }
        let writes = if case .writes = refusal { true } else { false }
        #expect(writes, "refused as \(refusal), not as a statement that writes")
        var view = try SQLiteQuery("SELECT ID FROM bobs", in: database)
        #expect(try view.next() == [.integer(2)])
        #expect(try FileIO.read(db) == bytes)
        #expect(try SQLiteTesting.sqlite3(db, "SELECT count(*) FROM log") == "0\n")
    }

    /// A query in memory joins two briefcase tables and reads the changes.
    @Test func queryJoinsTables() throws {
        let path = SamplePaths.fixtures.appendingPathComponent("unsafe-names.daBriefcase").path
        var sink = SQLiteSink(path: nil)
        _ = try BriefcaseElements.open(path, as: .dabriefcase).read(into: &sink, encoding: nil, skipDamaged: false)
        // ../../escape holds (0, '../../escape'), a/b (1, 'a/b'), CON (3, 'CON'); Orders (4, 'Orders') and
        // its pending insert (99, 'new').
        var join = try SQLiteQuery("SELECT a.Name, c.Name AS other FROM \"a/b\" a JOIN CON c ON c.ID = a.ID + 2", in: sink.database!)
        #expect(join.columns == ["Name", "other"])
        #expect(try join.next() == [.text("a/b"), .text("CON")])
        #expect(try join.next() == nil)
        var changes = try SQLiteQuery("""
            SELECT o.ID, c.type, c.record_id FROM Orders o
            JOIN _briefcase_changes c ON json_extract(c.new_values, '$.ID') = o.ID ORDER BY o.ID
            """, in: sink.database!)
        #expect(try changes.next() == [.integer(99), .text("insert"), .integer(1100)])
        #expect(try changes.next() == nil)
    }

    /// 8-bit text written with SQL is stored in the briefcase's code page (GBK bytes from the
    /// fixture maker's table: 课程名称 = bf ce b3 cc c3 fb b3 c6); text the code page cannot hold
    /// is refused.
    @Test func eightBitTextInTheBriefcasesCodePage() throws {
        let dir = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let gbk = CodePage(name: "gbk")!
        let table = Table(name: "Courses", fields: [FieldDescriptor(name: "ID", type: .integer), FieldDescriptor(name: "Name", type: .string, size: 20)],
                          rows: [[.integer(1), .ansiString(ByteString([0xca, 0xfd, 0xbe, 0xdd, 0xbf, 0xe2, 0xd4, 0xad, 0xc0, 0xed]))]])
        let document = BriefcaseDocument(container: .dabriefcase, file: BriefcaseFile(stream: Bin2Stream(elements: [.table(table)])))
        let db = dir.appendingPathComponent("gbk.sqlite").path
        try SQLiteTesting.export(document, codePage: gbk, to: db)
        #expect(try SQLiteTesting.sqlite3(db, "SELECT Name FROM Courses") == "数据库原理\n")
        try SQLiteTesting.sqlite3(db, "INSERT INTO Courses VALUES (2, '课程名称')")
        let (edited, _) = try SQLiteTesting.read(db)
        let delta = try #require(edited.file.stream.elements.first?.asDelta, "no delta before the table")
        #expect(delta.changes.map(\.newValues) == [[.integer(2), .ansiString(ByteString([0xbf, 0xce, 0xb3, 0xcc, 0xc3, 0xfb, 0xb3, 0xc6]))]])
        try SQLiteTesting.sqlite3(db, "UPDATE Courses SET Name = 'smile 😀' WHERE ID = 1")
        let error = try #require(throws: BriefcaseError.self) { _ = try SQLiteTesting.read(db) }
        #expect(error.kind == .invalidData && error.element == "Courses" && error.file == db
                && error.message.contains("row with rowid 1: field 'Name': the text 'smile 😀' cannot be written in code page gbk"), "\(error)")
    }

    /// A collector that asks for every head first (as the folder and snapshot writers do): the
    /// source then plans the edits before it begins, instead of handing elements as it goes.
    struct HeadsFirst: ForwardingSink {
        var inner = BriefcaseCollector()
        var needs: SinkNeeds { SinkNeeds(headsFirst: true) }
        mutating func prepare(heads: [Element]) throws(BriefcaseError) -> [Int]? { nil }
    }

    /// Both ways of reading give the same briefcase, edits included: a delta before its table,
    /// a table without one, a delta after its table.
    @Test func headsFirstOrAsTheyComeTheSame() throws {
        let cases: [(String, String)] = [
            ("orders.bin2", "UPDATE Orders SET Amount = '1' WHERE ID = 1; DELETE FROM Orders WHERE ID = 4; INSERT INTO Orders (ID) VALUES (9)"),
            ("unsafe-names.daBriefcase", "UPDATE \"a/b\" SET Name = 'x'; DELETE FROM Orders WHERE ID = 99; INSERT INTO CON VALUES (7, 'y')"),
            ("nulls.daBriefcase", "UPDATE Wide SET C3 = 'changed' WHERE rowid = 1"),
        ]
        let dir = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (fixture, sql) in cases {
            let db = dir.appendingPathComponent("\(fixture).sqlite").path
            try SQLiteTesting.export(SamplePaths.fixtures.appendingPathComponent(fixture).path, as: ExpectedFiles.container(of: fixture), to: db)
            try SQLiteTesting.sqlite3(db, sql)
            let (asTheyCome, edits) = try SQLiteTesting.read(db)
            #expect(!edits.isEmpty, "\(fixture)")
            var headsFirst = HeadsFirst()
            let planned = try SQLiteSource(path: db).read(into: &headsFirst)
            #expect(planned.sorted { $0.table < $1.table } == edits.sorted { $0.table < $1.table }, "\(fixture)")
            #expect(headsFirst.inner.document == asTheyCome, "\(fixture)")
            #expect(asTheyCome != (try Self.original(fixture)), "\(fixture)")
        }
    }
}
