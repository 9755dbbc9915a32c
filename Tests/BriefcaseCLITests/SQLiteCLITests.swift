import Foundation
import Testing
import BriefcaseTestSupport
import BriefcaseKit

/// `convert` to and from `sqlite` for every input format, and `query` (Spec/sqlite-mapping.md).
/// Expected outputs: the fixtures' checked documents in Fixtures/expected/, and rows written by
/// hand from orders.bin2's model (Sources/FixtureMaker/main.swift).
extension CLITests {
    static func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    /// Each valid fixture → sqlite → json gives its expected document; its expected JSON document and
    /// snapshot document → sqlite → the same format give the same bytes; → folder → sqlite → folder
    /// gives the folder's tables back.
    @Test func sqliteFromEveryInputFormat() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for fixture in ExpectedFiles.validFixtures {
            let stem = String(fixture.split(separator: ".")[0])
            let input = Self.fixtures.appendingPathComponent(fixture).path
            let expectedJSON = Self.fixtures.appendingPathComponent("expected/\(stem).json").path
            let expectedSnapshot = Self.fixtures.appendingPathComponent("expected/\(stem).snapshot.json").path
            func path(_ name: String) -> String { dir.appendingPathComponent("\(stem)-\(name)").path }

            #expect(try Self.run(["convert", input, path("a.sqlite")]).status == 0, "\(fixture)")
            #expect(try Self.run(["convert", path("a.sqlite"), path("a.json")]).status == 0, "\(fixture)")
            #expect(Self.contents(path("a.json")) == Self.contents(expectedJSON), "\(fixture) → sqlite → json")

            #expect(try Self.run(["convert", expectedJSON, path("b.sqlite")]).status == 0, "\(fixture)")
            #expect(try Self.run(["convert", path("b.sqlite"), path("b.json")]).status == 0, "\(fixture)")
            #expect(Self.contents(path("b.json")) == Self.contents(expectedJSON), "json → sqlite → json: \(fixture)")

            #expect(try Self.run(["convert", expectedSnapshot, path("c.sqlite")]).status == 0, "\(fixture)")
            #expect(try Self.run(["convert", path("c.sqlite"), path("c.snapshot.json")]).status == 0, "\(fixture)")
            #expect(Self.contents(path("c.snapshot.json")) == Self.contents(expectedSnapshot), "snapshot → sqlite → snapshot: \(fixture)")

            guard ExpectedFiles.container(of: fixture) == .dabriefcase else { continue }
            #expect(try Self.run(["convert", input, path("d.briefcase")]).status == 0, "\(fixture)")
            #expect(try Self.run(["convert", path("d.briefcase"), path("d.sqlite")]).status == 0, "\(fixture)")
            #expect(try Self.run(["convert", path("d.sqlite"), path("e.briefcase")]).status == 0, "\(fixture)")
            let tables = try FileManager.default.contentsOfDirectory(atPath: path("d.briefcase")).sorted()
            #expect(try FileManager.default.contentsOfDirectory(atPath: path("e.briefcase")).sorted() == tables)
            for name in tables where name.hasSuffix(".daBriefcase") {
                #expect(Self.contents(path("e.briefcase/\(name)")) == Self.contents(path("d.briefcase/\(name)")), "folder → sqlite → folder: \(fixture) \(name)")
            }
        }
    }

    @Test(.enabled(if: samplesPresent, "../shared/briefcase-samples is absent"))
    func samplesThroughSQLiteByteForByte() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in SamplePaths.sampleNames {
            let sample = SamplePaths.samples.appendingPathComponent(name).path
            let db = dir.appendingPathComponent("\(name).sqlite").path, back = dir.appendingPathComponent(name).path
            #expect(try Self.run(["convert", sample, db]).status == 0)
            let result = try Self.run(["convert", db, back])
            #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
            #expect(Self.contents(back) == Self.contents(sample), "\(name)")
        }
    }

    /// The README's examples on orders.bin2: query as a table, jsonl and csv as cat prints them.
    @Test func queryFormats() throws {
        let orders = Self.fixtures.appendingPathComponent("orders.bin2").path
        let table = try Self.run(["query", orders, "SELECT ID, Customer, Amount, Shipped FROM Orders ORDER BY ID", "--format", "table"])
        #expect(table.status == 0)
        #expect(table.text == """
            ID  Customer  Amount  Shipped
            --  --------  ------  -----------------------
             1  Alice     12.5    2023-03-15T12:00:00.000
             2  Bob       8       2023-03-15T06:00:00.000
             4  Dora 😀   5       NULL
            (3 rows)

            """)
        let everything = "SELECT * FROM Orders"
        for format in ["jsonl", "csv"] {
            let query = try Self.run(["query", orders, everything, "--format", format])
            let cat = try Self.run(["cat", orders, "--table", "Orders", "--format", format])
            #expect(query.status == 0 && cat.status == 0)
            #expect(query.text == cat.text, "\(format)")
        }
        let joined = try Self.run(["query", orders, """
            SELECT o.Customer, c.type, c.record_id FROM Orders o
            JOIN _briefcase_changes c ON json_extract(c.new_values, '$.ID') = o.ID ORDER BY o.ID
            """, "--format", "csv"])
        #expect(joined.text == "Customer,type,record_id\r\nBob,update,1100\r\nDora 😀,insert,1102\r\n")
    }

    @Test func queryNeverWritesItsInput() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("orders.sqlite").path
        #expect(try Self.run(["convert", Self.fixtures.appendingPathComponent("orders.bin2").path, db]).status == 0)
        let before = Self.contents(db)
        let write = try Self.run(["query", db, "DELETE FROM Orders"])
        #expect(write.status == 1 && write.stderr.contains("query only reads"))
        let several = try Self.run(["query", db, "SELECT 1; DROP TABLE Orders"])
        #expect(several.status == 2)
        let attach = try Self.run(["query", db, "ATTACH '\(dir.path)/new.db' AS other"])
        #expect(attach.status == 1 && attach.stderr.contains("not authorized") && attach.stderr.contains("attaches no file"), "\(attach.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(dir.path)/new.db"))
        let bad = try Self.run(["query", db, "SELEC nothing"])
        #expect(bad.status == 2 && bad.stderr.contains("syntax error"))
        #expect(Self.contents(db) == before)
        #expect(try Self.run(["query", db, "SELECT count(*) AS n FROM Orders"]).text == "{\"n\": 3}\n")
    }

    @Test func sqliteInputErrors() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = try Self.run(["convert", dir.appendingPathComponent("none.sqlite").path, dir.appendingPathComponent("x.json").path])
        #expect(missing.status == 2)
        let text = dir.appendingPathComponent("text.db").path
        FileManager.default.createFile(atPath: text, contents: Data("hello".utf8))
        let notSQLite = try Self.run(["convert", text, dir.appendingPathComponent("x.json").path])
        #expect(notSQLite.status == 1 && notSQLite.stderr.contains("not an SQLite 3 database"))
        let db = try Self.ordersDatabase(in: dir)
        // Recognised by content under any name.
        let renamed = dir.appendingPathComponent("orders.data").path
        try FileManager.default.copyItem(atPath: db, toPath: renamed)
        #expect(try Self.run(["info", renamed]).text.contains("Orders"))
    }

    /// An edit that does not fit: exit 1, one line naming the element, the row and the field; nothing written.
    @Test(.enabled(if: sqlite3Present, "sqlite3 is not installed"))
    func anEditThatDoesNotFitIsRefused() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.ordersDatabase(in: dir)
        #expect(try Self.sqlite3(db, "UPDATE Orders SET Shipped = 'tomorrow' WHERE ID = 1") == 0)
        let out = dir.appendingPathComponent("edited.bin2").path
        let refused = try Self.run(["convert", db, out])
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("briefcase: \(db): element 'Orders': row with rowid 1: field 'Shipped': 'tomorrow' is not a date and time")
                && refused.stderr.hasSuffix("\n") && refused.stderr.filter { $0 == "\n" }.count == 1, "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// A damaged database (cut short, bytes overwritten) is refused with one line, exit 1.
    @Test func damagedDatabasesRefused() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("all.sqlite").path
        #expect(try Self.run(["convert", Self.fixtures.appendingPathComponent("all-types.daBriefcase").path, db]).status == 0)
        let bytes = Self.contents(db)!
        let cut = dir.appendingPathComponent("cut.sqlite").path
        FileManager.default.createFile(atPath: cut, contents: Data(bytes.prefix(bytes.count / 3)))
        let converted = try Self.run(["convert", cut, dir.appendingPathComponent("x.json").path])
        #expect(converted.status == 1 && converted.stderr.contains("not a readable SQLite database"))
        #expect(converted.stderr.split(separator: "\n").count == 1)
        let queried = try Self.run(["query", cut, "SELECT * FROM AllTypes"])
        #expect(queried.status == 1 && queried.stderr.contains("not a readable SQLite database"))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.json").path))
    }

    /// `info` of a database shows what the briefcase stores, as `info` of the briefcase does
    /// (heads and counts, no row decoded).
    @Test func infoOfADatabaseAsOfItsBriefcase() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func withoutFormat(_ text: String) -> String {
            text.replacingOccurrences(of: #""format": "[a-z0-9]+""#, with: "", options: .regularExpression)
        }
        for fixture in ExpectedFiles.validFixtures {
            let input = Self.fixtures.appendingPathComponent(fixture).path
            let db = dir.appendingPathComponent("\(fixture).sqlite").path
            #expect(try Self.run(["convert", input, db]).status == 0)
            let original = try Self.run(["info", input, "--json"]), fromDatabase = try Self.run(["info", db, "--json"])
            #expect(fromDatabase.status == 0 && fromDatabase.text.contains(#""format": "sqlite""#), "\(fixture)")
            #expect(withoutFormat(fromDatabase.text) == withoutFormat(original.text), "\(fixture)")
        }
    }

    /// `info` of a database reads no row of its tables (Spec/sqlite-mapping.md §7): it shows the
    /// briefcase stored in `_briefcase_elements` — orders.bin2 stores 3 pending changes of Orders
    /// (Sources/FixtureMaker/main.swift) — even when the current-rows table was edited or is gone,
    /// which `convert` and `validate` then find.
    @Test(.enabled(if: sqlite3Present, "sqlite3 is not installed"))
    func infoOfADatabaseReadsNoRowsOfItsTables() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("orders.sqlite").path, back = dir.appendingPathComponent("back.daBriefcase").path
        #expect(try Self.run(["convert", Self.fixtures.appendingPathComponent("orders.bin2").path, db]).status == 0)
        let before = try Self.run(["info", db, "--json"]).text
        #expect(try Self.run(["-c", "/usr/bin/sqlite3 '\(db)' \"INSERT INTO Orders VALUES (9, 'Zed', '1.25', NULL)\""],
                             program: URL(fileURLWithPath: "/bin/sh")).status == 0)
        let info = try Self.run(["info", db])
        #expect(info.status == 0 && info.stderr.isEmpty)
        #expect(info.text.contains("Orders: 3 rows, 4 fields, delta with 3 changes"), "\(info.text)")
        // convert finds the edit.
        let converted = try Self.run(["convert", db, back])
        #expect(converted.status == 0 && converted.stderr.contains("table 'Orders': 1 inserted, 0 updated, 0 deleted row(s) recorded as pending changes"))
        #expect(try Self.run(["info", back]).text.contains("Orders: 3 rows, 4 fields, delta with 4 changes"))
        // The table gone: info the same; convert and validate refuse.
        #expect(try Self.run(["-c", "/usr/bin/sqlite3 '\(db)' \"DROP TABLE Orders\""], program: URL(fileURLWithPath: "/bin/sh")).status == 0)
        #expect(try Self.run(["info", db, "--json"]).text == before)
        let refused = try Self.run(["convert", db, dir.appendingPathComponent("x.json").path])
        #expect(refused.status == 1 && refused.stderr.contains("table 'Orders' is not in the database"), "\(refused.stderr)")
        #expect(try Self.run(["validate", db]).status == 1)
    }
}
