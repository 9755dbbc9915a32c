import Foundation
import Testing
import BriefcaseKit
import BriefcaseSQLite
import BriefcaseTestSupport

/// The BriefcaseSQLite catalog's snippet, run on orders.bin2 made a single file: to SQLite, a row
/// inserted with the sqlite3 shell, and back with the insert as a pending change. The marked
/// regions must appear in the article as written (DocumentationTests type-checks the snippet).
@Suite(.enabled(if: SQLiteTesting.sqlite3Present, "sqlite3 is not installed (apt-get install sqlite3)"))
struct SQLiteReadmeSnippetTests {
    @Test func snippetAsWritten() throws {
        let dir = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("Orders.daBriefcase").path
        let path = dir.appendingPathComponent("Orders.sqlite").path
        var file = BinarySink(output: MemoryStreamOutput(), container: .dabriefcase)
        _ = try BriefcaseElements.open(SamplePaths.fixtures.appendingPathComponent("orders.bin2").path, as: .bin2)
            .read(into: &file, encoding: nil, skipDamaged: false)
        try FileIO.writeAtomically(file.output.bytes, to: input)

        // MARK: snippet of Sources/BriefcaseSQLite/BriefcaseSQLite.docc/BriefcaseSQLite.md
        let elements = try BriefcaseElements.open(input, as: .dabriefcase)
        var sqlite = SQLiteSink(path: path)                                      // a new file (replacing: true to replace)
        _ = try elements.read(into: &sqlite, encoding: nil, skipDamaged: false)  // one table at a time
        // MARK: end

        try SQLiteTesting.sqlite3(path, "INSERT INTO Orders (ID, Customer) VALUES (5, 'Eve')")

        // MARK: snippet of Sources/BriefcaseSQLite/BriefcaseSQLite.docc/BriefcaseSQLite.md
        var binary = BinarySink(output: MemoryStreamOutput(), container: .dabriefcase)
        let edits = try SQLiteSource(path: path).read(into: &binary)             // read-only; SQL edits → pending changes
        print(edits)                                                            // [TableEdits(table: "Orders", inserts: 1, …)]

        var query = try SQLiteQuery("select count(*) from Orders", in: SQLiteDatabase(path: path, mode: .readOnly))
        while let row = try query.next() { print(row) }                         // [SQLValue.integer(4)]
        // MARK: end
        #expect(edits == [SQLiteSource.TableEdits(table: "Orders", inserts: 1)])
        #expect(binary.output.bytes.count > 0)
        var count = try SQLiteQuery("select count(*) from Orders", in: SQLiteDatabase(path: path, mode: .readOnly))
        // Alice, Bob and Dora (Carol's delete pending), and Eve.
        #expect(try count.next() == [.integer(4)])
    }

    @Test func theArticleHoldsTheRegions() throws {
        let (missing, count) = try DocumentedSnippets.missing(from: "Tests/BriefcaseSQLiteTests/SQLiteReadmeSnippetTests.swift")
        for region in missing { Issue.record("\(region.file) lacks this snippet:\n\(region.text)") }
        #expect(count == 2)
    }
}
