import Foundation
import Testing
import BriefcaseKit
import BriefcaseTestSupport

/// `briefcase fold` end to end (Spec/fold.md).
@Suite struct FoldCLITests {
    static let fixtures = SamplePaths.fixtures.path

    /// Each table of the folded briefcase holds the rows `cat` shows of the original (its
    /// pending changes replayed), `info` shows no delta left, and the output is valid — for
    /// the fixtures with pending changes, to each output format that holds them all. (unsafe-names
    /// is invalid itself — two tables named alike but for case, Fixtures/README.md — and so is
    /// its fold; `cat` cannot tell those two tables apart.)
    @Test(arguments: ["orders.bin2", "gbk.daBriefcase", "unsafe-names.daBriefcase"])
    func foldedRowsAreTheRowsCatShows(name: String) throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = Self.fixtures + "/" + name
        let info = try CLITests.run(["info", input])
        #expect(info.text.contains("delta with"))
        let tables = info.text.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("    ") && $0.contains(" rows") }
            .map { String($0.dropFirst(2).prefix { $0 != ":" }) }
        #expect(!tables.isEmpty)
        for format in ["json", "daBriefcase", "sqlite"] {
            let output = dir.appendingPathComponent("folded." + format).path
            let folded = try CLITests.run(["fold", input, output])
            #expect(folded.status == 0, "\(name) → \(format): \(folded.stderr)")
            #expect(!(try CLITests.run(["info", output]).text.contains("delta with")))
            #expect(try CLITests.run(["validate", output]).status == (name == "unsafe-names.daBriefcase" ? 1 : 0))
            for table in Set(tables) where name != "unsafe-names.daBriefcase" || table.lowercased() != "orders" {
                let before = try CLITests.run(["cat", input, "--table", table]), after = try CLITests.run(["cat", output, "--table", table])
                #expect(before.status == 0 && after.status == 0)
                #expect(after.text == before.text, "\(name) → \(format), table \(table)")
            }
        }
    }

    /// A briefcase without pending changes folds to its own bytes.
    @Test func withoutPendingChangesTheBytesStay() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["all-types.daBriefcase", "nulls.daBriefcase", "empty-table.daBriefcase"] {
            let output = dir.appendingPathComponent(name).path
            #expect(try CLITests.run(["fold", Self.fixtures + "/" + name, output]).status == 0)
            #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/" + name)), "\(name)")
        }
    }

    /// empty-delta's delta-only Archive (Fixtures/README.md: insert, update, delete, update) has
    /// no rows to go to: four NOTFOUND conflicts. By default nothing is written and the exit
    /// status is 1; with omit the delta is left out, each conflict a warning.
    @Test func conflictsAbortUnlessOmitted() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = Self.fixtures + "/empty-delta.daBriefcase", output = dir.appendingPathComponent("out.json").path
        let aborted = try CLITests.run(["fold", input, output])
        #expect(aborted.status == 1)
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        let lines = aborted.stderr.split(separator: "\n")
        #expect(lines.filter { $0.contains("table 'Archive': change ") && $0.contains(": NOTFOUND: ") }.count == 4)
        #expect(lines.last?.hasSuffix("4 conflict(s): nothing written (--on-conflict omit or replace goes on)") == true)
        let omitted = try CLITests.run(["fold", input, output, "--on-conflict", "omit"])
        #expect(omitted.status == 0, "\(omitted.stderr)")
        #expect(omitted.stderr.split(separator: "\n").filter { $0.hasPrefix("briefcase: warning: ") && $0.hasSuffix("(left out)") }.count == 4)
        #expect(!(try CLITests.run(["info", output]).text.contains("delta")))
        #expect(try CLITests.run(["fold", input, output, "--on-conflict", "merge"]).status == 2)
    }
}

/// `briefcase apply` end to end (Spec/fold.md §5).
@Suite struct ApplyCLITests {
    static let orders = FoldCLITests.fixtures + "/orders.bin2"

