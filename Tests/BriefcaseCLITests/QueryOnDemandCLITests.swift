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
