import Foundation
import Testing
@testable import BriefcaseSQLite
import BriefcaseKit
import BriefcaseTestSupport

/// `briefcase query`'s database read on demand (virtual tables) answers as the database
/// `SQLiteSink` writes — the one `convert` makes and `query` built before — does: the same rows in
/// the same order, the same storage classes, the same lookups, for every table of every fixture,
/// both samples and random briefcases (NaN, -0.0, keys alike, keyless tables, deltas of every kind).
@Suite struct OnDemandDatabaseTests {
    /// A value as a string that tells every storage class and every bit apart (-0.0 from 0.0).
    static func canonical(_ value: SQLValue) -> String {
        switch value {
        case .null: return "null"
        case .integer(let i): return "i:\(i)"
        case .real(let r): return "r:\(r.bitPattern)"
        case .text(let t): return "t:" + t.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: ",")
        case .blob(let b): return "b:" + b.map { String($0, radix: 16) }.joined(separator: ",")
        }
    }

    /// Every row `sql` gives (`bound` bound to ?1), canonical.
    static func answer(_ database: SQLiteDatabase, _ sql: String, _ bound: SQLValue? = nil) throws -> [String] {
        let statement = try database.prepare(sql)
        if let bound, sql.contains("?1") { try statement.bind(bound, at: 1) }
        var rows: [String] = []
        while try statement.step() {
            rows.append((0 ..< statement.columnCount).map { canonical(statement.value(at: $0)) }.joined(separator: " | "))
        }
        return rows
    }

    /// The full database and the one read on demand answer alike: every table SQLite holds in the
    /// full one (and `_briefcase_elements`), whole, counted, by rowid, and by each column's values
    /// (as they are, and as text: another storage class SQLite converts by affinity).
    static func expectSameAnswers(_ full: SQLiteDatabase, _ onDemand: SQLiteDatabase, _ label: String) throws {
        let list = "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite%' ORDER BY name"
        let names = try full.prepare(list).allTexts()
        #expect(!names.isEmpty, "\(label): no table")
        // The same tables, and each current-rows table's stored rows (`X_stored`).
        let tables = try full.prepare("SELECT current_table, stored_table FROM _briefcase_elements WHERE current_table IS NOT NULL")
        var pairs: [(current: String, stored: String?)] = []
        while try tables.step() { pairs.append((tables.value(at: 0).text!, tables.value(at: 1).text)) }
        let storedTables = pairs.map { $0.current + "_stored" }.filter { name in !names.contains { $0.lowercased() == name.lowercased() } }
        #expect(try onDemand.prepare(list).allTexts() == (names + storedTables).sorted(), "\(label): the same tables")
        for (current, touched) in pairs where storedTables.contains(current + "_stored") {
            let stored = SQLiteDatabase.quote(current + "_stored")
            if let touched {
                // The stored rows the pending changes touch are those rows of all the stored rows.
                let some = try answer(full, "SELECT rowid, * FROM \(SQLiteDatabase.quote(touched))")
                let all = try answer(onDemand, "SELECT rowid, * FROM \(stored)")
                #expect(some.allSatisfy(all.contains), "\(label): \(stored)")
            } else {
                // No pending change: the stored rows are the current rows.
                #expect(try answer(onDemand, "SELECT * FROM \(stored)").sorted() == answer(full, "SELECT * FROM \(SQLiteDatabase.quote(current))").sorted(),
                        "\(label): \(stored)")
            }
        }
        for name in names {
            let table = SQLiteDatabase.quote(name)
            let whole = "SELECT rowid AS rid_, * FROM \(table)"
            let rows = try answer(full, whole)
            #expect(try answer(onDemand, whole) == rows, "\(label): \(name)")
            #expect(try answer(onDemand, "SELECT count(*) FROM \(table)") == answer(full, "SELECT count(*) FROM \(table)"), "\(label): \(name)")
            #expect(try answer(onDemand, "\(whole) ORDER BY rowid DESC") == answer(full, "\(whole) ORDER BY rowid DESC"), "\(label): \(name)")
            let first = try full.prepare("SELECT rowid AS rid_, * FROM \(table) LIMIT 1")
            guard try first.step() else { continue }
            let byRowID = "\(whole) WHERE rowid = ?1"
            #expect(try answer(onDemand, byRowID, first.value(at: 0)) == answer(full, byRowID, first.value(at: 0)), "\(label): \(name) rowid")
            for column in 1 ..< first.columnCount {
                let value = first.value(at: column)
                let quoted = SQLiteDatabase.quote(first.columnName(column))
                for sql in ["\(whole) WHERE \(quoted) = ?1", "\(whole) WHERE \(quoted) = CAST(?1 AS TEXT)",
                            "SELECT count(*) FROM \(table) a JOIN \(table) b ON a.\(quoted) = b.\(quoted) WHERE ?1 IS NOT NULL"] {
                    #expect(try answer(onDemand, sql, value) == answer(full, sql, value), "\(label): \(name).\(first.columnName(column)): \(sql)")
                }
            }
        }
    }

    /// Both databases of a binary briefcase on disk.
    static func databases(_ path: String, as container: ContainerFormat, encoding: CodePage? = nil) throws -> (SQLiteDatabase, SQLiteDatabase) {
        var sink = SQLiteSink(path: nil)
        _ = try BriefcaseElements.open(path, as: container).read(into: &sink, encoding: encoding, skipDamaged: false)
        let onDemand = try #require(try OnDemandDatabase.open(try BriefcaseElements.open(path, as: container), encoding: encoding))
        #expect(!onDemand.contradictsHeads)
        return (sink.database!, onDemand.database)
    }

    @Test(arguments: SQLiteTesting.briefcases.map(\.0))
    func answersAsTheDatabaseWritten(_ path: String) throws {
        let container = SQLiteTesting.briefcases.first { $0.0 == path }!.1
        let (full, onDemand) = try Self.databases(path, as: container)
        try Self.expectSameAnswers(full, onDemand, path)
    }

    @Test func randomBriefcasesAnswerAlike() throws {
        let scratch = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        var random = SplitMix(seed: 28)
        for i in 0 ..< 150 {
            let document = RandomBriefcase.make(&random)
            let path = scratch.appendingPathComponent("r\(i)").path
            try Data(try BriefcaseFileCodec.encode(document.file)).write(to: URL(fileURLWithPath: path))
            let container: ContainerFormat = .dabriefcase
            // (Random 8-bit text is not all UTF-8: one code page for both.)
            let (full, onDemand) = try Self.databases(path, as: container, encoding: .windows1252)
            try Self.expectSameAnswers(full, onDemand, "random briefcase \(i)")
        }
    }

    /// A document in memory (a JSON input) read on demand answers as one written.
    @Test func documentsAnswerAlike() throws {
        var random = SplitMix(seed: 2828)
        for i in 0 ..< 60 {
            let document = RandomBriefcase.make(&random)
            var sink = SQLiteSink(path: nil)
            try document.read(into: &sink, codePage: .windows1252)
            let head = BriefcaseHead(container: document.container, codePage: .windows1252, properties: document.file.properties,
                                     headerPadding: document.file.headerPadding)
            let onDemand = try #require(try OnDemandDatabase.open(BriefcaseTables(document), head: head))
            try Self.expectSameAnswers(sink.database!, onDemand.database, "random document \(i)")
        }
    }
}

