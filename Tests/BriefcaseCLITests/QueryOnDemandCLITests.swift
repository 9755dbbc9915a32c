import Foundation
import Testing
import BriefcaseKit
import BriefcaseTestSupport

/// `briefcase query` reads a briefcase's tables on demand (Spec/sqlite-mapping.md §6, "On
/// demand"): a table the statement does not read is never decoded; one it reads is read whole
/// before the first row is printed; text is read in the code page `convert` would choose.
@Suite struct QueryOnDemandCLITests {
    /// damaged-type-0.daBriefcase: table T's row 0 holds a value of type 0 (Fixtures/README.md).
    static let damaged = SamplePaths.fixtures.path + "/damaged-type-0.daBriefcase"

    @Test func aTableTheStatementDoesNotReadIsNotDecoded() throws {
        let properties = try CLITests.run(["query", Self.damaged, "select count(*) as n from sqlite_schema where name = 'T'"])
        #expect(properties.status == 0, "\(properties.stderr)")
        #expect(properties.text == "{\"n\": 1}\n")
        // Read, counted or listed, its damage fails the statement before any row: exit 1, nothing printed.
        for sql in ["select * from T", "select count(*) from T", "select 1 from _briefcase_elements where rows > 0",
                    "select Name, (select count(*) from T) from _briefcase_elements"] {
            let read = try CLITests.run(["query", Self.damaged, sql])
            #expect(read.status == 1 && read.text.isEmpty, "\(sql): \(read.status) \(read.text)")
            #expect(read.stderr.contains("element 'T'") && read.stderr.contains("datUnknown (0) has no value encoding"), "\(sql): \(read.stderr)")
            #expect(read.stderr.split(separator: "\n").count == 1, "one line: \(read.stderr)")
        }
    }

    /// `<table>_stored`: orders.bin2's stored rows (Sources/FixtureMaker: Alice 12.5, Bob 7 unshipped,
    /// Carol 100 at OLE 45001), before its update of 2, delete of 3 and insert of 4.
    @Test func storedRowsAreATable() throws {
        let orders = SamplePaths.fixtures.path + "/orders.bin2"
        let run = try CLITests.run(["query", orders, "select rowid, * from Orders_stored"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.text == """
            {"rowid": 1, "ID": 1, "Customer": "Alice", "Amount": "12.5", "Shipped": "2023-03-15T12:00:00.000"}
            {"rowid": 2, "ID": 2, "Customer": "Bob", "Amount": "7", "Shipped": null}
            {"rowid": 3, "ID": 3, "Customer": "Carol", "Amount": "100", "Shipped": "2023-03-16T00:00:00.000"}

            """)
        let changed = try CLITests.run(["query", orders, "select ID from Orders_stored except select ID from Orders", "--format", "csv", "--no-header"])
        #expect(changed.text == "3\r\n")
        let before = try CLITests.run(["query", orders, "select s.Amount, c.Amount from Orders_stored s join Orders c using (ID) where s.Amount <> c.Amount",
                                       "--format", "tsv", "--no-header"])
        #expect(before.text == "7\t8\n")
    }

    /// Several inputs are read on demand too: the damaged table of one is not read by a statement
    /// over the other; a virtual table of ours written into an SQLite input answers nothing.
    @Test func severalInputsAreReadOnDemand() throws {
        let orders = SamplePaths.fixtures.path + "/orders.bin2"
        let run = try CLITests.run(["query", orders, Self.damaged, "select count(*) as n from orders.Orders join orders.Orders_changes c on c.new_ID = Orders.ID"])
        // (orders.bin2's changes: an update of ID 2, a delete of ID 3, an insert of ID 4: two current rows.)
        #expect(run.status == 0 && run.text == "{\"n\": 2}\n", "\(run.stderr)")
        let damaged = try CLITests.run(["query", orders, Self.damaged, "select count(*) from damaged_type_0.T"])
        #expect(damaged.status == 1 && damaged.text.isEmpty && damaged.stderr.contains("element 'T'"), "\(damaged.stderr)")
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let hostile = dir.appendingPathComponent("hostile.sqlite").path
        _ = try CLITests.shell("""
            sqlite3 '\(hostile)' "create table t(x); pragma writable_schema = on; \
            insert into sqlite_schema values ('table', 'stolen', 'stolen', 0, 'CREATE VIRTUAL TABLE stolen USING briefcase(rows_1)')"
            """)
        let stolen = try CLITests.run(["query", orders, hostile, "select * from hostile.stolen"])
        #expect(stolen.status != 0 && stolen.text.isEmpty && stolen.stderr.contains("no such virtual table"), "\(stolen.stderr)")
    }

    /// Heads of ASCII suggest UTF-8; a row's 8-bit string 'été' in windows-1252 (E9 74 E9) is no
    /// UTF-8: the briefcase is read whole, as `convert` reads it, and its text decoded so.
    @Test func aStringThatContradictsTheHeadsIsReadAsConvertReadsIt() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("latin.daBriefcase").path
        let table = Table(name: "Towns", fields: [FieldDescriptor(name: "ID", type: .integer), FieldDescriptor(name: "Name", type: .string)],
                          rows: [[.integer(1), .ansiString(ByteString([0xE9, 0x74, 0xE9]))], [.integer(2), .ansiString("Nice")]])
        let bytes = try BriefcaseFileCodec.encode(BriefcaseFile(stream: Bin2Stream(elements: [.table(table)])))
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let run = try CLITests.run(["query", path, "select Name from Towns order by ID", "--format", "tsv", "--no-header"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.text == "\u{E9}t\u{E9}\nNice\n")
        #expect(run.stderr.contains("8-bit strings read as windows-1252"), "\(run.stderr)")
        // The same from the database convert writes.
        let sqlite = dir.appendingPathComponent("latin.sqlite").path
        #expect(try CLITests.run(["convert", path, sqlite]).status == 0)
        #expect(try CLITests.run(["query", sqlite, "select Name from Towns order by ID", "--format", "tsv", "--no-header"]).text == run.text)
    }

    /// Every table of the bench-like fixtures answers a count, a first row and a join as the
    /// database `convert` writes answers them (the library's `OnDemandDatabaseTests` compare every
    /// table; this is the command line, gzip and standard input included).
    @Test func answersAsTheConvertedDatabase() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let orders = SamplePaths.fixtures.path + "/orders.bin2", sqlite = dir.appendingPathComponent("orders.sqlite").path
        #expect(try CLITests.run(["convert", orders, sqlite]).status == 0)
        let gzipped = dir.appendingPathComponent("orders.bin2.gz").path
        #expect(try CLITests.run(["convert", orders, gzipped]).status == 0)
        for sql in ["select count(*) from Orders", "select * from Orders", "select * from Orders where ID = 4",
                    "select o.Customer, c.type from Orders o join Orders_changes c on c.new_ID = o.ID order by 1",
                    "select rowid, * from _briefcase_stored_1", "select position, kind, name, row_ids, rows, changes, length(bin2), checksum from _briefcase_elements"] {
            let expected = try CLITests.run(["query", sqlite, sql])
            #expect(expected.status == 0, "\(sql): \(expected.stderr)")
            #expect(try CLITests.run(["query", orders, sql]).text == expected.text, "\(sql)")
            #expect(try CLITests.run(["query", gzipped, sql]).text == expected.text, "\(sql) (gzip)")
            #expect(try CLITests.run(["query", "-", "--from", "bin2", sql], stdin: [UInt8](try Data(contentsOf: URL(fileURLWithPath: orders)))).text == expected.text,
                    "\(sql) (standard input)")
        }
    }
}