    /// orders.bin2 without its delta (the stored rows alone), as a JSON document in `dir`.
    static func storedOnly(in dir: URL) throws -> String {
        let json = dir.appendingPathComponent("orders.json").path, stored = dir.appendingPathComponent("stored.json").path
        #expect(try CLITests.run(["convert", orders, json]).status == 0)
        var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        let elements = try #require(document["elements"] as? [[String: Any]])
        document["elements"] = elements.filter { $0["kind"] as? String != "delta" }
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: stored))
        return stored
    }

    /// orders.bin2's delta applied to its own stored rows: the rows `cat` shows of orders.bin2,
    /// over the stored rows unchanged; applied again to the folded rows, each change conflicts
    /// (its update's old Amount 7 is 8 now, its deleted row is gone, its inserted key is taken)
    /// and nothing is written.
    @Test func aDeltaAppliedToItsStoredRows() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stored = try Self.storedOnly(in: dir), output = dir.appendingPathComponent("applied.daBriefcase").path
        let applied = try CLITests.run(["apply", stored, Self.orders, output])
        #expect(applied.status == 0, "\(applied.stderr)")
        #expect(try CLITests.run(["cat", output, "--table", "Orders"]).text == CLITests.run(["cat", Self.orders, "--table", "Orders"]).text)
        #expect(try CLITests.run(["cat", output, "--table", "Orders", "--original"]).text == CLITests.run(["cat", stored, "--table", "Orders"]).text)
        #expect(try CLITests.run(["validate", output]).status == 0)
        let folded = dir.appendingPathComponent("folded.json").path, again = dir.appendingPathComponent("again.json").path
        #expect(try CLITests.run(["fold", Self.orders, folded]).status == 0)
        let conflicting = try CLITests.run(["apply", folded, Self.orders, again])
        #expect(conflicting.status == 1)
        #expect(!FileManager.default.fileExists(atPath: again))
        for expected in ["change 0 (record id 1100, update): DATA: ", "change 1 (record id 1101, delete): NOTFOUND: ",
                         "change 2 (record id 1102, insert): CONFLICT: "] {
            #expect(conflicting.stderr.contains(expected), "\(expected)")
        }
    }

    /// Changes whose 8-bit text is windows-1252 (é) cannot go into a UTF-8 target as their bytes.
    @Test func eightBitTextOfAnotherCodePageIsRefused() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stored = try Self.storedOnly(in: dir), changes = dir.appendingPathComponent("changes.json").path
        let document: [String: Any] = [
            "format": "briefcase-json", "version": 1, "container": "bin2", "encoding": "windows-1252",
            "elements": [["kind": "delta", "name": "Orders", "loggedFields": [["name": "ID", "type": "datAutoInc"], ["name": "Note", "type": "datString"]],
                          "keyFields": ["ID"], "reducedDelta": 0,
                          "changes": [["type": "insert", "recordID": 1, "status": "pending", "message": "", "old": [NSNull(), NSNull()], "new": [9, "café"]]]]],
        ]
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: changes))
        let output = dir.appendingPathComponent("out.json").path
        let refused = try CLITests.run(["apply", stored, changes, output])
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("8-bit text of \(changes) is windows-1252, of \(stored) utf-8: 'caf"))
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}