extension OnDemandDatabaseTests {
    /// A table whose rowid is its key gives its rows in key order, as SQLite scans an INTEGER
    /// PRIMARY KEY table, however they are stored; a lookup by key or by a column finds them.
    @Test func keyTablesScanInKeyOrder() throws {
        let schema = Schema(fields: [[SchemaProperty("Name", "ID"), SchemaProperty("InPrimaryKey", "True")],
                                     [SchemaProperty("Name", "Name"), SchemaProperty("InPrimaryKey", "False")]])
        let table = Table(name: "T", schema: schema, fields: [FieldDescriptor(name: "ID", type: .integer), FieldDescriptor(name: "Name", type: .wideString)],
                          rows: [[.integer(30), .wideString(WideText.encode("c"))], [.integer(10), .wideString(WideText.encode("a"))],
                                 [.integer(20), .wideString(WideText.encode("b"))]])
        let document = BriefcaseDocument(container: .dabriefcase, file: BriefcaseFile(stream: Bin2Stream(elements: [.table(table)])))
        let database = try #require(try OnDemandDatabase.open(BriefcaseTables(document), head: BriefcaseHead(container: .dabriefcase, codePage: .utf8))).database
        #expect(try Self.answer(database, "SELECT rowid, ID, Name FROM T") == ["i:10 | i:10 | t:61", "i:20 | i:20 | t:62", "i:30 | i:30 | t:63"])
        #expect(try Self.answer(database, "SELECT Name FROM T WHERE ID = 20") == ["t:62"])
        #expect(try Self.answer(database, "SELECT Name FROM T WHERE ID = '20'") == ["t:62"])  // (INTEGER affinity makes '20' 20)
        #expect(try Self.answer(database, "SELECT ID FROM T WHERE Name = 'c'") == ["i:30"])
        #expect(try Self.answer(database, "SELECT row_ids, rows FROM _briefcase_elements") == ["t:6b,65,79 | i:3"])
        #expect(try Self.answer(database, "SELECT ID FROM T ORDER BY ID DESC") == ["i:30", "i:20", "i:10"])
    }
}

extension SQLiteStatement {
    /// The first column of every row, as text.
    func allTexts() throws -> [String] {
        var texts: [String] = []
        while try step() { if case .text(let text) = value(at: 0) { texts.append(text) } }
        return texts
    }
}
