import Foundation
import Testing
import BriefcaseTestSupport

/// Databases that users and other programs wrote, read by the CLI (Spec/sqlite-mapping.md §5–§7):
/// schema edits refused with one line, `query`'s limits, WAL databases read without writing beside
/// them, damage found before any answer, derived names for tables SQLite cannot name as they are.
/// orders.bin2 (Sources/FixtureMaker/main.swift) holds Orders: current rows 1, 2 and 4.
extension CLITests {
    static var sqlite3Present: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3") }

    /// orders.bin2 exported to `name` in `dir`.
    static func ordersDatabase(in dir: URL, _ name: String = "orders.sqlite") throws -> String {
        let db = dir.appendingPathComponent(name).path
        #expect(try run(["convert", fixtures.appendingPathComponent("orders.bin2").path, db]).status == 0)
        return db
    }

    /// Runs the sqlite3 shell on `db` (each argument one command or SQL text); its exit status.
    @discardableResult
    static func sqlite3(_ db: String, _ commands: String...) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [db] + commands
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    static func files(in dir: URL) throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() }

    /// A column dropped with SQL: exit 1, one line naming the file, the element, the table and the
    /// column; nothing written; validate says invalid. (Before: exit 0, every row's Customer the
    /// text 'Customer', recorded as pending updates.)
    @Test(.enabled(if: sqlite3Present, "sqlite3 is not installed")) func aDroppedColumnIsRefusedNotReadAsItsName() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.ordersDatabase(in: dir)
        #expect(try Self.sqlite3(db, "ALTER TABLE Orders DROP COLUMN Customer") == 0)
        let out = dir.appendingPathComponent("out.json").path
        let result = try Self.run(["convert", db, out])
        #expect(result.status == 1)
        #expect(result.stderr == "briefcase: \(db): element 'Orders': table 'Orders' has no column 'Customer' (dropped, or renamed?): the briefcase's field keeps its column; put it back (the field 'Customer', datWideString)\n")
        #expect(!FileManager.default.fileExists(atPath: out))
        let cat = try Self.run(["cat", db, "--table", "Orders"])
        #expect(cat.status == 1 && cat.text.isEmpty)
        #expect(try Self.run(["validate", db]).status == 1)
    }

    /// A keyless table whose rowids VACUUM renumbered after a delete: a message that says so.
    @Test(.enabled(if: sqlite3Present, "sqlite3 is not installed")) func vacuumRenumberingIsNamed() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let document = dir.appendingPathComponent("keyless.json").path
        let rows = (1...6).map { "[\($0), \"n\($0)\"]" }.joined(separator: ", ")
        try Data(#"{"format": "briefcase-json", "version": 1, "container": "dabriefcase", "encoding": "utf-8", "properties": [], "elements": [{"kind": "table", "name": "T", "schema": null, "schemaEnd": "zero", "fields": [{"name": "N", "type": "datInteger", "size": 0}, {"name": "Name", "type": "datWideString", "size": 20}], "rows": [\#(rows)]}]}"#.utf8)
            .write(to: URL(fileURLWithPath: document))
        let db = dir.appendingPathComponent("keyless.sqlite").path
        #expect(try Self.run(["convert", document, db]).status == 0)
        // Without VACUUM a delete is a delete.
        let copy = dir.appendingPathComponent("copy.sqlite").path
        try FileManager.default.copyItem(atPath: db, toPath: copy)
        #expect(try Self.sqlite3(copy, "DELETE FROM T WHERE N = 2") == 0)
        let deleted = try Self.run(["convert", copy, dir.appendingPathComponent("d.json").path])
        #expect(deleted.status == 0 && deleted.stderr.contains("0 inserted, 0 updated, 1 deleted"), "\(deleted.stderr)")
        // With VACUUM the rows after it moved up one rowid.
        #expect(try Self.sqlite3(db, "DELETE FROM T WHERE N = 2", "VACUUM") == 0)
        let result = try Self.run(["convert", db, dir.appendingPathComponent("v.json").path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("element 'T': table 'T': its rowids were renumbered (rowid 2 holds the row that had rowid 3): SQLite's VACUUM renumbers"), "\(result.stderr)")
    }

    /// `query` may not call functions that reveal memory addresses (fts3_tokenizer returns a
    /// pointer) or reach outside the database, nor set pragmas — not even through a view of the
    /// database; a trailing comment after the statement is fine, a second statement is not.
    @Test(.enabled(if: sqlite3Present, "sqlite3 is not installed")) func queryLimits() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.ordersDatabase(in: dir)
        for sql in ["SELECT hex(fts3_tokenizer('simple'))", "SELECT load_extension('x')", "PRAGMA query_only = 0", "PRAGMA temp_store_directory = '/tmp'"] {
            let result = try Self.run(["query", db, sql])
            #expect(result.status == 1 && result.text.isEmpty, "\(sql): \(result.stderr)")
            #expect(result.stderr.contains("not authorized"), "\(sql): \(result.stderr)")
        }
        #expect(try Self.sqlite3(db, "CREATE VIEW spy AS SELECT fts3_tokenizer('simple') AS p") == 0)
        let throughView = try Self.run(["query", db, "SELECT hex(p) FROM spy"])
        #expect(throughView.status == 1 && throughView.text.isEmpty)
        // Reading pragmas still answer.
        #expect(try Self.run(["query", db, "SELECT count(*) AS n FROM pragma_table_info('Orders')"]).text == "{\"n\": 4}\n")
        for sql in ["SELECT count(*) AS n FROM Orders; -- three", "SELECT count(*) AS n FROM Orders /* three */ ;", "SELECT count(*) AS n FROM Orders;\n-- a\n/* b */\n"] {
            let result = try Self.run(["query", db, sql])
            #expect(result.status == 0 && result.text == "{\"n\": 3}\n", "\(sql): \(result.stderr)")
        }
        let two = try Self.run(["query", db, "SELECT 1; SELECT 2"])
        #expect(two.status == 2 && two.stderr.contains("query runs one SQL statement"))
    }

    /// A database in WAL mode is read with the data committed to its -wal, and nothing is written
    /// beside it (no -shm, no -wal made); so is one in WAL mode without a -wal.
    @Test(.enabled(if: sqlite3Present, "sqlite3 is not installed")) func walDatabasesAreReadWithoutWritingBesideThem() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.ordersDatabase(in: dir)
        #expect(try Self.sqlite3(db, ".dbconfig no_ckpt_on_close on", "PRAGMA journal_mode = WAL;", "INSERT INTO Orders VALUES (9, 'Zed', '1.25', NULL);") == 0)
        try FileManager.default.removeItem(atPath: db + "-shm")
        #expect(try Self.files(in: dir) == ["orders.sqlite", "orders.sqlite-wal"])
        let wal = try Data(contentsOf: URL(fileURLWithPath: db + "-wal"))
        let query = try Self.run(["query", db, "SELECT count(*) AS n FROM Orders"])
        #expect(query.status == 0 && query.text == "{\"n\": 4}\n", "\(query.stderr)")
        #expect(try Self.run(["info", db]).status == 0)
        #expect(try Self.run(["validate", db]).status == 0)
        let out = dir.appendingPathComponent("out.json").path
        let converted = try Self.run(["convert", db, out])
        #expect(converted.status == 0 && converted.stderr.contains("1 inserted"), "\(converted.stderr)")
        try FileManager.default.removeItem(atPath: out)
        #expect(try Self.files(in: dir) == ["orders.sqlite", "orders.sqlite-wal"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: db + "-wal")) == wal)

        let plain = try Self.ordersDatabase(in: dir, "plain.sqlite")
        #expect(try Self.sqlite3(plain, "PRAGMA journal_mode = WAL;") == 0)
        let before = try Self.files(in: dir)
        #expect(try Self.run(["query", plain, "SELECT count(*) AS n FROM Orders"]).text == "{\"n\": 3}\n")
        #expect(try Self.run(["cat", plain, "--table", "Orders"]).status == 0)
        #expect(try Self.files(in: dir) == before)
    }

    /// A damaged page is found before any answer: `query` prints no row, `validate` says invalid.
    /// (Before, query printed the rows before the damage, then failed.)
    @Test(.enabled(if: sqlite3Present, "sqlite3 is not installed")) func damageIsFoundBeforeAnyAnswer() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("big.sqlite").path
        #expect(try Self.sqlite3(db, "PRAGMA page_size = 1024;", "CREATE TABLE t (n INTEGER, s TEXT);",
                                 "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 20000) INSERT INTO t SELECT i, printf('%040d', i) FROM r;") == 0)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: db)))
        // The last page, a leaf of t's b-tree (rows in rowid order): its header's cell count made huge.
        let last = bytes.count - 1024
        #expect(bytes[last] == 0x0D, "the last page is a table leaf")
        bytes[last + 3] = 0xFF
        bytes[last + 4] = 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: db))
        // (A megabyte of rows before the damaged page: more than the printer holds before writing.)
        let result = try Self.run(["query", db, "SELECT n, s FROM t ORDER BY rowid"])
        #expect(result.status == 1 && result.text.isEmpty, "\(result.text.prefix(100))")
        #expect(result.stderr.hasPrefix("briefcase: \(db): not a readable SQLite database: "), "\(result.stderr)")
    }

    /// Each page of a database damaged in turn (its b-tree page-type byte made 0, which no page
    /// has; page 1's after the 100-byte file header). `validate` refuses every one (`PRAGMA
    /// quick_check` reads every page); `convert` and `info` refuse when the page is one they read,
    /// and otherwise give what the sound database gives (§7: damage in a table they do not read
    /// does not change what they give). `convert` reads the schema, `_briefcase`,
    /// `_briefcase_properties`, `_briefcase_elements` and the current-rows table; `info` the same
    /// but no row of a current-rows table; `_briefcase_fields`, `_briefcase_schema` and
    /// `_briefcase_changes` are views for people, never read (§2). A refusal: exit 1, one line
    /// naming the file and saying "not a readable SQLite database" (§7), nothing written.
    @Test(.enabled(if: sqlite3Present, "sqlite3 is not installed")) func everyDamagedPageIsRefusedWhereItIsRead() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("all.sqlite").path
        #expect(try Self.run(["convert", Self.fixtures.appendingPathComponent("all-types.daBriefcase").path, db]).status == 0)
        let bytes = try #require(FileManager.default.contents(atPath: db).map { [UInt8]($0) })
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])  // big-endian at 16 (SQLite's file format §1.3)
        // sqlite3's map of the pages: each b-tree's root page and its table.
        let map = try Self.run([db, "SELECT rootpage, tbl_name FROM sqlite_master WHERE rootpage > 0"], program: URL(fileURLWithPath: "/usr/bin/sqlite3"))
        var tables = [1: "sqlite_schema"]
        for line in map.text.split(separator: "\n") {
            let parts = line.split(separator: "|")
            if parts.count == 2, let page = Int(parts[0]) { tables[page] = String(parts[1]) }
        }
        // A small database: each b-tree is its one root page, so the map names every page.
        #expect(tables.count == bytes.count / pageSize && tables.count > 10, "\(tables)")
        let mapping: Set = ["sqlite_schema", "_briefcase", "_briefcase_properties", "_briefcase_elements"]
        let sound = dir.appendingPathComponent("sound.json").path
        #expect(try Self.run(["convert", db, sound]).status == 0)
        let soundInfo = try Self.run(["info", db]).text
        for (page, table) in tables.sorted(by: { $0.key < $1.key }) {
            var damaged = bytes
            damaged[(page - 1) * pageSize + (page == 1 ? 100 : 0)] = 0
            let path = dir.appendingPathComponent("page-\(page).sqlite").path, out = dir.appendingPathComponent("page-\(page).json").path
            try Data(damaged).write(to: URL(fileURLWithPath: path))
            let what = "page \(page) (\(table))"
            func expectRefused(_ result: CLITests.Result, _ command: String, prefix: String = "briefcase: \(path): ") {
                #expect(result.status == 1, "\(command), \(what): exit \(result.status) \(result.stderr)")
                #expect(result.stderr.hasPrefix(prefix) && result.stderr.hasSuffix("\n") && result.stderr.filter { $0 == "\n" }.count == 1,
                        "\(command), \(what): \(result.stderr)")
                let words = { #expect(result.stderr.contains("not a readable SQLite database: "), "\(command), \(what): \(result.stderr)") }
                words()
            }
            expectRefused(try Self.run(["validate", path]), "validate", prefix: "\(path): error: ")
            let converted = try Self.run(["convert", path, out])
            if mapping.contains(table) || table == "AllTypes" {
                expectRefused(converted, "convert")
                #expect(!FileManager.default.fileExists(atPath: out), "convert, \(what): an output was left")
            } else {
                #expect(converted.status == 0 && FileManager.default.contents(atPath: out) == FileManager.default.contents(atPath: sound),
                        "convert, \(what): \(converted.stderr)")
            }
            let info = try Self.run(["info", path])
            if mapping.contains(table) {
                expectRefused(info, "info")
            } else {
                #expect(info.status == 0 && info.text == soundInfo, "info, \(what): \(info.stderr)")
            }
        }
    }

    /// A value longer than the database file (a view of a hostile database can make one) is
    /// refused before it is made, not allocated: the connection's length limit is the file's size.
    @Test(.enabled(if: sqlite3Present, "sqlite3 is not installed")) func noValueLongerThanTheFile() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.ordersDatabase(in: dir)
        #expect(try Self.sqlite3(db, "CREATE VIEW huge AS SELECT randomblob(400000000) AS b") == 0)
        let result = try Self.run(["query", db, "SELECT length(b) FROM huge"])
        #expect(result.status == 1 && result.text.isEmpty && result.stderr == "briefcase: \(db): SQLite: string or blob too big\n", "\(result.stderr)")
    }

    /// A datastore snapshot written by another tool names its record-id column `rowid`: its
    /// tables are in the database all the same (the row id is SQLite's `_rowid_`). (Before: a
    /// database without any data table.)
    @Test func aForeignSnapshotGetsItsTablesInSQLite() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.foreignSnapshotDatabase(in: dir)
        let rows = try Self.run(["query", db, "SELECT rowid, title, done FROM tasks ORDER BY _rowid_", "--format", "csv"])
        #expect(rows.text == "rowid,title,done\r\nr1,x,0\r\nr2,y,1\r\n", "\(rows.stderr)")
    }

    /// An edit of that database with SQL comes back as a pending change of the snapshot.
    @Test(.enabled(if: sqlite3Present, "sqlite3 is not installed")) func anEditOfAForeignSnapshotComesBack() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.foreignSnapshotDatabase(in: dir)
        #expect(try Self.sqlite3(db, "UPDATE tasks SET title = 'z' WHERE rowid = 'r1'") == 0)
        let back = dir.appendingPathComponent("back.snapshot.json").path
        let converted = try Self.run(["convert", db, back])
        #expect(converted.status == 0 && converted.stderr.contains("table 'tasks': 0 inserted, 1 updated, 0 deleted"), "\(converted.stderr)")
        let text = try String(contentsOfFile: back, encoding: .utf8)
        #expect(text.contains(#"["U","tasks","r1",{"title":["P","z"]"#), "\(text.prefix(400))")
    }

    /// A snapshot of two tasks (r1, r2) as another tool writes it, converted to `tasks.sqlite` in `dir`.
    static func foreignSnapshotDatabase(in dir: URL) throws -> String {
        let snapshot = dir.appendingPathComponent("tasks.snapshot.json").path
        try Data(#"{"rev": 2, "rows": [{"tid": "tasks", "rowid": "r1", "data": {"title": "x", "done": false}}, {"tid": "tasks", "rowid": "r2", "data": {"title": "y", "done": true}}]}"#.utf8)
            .write(to: URL(fileURLWithPath: snapshot))
        let db = dir.appendingPathComponent("tasks.sqlite").path
        #expect(try Self.run(["convert", snapshot, db]).status == 0)
        return db
    }

    /// A table whose name SQL cannot take as it is gets a derived one, told on standard error:
    /// unsafe-names.daBriefcase holds `Orders` and, at position 6, `orders` (Sources/FixtureMaker).
    @Test func derivedNamesAreToldOnStandardError() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("names.sqlite").path
        let result = try Self.run(["convert", Self.fixtures.appendingPathComponent("unsafe-names.daBriefcase").path, db])
        #expect(result.status == 0)
        #expect(result.stderr == "briefcase: note: \(db): table 'orders' is SQL table '6:orders'\n")
        let rows = try Self.run(["query", db, "SELECT count(*) AS n FROM \"6:orders\""])
        #expect(rows.status == 0 && rows.text.hasPrefix("{\"n\": "), "\(rows.stderr)")
    }
}
