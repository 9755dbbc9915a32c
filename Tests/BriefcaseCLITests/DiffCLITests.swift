import Foundation
import Testing
import BriefcaseKit
import BriefcaseTestSupport

/// `briefcase diff`, `textconv` and `git-setup` end to end (Spec/diff.md).
@Suite struct DiffCLITests {
    static let fixtures = SamplePaths.fixtures.path
    static let validFixtures = ["all-types.daBriefcase", "nulls.daBriefcase", "empty-delta.daBriefcase", "empty-table.daBriefcase",
                                "gbk.daBriefcase", "unsafe-names.daBriefcase", "orders.bin2"]

    /// `orders.bin2` (Fixtures/README.md) as JSON, and a copy edited: Alice renamed, Bob's row
    /// removed, a row 9 added, pending change 1100's new Amount 8 → 9.
    static func ordersAndEdited(in dir: URL) throws -> (String, String) {
        let a = dir.appendingPathComponent("a.json").path, b = dir.appendingPathComponent("b.json").path
        #expect(try CLITests.run(["convert", fixtures + "/orders.bin2", a]).status == 0)
        var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: a))) as? [String: Any])
        var elements = try #require(document["elements"] as? [[String: Any]])
        var delta = elements[0], table = elements[1]
        var rows = try #require(table["rows"] as? [[Any]])
        rows[0][1] = "Alice B"
        rows.remove(at: 1)
        rows.append([9, "Zed", "1.25", NSNull()])
        table["rows"] = rows
        var changes = try #require(delta["changes"] as? [[String: Any]])
        var new = try #require(changes[0]["new"] as? [Any])
        new[2] = "9"
        changes[0]["new"] = new
        delta["changes"] = changes
        elements[0] = delta
        elements[1] = table
        document["elements"] = elements
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: b))
        return (a, b)
    }

    /// A briefcase against itself, and against its own conversions to JSON, SQLite and a folder:
    /// no difference, exit 0, nothing printed.
    @Test func aBriefcaseAndItsConversionsHaveNoDifferences() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in Self.validFixtures {
            let input = Self.fixtures + "/" + name
            var others = [input]
            for target in ["json", "sqlite", "briefcase"] where !(name == "orders.bin2" && target == "briefcase") {
                let output = dir.appendingPathComponent(name + "." + target).path
                let converted = try CLITests.run(["convert", input, output])
                #expect(converted.status == 0, "\(name) → \(target): \(converted.stderr)")
                others.append(output)
            }
            for other in others {
                let result = try CLITests.run(["diff", input, other])
                #expect(result.status == 0 && result.stdout.isEmpty, "\(name) against \(other): \(result.text)\(result.stderr)")
            }
        }
    }

    /// Each kind of row and change difference, in the text written by hand (Spec/diff.md §5).
    @Test func textShowsRowsByKeyAndPendingChanges() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (a, b) = try Self.ordersAndEdited(in: dir)
        let result = try CLITests.run(["diff", a, b])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.text == """
            --- \(a)
            +++ \(b)
            @@ Orders
            → ID=1  Customer: 'Alice' → 'Alice B'
            - ID=2  Customer='Bob'  Amount=7  Shipped=NULL
            + ID=9  Customer='Zed'  Amount=1.25  Shipped=NULL
            → pending 1100 update pending; old: ID=2 Amount=7; new: ID=2 Amount=8 Shipped=2023-03-15T06:00:00.000 \
            → update pending; old: ID=2 Amount=7; new: ID=2 Amount=9 Shipped=2023-03-15T06:00:00.000

            """)
        let summary = try CLITests.run(["diff", a, b, "--summary"])
        #expect(summary.text == "Orders: 1 rows added, 1 rows removed, 1 rows changed, 1 pending changes changed\n")
        let quiet = try CLITests.run(["diff", a, b, "--quiet"])
        #expect(quiet.status == 1 && quiet.stdout.isEmpty)
        // Ignoring the field and the table's changes: only the removed and added rows are left.
        let ignoring = try CLITests.run(["diff", a, b, "--ignore-fields", "customer", "--summary"])
        #expect(ignoring.text == "Orders: 1 rows added, 1 rows removed, 1 pending changes changed\n")
    }

    /// `--format jsonl` lists exactly the cells that differ: checked against a comparison, row by
    /// row by ID, of the two JSON documents made here.
    @Test func jsonlListsExactlyTheCellsThatDiffer() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (a, b) = try Self.ordersAndEdited(in: dir)
        func rows(_ path: String) throws -> [Int: [String]] {
            let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
            let table = try #require((document["elements"] as? [[String: Any]])?[1])
            var byID: [Int: [String]] = [:]
            for row in try #require(table["rows"] as? [[Any]]) { byID[row[0] as! Int] = row.map { "\($0)" } }
            return byID
        }
        let fields = ["ID", "Customer", "Amount", "Shipped"]
        let old = try rows(a), new = try rows(b)
        var expected: Set<String> = []
        for (id, before) in old {
            guard let after = new[id] else { expected.insert("removed \(id)"); continue }
            for i in fields.indices where before[i] != after[i] { expected.insert("changed \(id) \(fields[i])") }
        }
        for id in new.keys where old[id] == nil { expected.insert("added \(id)") }
        let result = try CLITests.run(["diff", a, b, "--format", "jsonl"])
        #expect(result.status == 1)
        var found: Set<String> = []
        for line in result.text.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            guard object["pending"] == nil else { continue }
            let id = try #require((object["key"] as? [String: Any])?["ID"] as? Int)
            let kind = try #require(object["kind"] as? String)
            found.insert(kind == "changed" ? "changed \(id) \(object["field"] as? String ?? "")" : "\(kind) \(id)")
        }
        #expect(found == expected)
        #expect(expected.count == 3)
    }

    /// Trouble is exit 2, as for diff(1): a missing input, one that is not a briefcase, usage.
    @Test func troubleExitsTwo() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let junk = dir.appendingPathComponent("junk.daBriefcase").path
        try Data("not a briefcase".utf8).write(to: URL(fileURLWithPath: junk))
        let fixture = Self.fixtures + "/nulls.daBriefcase"
        for arguments in [["diff", fixture, dir.appendingPathComponent("none.daBriefcase").path], ["diff", fixture, junk],
                          ["diff", "-", "-", "--from", "json"], ["diff", fixture]] {
            let result = try CLITests.run(arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }

    /// Names and values that hold control characters are escaped: no escape sequence from the
    /// files reaches the terminal, and colour comes only when asked.
    @Test func textIsTerminalSafe() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (a, b) = try Self.ordersAndEdited(in: dir)
        // B's Customer of row 1 clears the screen; C's table is named with a colour change.
        for (path, replacing, with) in [(b, "Alice B", "Alice \u{1B}[2J"), (b, "Zed", "Zed\u{1B}]0;title\u{07}")] {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            try text.replacingOccurrences(of: "\"\(replacing)\"", with: Self.jsonString(with)).write(toFile: path, atomically: true, encoding: .utf8)
        }
        let c = dir.appendingPathComponent("c.json").path
        try (try String(contentsOfFile: a, encoding: .utf8)).replacingOccurrences(of: "\"Orders\"", with: Self.jsonString("Ord\u{1B}[31mers"))
            .write(toFile: c, atomically: true, encoding: .utf8)
        for other in [b, c] {
            let plain = try CLITests.run(["diff", a, other])
            #expect(plain.status == 1, "\(plain.stderr)")
            #expect(!plain.stdout.contains(0x1B) && !plain.stdout.contains(0x07), "a control byte reached standard output: \(plain.text)")
            #expect(plain.text.contains("\\x1B"), "escaped as \\x1B: \(plain.text)")
            let colored = try CLITests.run(["diff", a, other, "--color", "always"])
            #expect(colored.text.hasPrefix("\u{1B}[1m--- "))
            #expect(colored.text.replacing(/\u{1B}\[[0-9;]*m/, with: "") == plain.text)
        }
    }

    static func jsonString(_ text: String) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: [text]), as: UTF8.self).dropFirst().dropLast().description
    }

    static var gitAvailable: Bool {
        ["/usr/bin/git", "/usr/local/bin/git", "/opt/homebrew/bin/git"].contains { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func git(_ arguments: [String], in dir: URL) throws -> CLITests.Result {
        try CLITests.run(arguments, program: URL(fileURLWithPath: "/usr/bin/env"), directory: dir).self
    }

    /// A new git repository in a new temporary directory, with an author set, and git run there.
    static func repository() throws -> (dir: URL, git: ([String]) throws -> CLITests.Result) {
        let dir = try CLITests.temporaryDirectory()
        let git = { (arguments: [String]) throws -> CLITests.Result in try Self.git(["git"] + arguments, in: dir) }
        for arguments in [["init", "-q"], ["config", "user.email", "t@example.com"], ["config", "user.name", "T"]] {
            #expect(try git(arguments).status == 0)
        }
        return (dir, git)
    }

    /// Real git in a temporary repository: after `git-setup`, a row changed with the library
    /// shows in `git diff` as that row's line, old and new; `git-setup` again changes nothing.
    @Test(.enabled(if: gitAvailable, "git is not installed"))
    func gitDiffShowsTheRowThatChanged() throws {
        let (dir, _) = try Self.repository()
        defer { try? FileManager.default.removeItem(at: dir) }
        let briefcase = dir.appendingPathComponent("Orders.daBriefcase").path
        #expect(try CLITests.run(["convert", Self.fixtures + "/orders.bin2", briefcase]).status == 0)
        let setup = try CLITests.run(["git-setup"], directory: dir)
        #expect(setup.status == 0, "\(setup.stderr)")
        #expect(setup.text.contains(".gitattributes: added *.daBriefcase diff=briefcase"), "\(setup.text)")
        let again = try CLITests.run(["git-setup"], directory: dir)
        #expect(again.text.split(separator: "\n").allSatisfy { $0.contains("already") }, "\(again.text)")
        let attributes = try String(contentsOfFile: dir.appendingPathComponent(".gitattributes").path, encoding: .utf8)
        #expect(attributes == "*.daBriefcase diff=briefcase\n*.daBriefcase.gz diff=briefcase\n*.bin2 diff=briefcase\n"
                + "*.daBriefcase merge=briefcase\n*.bin2 merge=briefcase\n*.snapshot.json merge=briefcase-snapshot\n")
        #expect(try Self.git(["git", "add", "."], in: dir).status == 0)
        #expect(try Self.git(["git", "commit", "-q", "-m", "orders"], in: dir).status == 0)

        // Alice renamed through the library.
        var warnings: [DecodingWarning] = []
        var document = try BriefcaseDocument.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: briefcase))), as: .dabriefcase, warnings: &warnings)
        let place = try #require(document.file.stream.elements.firstIndex { if case .table = $0 { true } else { false } })
        guard case .table(var table) = document.file.stream.elements[place] else { Issue.record("not a table"); return }
        var rows = Array(table.rows)
        rows[0][1] = .wide("Alice B")
        table.rows = Rows(rows)
        document.file.stream.elements[place] = .table(table)
        try Data(try document.encode()).write(to: URL(fileURLWithPath: briefcase))

        let diff = try Self.git(["git", "diff"], in: dir)
        #expect(diff.status == 0, "\(diff.stderr)")
        let lines = diff.text.split(separator: "\n").filter { $0.hasPrefix("+ ") || $0.hasPrefix("- ") || $0.hasPrefix("-  ") || $0.hasPrefix("+  ") }
        #expect(lines == ["-  row ID=1  Customer='Alice'  Amount=12.5  Shipped=2023-03-15T12:00:00.000",
                          "+  row ID=1  Customer='Alice B'  Amount=12.5  Shipped=2023-03-15T12:00:00.000"], "\(diff.text)")

        // With --external, git diff runs the row-level diff (git's 7 arguments); --no-ext-diff
        // keeps the textconv lines.
        let external = try CLITests.run(["git-setup", "--external"], directory: dir)
        #expect(external.text.contains("git config diff.briefcase.command = "), "\(external.text)")
        let rowDiff = try Self.git(["git", "diff"], in: dir)
        #expect(rowDiff.status == 0, "\(rowDiff.stderr)")
        #expect(rowDiff.text == "--- a/Orders.daBriefcase\n+++ b/Orders.daBriefcase\n@@ Orders\n→ ID=1  Customer: 'Alice' → 'Alice B'\n",
                "\(rowDiff.text)")
        #expect(try Self.git(["git", "diff", "--no-ext-diff"], in: dir).text == diff.text)
    }

    static var sqlite3Present: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3") }

    /// `--format sql` run by sqlite3 on A's SQLite export makes its current rows B's: the same
    /// rows as B's own export (sqlite3 says), and the database read back is B's current rows.
    @Test(.enabled(if: sqlite3Present, "sqlite3 is not installed"))
    func sqlTurnsTheExportOfAIntoB() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (a, b) = try Self.ordersAndEdited(in: dir)
        let aDB = dir.appendingPathComponent("a.sqlite").path, bDB = dir.appendingPathComponent("b.sqlite").path
        #expect(try CLITests.run(["convert", a, aDB]).status == 0)
        #expect(try CLITests.run(["convert", b, bDB]).status == 0)
        let script = try CLITests.run(["diff", a, b, "--format", "sql"])
        #expect(script.status == 1, "\(script.stderr)")
        #expect(script.text == """
            -- briefcase diff --format sql: makes the current rows of A's SQLite export (briefcase convert A x.sqlite) B's
            BEGIN;
            UPDATE "Orders" SET "Customer" = 'Alice B' WHERE "ID" IS 1;
            DELETE FROM "Orders" WHERE "ID" IS 2;
            INSERT INTO "Orders" ("ID", "Customer", "Amount", "Shipped") VALUES (9, 'Zed', '1.25', NULL);
            COMMIT;

            """)
        let sqlite3 = URL(fileURLWithPath: "/usr/bin/sqlite3")
        let applied = try CLITests.run([aDB], stdin: script.stdout, program: sqlite3)
        #expect(applied.status == 0, "\(applied.stderr)")
        let select = #"SELECT * FROM "Orders" ORDER BY "ID";"#
        let rowsA = try CLITests.run([aDB, select], program: sqlite3), rowsB = try CLITests.run([bDB, select], program: sqlite3)
        #expect(rowsA.status == 0 && !rowsA.stdout.isEmpty)
        #expect(rowsA.text == rowsB.text)
        let readBack = try CLITests.run(["diff", aDB, b, "--current"])
        #expect(readBack.status == 0, "\(readBack.text)\(readBack.stderr)")
    }

    /// Of two tables of one name (`unsafe-names`: `Orders` at 5, `orders` at 6, which the export
    /// names `6:orders`), an edit of the second is SQL on the second's table, and makes A's export B's.
    @Test(.enabled(if: sqlite3Present, "sqlite3 is not installed"))
    func sqlNamesEachTableOfOneName() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = dir.appendingPathComponent("a.json").path, b = dir.appendingPathComponent("b.json").path
        #expect(try CLITests.run(["convert", Self.fixtures + "/unsafe-names.daBriefcase", a]).status == 0)
        var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: a))) as? [String: Any])
        var elements = try #require(document["elements"] as? [[String: Any]])
        #expect(elements[5]["name"] as? String == "Orders" && elements[6]["name"] as? String == "orders")
        var rows = try #require(elements[6]["rows"] as? [[Any]])
        rows[0][1] = "changed"
        elements[6]["rows"] = rows
        document["elements"] = elements
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: b))
        let script = try CLITests.run(["diff", a, b, "--format", "sql"])
        #expect(script.text.contains("UPDATE \"6:orders\" SET \"Name\" = 'changed' WHERE \"ID\" IS 5;\n"), "\(script.text)")
        let aDB = dir.appendingPathComponent("a.sqlite").path
        #expect(try CLITests.run(["convert", a, aDB]).status == 0)
        #expect(try CLITests.run([aDB], stdin: script.stdout, program: URL(fileURLWithPath: "/usr/bin/sqlite3")).status == 0)
        let readBack = try CLITests.run(["diff", aDB, b, "--current"])
        #expect(readBack.status == 0, "\(readBack.text)\(readBack.stderr)")
    }
}
