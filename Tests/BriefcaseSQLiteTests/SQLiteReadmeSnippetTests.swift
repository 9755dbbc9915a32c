import Foundation
import Testing
import BriefcaseKit
import BriefcaseSQLite
import BriefcaseTestSupport

/// The README's BriefcaseSQLite snippet ("Link the library"), as written there, on orders.bin2.
@Suite(.enabled(if: SQLiteTesting.sqlite3Present, "sqlite3 is not installed (apt-get install sqlite3)"))
struct SQLiteReadmeSnippetTests {
    @Test func snippetAsWritten() throws {
        let dir = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = SamplePaths.fixtures.appendingPathComponent("orders.bin2").path
        let path = dir.appendingPathComponent("Orders.sqlite").path

        let elements = try BriefcaseElements.open(input, as: .bin2)
        var sqlite = SQLiteSink(path: path)
        _ = try elements.read(into: &sqlite, encoding: nil, skipDamaged: false)

        try SQLiteTesting.sqlite3(path, "INSERT INTO Orders (ID, Customer) VALUES (5, 'Eve')")

        var binary = BinarySink(output: MemoryStreamOutput(), container: .bin2)
        let edits = try SQLiteSource(path: path).read(into: &binary)
        #expect(edits == [SQLiteSource.TableEdits(table: "Orders", inserts: 1)])
        #expect(binary.output.bytes.count > 0)

        var query = try SQLiteQuery("select count(*) from Orders", in: SQLiteDatabase(path: path, mode: .readOnly))
        // Alice, Bob and Dora (Carol's delete pending), and Eve.
        #expect(try query.next() == [.integer(4)])
        #expect(try query.next() == nil)
    }
}