/// `briefcase merge` end to end (Spec/merge.md).
@Suite struct MergeCLITests {
    /// BASE: orders.bin2's stored rows. LOCAL: orders.bin2 (Bob's Amount 7 → 8 and Shipped set,
    /// Carol deleted, Dora inserted). REMOTE: Alice's Amount 12.5 → 13, Bob's 7 → 9, Carol deleted,
    /// Eve inserted. Bob's Amount is the one conflict: remote's 9 by default, 9 + (8 − 7) = 10 by sum.
    @Test func twoDevicesMerged() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let base = try ApplyCLITests.storedOnly(in: dir), remote = dir.appendingPathComponent("remote.json").path
        var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: base))) as? [String: Any])
        var elements = try #require(document["elements"] as? [[String: Any]])
        var rows = try #require(elements[0]["rows"] as? [[Any]])
        rows[0][2] = "13"
        rows[1][2] = "9"
        rows.remove(at: 2)
        rows.append([5, "Eve", "1.5", NSNull()])
        elements[0]["rows"] = rows
        document["elements"] = elements
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: remote))
        let output = dir.appendingPathComponent("merged.daBriefcase").path, report = dir.appendingPathComponent("report.jsonl").path
        let merged = try CLITests.run(["merge", base, ApplyCLITests.orders, remote, "-o", output, "--report", report])
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(try CLITests.run(["cat", output, "--table", "Orders"]).text == """
            {"ID": 1, "Customer": "Alice", "Amount": "13", "Shipped": "2023-03-15T12:00:00.000"}
            {"ID": 2, "Customer": "Bob", "Amount": "9", "Shipped": "2023-03-15T06:00:00.000"}
            {"ID": 4, "Customer": "Dora 😀", "Amount": "5", "Shipped": null}
            {"ID": 5, "Customer": "Eve", "Amount": "1.5", "Shipped": null}

            """)
        #expect(try CLITests.run(["cat", output, "--table", "Orders", "--original"]).text == CLITests.run(["cat", base, "--table", "Orders"]).text)
        #expect(try String(contentsOfFile: report, encoding: .utf8) == """
            {"table": "Orders", "key": {"ID": 2}, "field": "Amount", "base": "7", "local": "8", "remote": "9", "rule": "remote", "outcome": "remote"}

            """)
        #expect(try CLITests.run(["validate", output]).status == 0)
        let summed = try CLITests.run(["merge", base, ApplyCLITests.orders, remote, "-o", output, "--force", "--rule", "Orders.Amount=sum", "--strict", "--as-stored"])
        #expect(summed.status == 1)
        #expect(try CLITests.run(["cat", output, "--table", "Orders"]).text.contains(#"{"ID": 2, "Customer": "Bob", "Amount": "10""#))
        #expect(!(try CLITests.run(["info", output]).text.contains("delta")))
        // Trouble is 2: a rule that is none, a table without a key.
        #expect(try CLITests.run(["merge", base, base, base, "-o", output, "--force", "--rule", "Orders.Amount=most"]).status == 2)
        let keyless = FoldCLITests.fixtures + "/empty-table.daBriefcase"
        let refused = try CLITests.run(["merge", keyless, keyless, keyless, "-o", dir.appendingPathComponent("k.json").path])
        #expect(refused.status == 2 && refused.stderr.hasPrefix("briefcase: \(keyless): table '") && refused.stderr.contains("': it has no key"),
                "\(refused.stderr)")
    }

    /// BASE or REMOTE from standard input (spooled, read once, table by table) merges to the
    /// bytes the same files give.
    @Test func anInputFromStandardInput() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        let base = path("base.daBriefcase"), local = path("local.daBriefcase")
        #expect(try CLITests.run(["convert", try ApplyCLITests.storedOnly(in: dir), base]).status == 0)
        #expect(try CLITests.run(["convert", ApplyCLITests.orders, local]).status == 0)
        #expect(try CLITests.run(["merge", base, local, base, "-o", path("files.daBriefcase")]).status == 0)
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: base)))
        for arguments in [["-", local, base], [base, local, "-"]] {
            let output = path("stdin.daBriefcase")
            let run = try CLITests.run(["merge"] + arguments + ["-o", output, "--from", "dabriefcase", "--force"], stdin: bytes)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == Data(contentsOf: URL(fileURLWithPath: path("files.daBriefcase"))))
        }
    }

    /// Notes (ID key, Note 8-bit text) in `encoding` holding `rows`, as a JSON document at `path`
    /// (and, `binary`, converted to a `.daBriefcase` there, whose path is returned).
    static func notes(_ rows: [[Any]], encoding: String, at path: String, binary: Bool) throws -> String {
        let document: [String: Any] = [
            "format": "briefcase-json", "version": 1, "container": "dabriefcase", "encoding": encoding,
            "elements": [["kind": "table", "name": "Notes",
                          "schema": ["fieldPropertyCount": 2, "fields": [[["Name", "ID"], ["InPrimaryKey", "True"]], [["Name", "Note"], ["InPrimaryKey", "False"]]],
                                     "parameterPropertyCount": 0, "parameters": []] as [String: Any],
                          "fields": [["name": "ID", "type": "datInteger", "size": 0], ["name": "Note", "type": "datString", "size": 20]],
                          "rows": rows]],
        ]
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: path))
        guard binary else { return path }
        let converted = path + ".daBriefcase"
        #expect(try CLITests.run(["convert", path, converted]).status == 0)
        return converted
    }

    /// 8-bit text carried from a side into OUTPUT must mean what it meant there: a windows-1252
    /// LOCAL's "café" cannot go into a UTF-8 BASE's output (trouble), while its ASCII change can
    /// — whether the inputs are read whole (JSON) or table by table (binary).
    @Test(arguments: [false, true])
    func eightBitTextIsCarriedOnlyInOneCodePage(binary: Bool) throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        let base = try Self.notes([[1, "a"], [2, "b"]], encoding: "utf-8", at: path("base.json"), binary: binary)
        let accented = try Self.notes([[1, "café"], [2, "b"]], encoding: "windows-1252", at: path("accented.json"), binary: binary)
        let refused = try CLITests.run(["merge", base, accented, base, "-o", path("out.json")])
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("\(accented) reads as windows-1252, \(base) as utf-8: 8-bit text such as 'caf"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path("out.json")))
        // A windows-1252 side whose change is ASCII: nothing that depends on the code page is carried.
        let plain = try Self.notes([[1, "a"], [2, "bb"]], encoding: "windows-1252", at: path("plain.json"), binary: binary)
        let merged = try CLITests.run(["merge", base, plain, base, "-o", path("ok.json")])
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(try CLITests.run(["cat", path("ok.json"), "--table", "Notes"]).text == "{\"ID\": 1, \"Note\": \"a\"}\n{\"ID\": 2, \"Note\": \"bb\"}\n")
    }

    /// `rows` of the first table of the single-file briefcase at `path`, changed by `edit` and
    /// written back with the library.
    static func edit(_ path: String, _ edit: (inout [Row]) -> Void) throws {
        var warnings: [DecodingWarning] = []
        var document = try BriefcaseDocument.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), as: .dabriefcase, warnings: &warnings)
        let place = try #require(document.file.stream.elements.firstIndex { if case .table = $0 { true } else { false } })
        guard case .table(var table) = document.file.stream.elements[place] else { return }
        var rows = Array(table.rows)
        edit(&rows)
        table.rows = Rows(rows)
        document.file.stream.elements[place] = .table(table)
        try Data(try document.encode()).write(to: URL(fileURLWithPath: path))
    }

    /// Real git: after `git-setup`, two branches that edited one briefcase — one renamed Alice,
    /// the other changed Bob's Amount, both changed Carol's — merge through the driver: both
    /// edits are kept, Carol takes the merged-in branch's (REMOTE's) value, and git calls it merged.
    @Test(.enabled(if: DiffCLITests.gitAvailable, "git is not installed"))
    func gitMergesTwoBranches() throws {
        let (dir, git) = try DiffCLITests.repository()
        defer { try? FileManager.default.removeItem(at: dir) }
        let briefcase = dir.appendingPathComponent("Orders.daBriefcase").path
        #expect(try CLITests.run(["convert", try ApplyCLITests.storedOnly(in: dir), briefcase]).status == 0)
        try FileManager.default.removeItem(atPath: dir.appendingPathComponent("orders.json").path)
        try FileManager.default.removeItem(atPath: dir.appendingPathComponent("stored.json").path)
        let setup = try CLITests.run(["git-setup"], directory: dir)
        #expect(setup.text.contains("git config merge.briefcase.driver = "), "\(setup.text)")
        #expect(try git(["add", "."]).status == 0 && git(["commit", "-q", "-m", "base"]).status == 0)
        let main = try git(["rev-parse", "--abbrev-ref", "HEAD"]).text.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try git(["checkout", "-q", "-b", "phone"]).status == 0)
        try Self.edit(briefcase) { rows in
            rows[0][1] = .wide("Alice P")
            rows[2][2] = .currency(Currency(scaled: 1_010_000))
        }
        #expect(try git(["commit", "-q", "-am", "phone"]).status == 0)
        #expect(try git(["checkout", "-q", main]).status == 0)
        try Self.edit(briefcase) { rows in
            rows[1][2] = .currency(Currency(scaled: 90_000))
            rows[2][2] = .currency(Currency(scaled: 1_020_000))
        }
        #expect(try git(["commit", "-q", "-am", "laptop"]).status == 0)
        let merged = try git(["merge", "-q", "--no-edit", "phone"])
        #expect(merged.status == 0, "\(merged.text)\(merged.stderr)")
        #expect(try CLITests.run(["cat", briefcase, "--table", "Orders"]).text == """
            {"ID": 1, "Customer": "Alice P", "Amount": "12.5", "Shipped": "2023-03-15T12:00:00.000"}
            {"ID": 2, "Customer": "Bob", "Amount": "9", "Shipped": null}
            {"ID": 3, "Customer": "Carol", "Amount": "101", "Shipped": "2023-03-16T00:00:00.000"}

            """)
        #expect(try git(["status", "--porcelain"]).text.isEmpty)
    }
}
