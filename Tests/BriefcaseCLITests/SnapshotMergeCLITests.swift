import DatastoreKit
import Foundation
import Testing
import BriefcaseTestSupport

/// `briefcase merge` of plain datastore snapshots end to end (Spec/merge.md §5): expected
/// records, deltas and report lines worked out by hand from the Datastore's rules.
@Suite struct SnapshotMergeCLITests {
    static let rows = """
        {"tid":"tasks","rowid":"t1","data":{"title":"Milk","tags":["a","b","c"],"n":{"I":"10"}}},
        {"tid":"tasks","rowid":"t2","data":{"title":"Call"}},
        {"tid":"tasks","rowid":"t3","data":{"title":"Pay"}}
        """

    static func document(_ changes: String?) -> String {
        "{\"rev\": 4, \"rows\": [\(rows)]" + (changes.map { ", \"deltas\": [{\"rev\": 4, \"nonce\": \"x\", \"changes\": [\($0)]}]" } ?? "") + "}\n"
    }

    static let local = #"["U","tasks","t1",{"tags":["LI",0,"x"],"n":["P",{"I":"12"}],"title":["P","Oat milk"]}],["U","tasks","t2",{"title":["P","Call mum"]}],["D","tasks","t3"]"#
    static let remote = #"["U","tasks","t1",{"tags":["LD",2],"n":["P",{"I":"15"}],"title":["P","Soy milk"]}],["U","tasks","t3",{"title":["P","Pay all"]}],["I","tasks","t4",{"title":"New"}]"#

    /// BASE, LOCAL and REMOTE written into a new directory.
    static func inputs() throws -> (dir: URL, paths: [String]) {
        let dir = try CLITests.temporaryDirectory()
        var paths: [String] = []
        for (name, changes) in [("base", nil), ("local", local), ("remote", remote)] {
            let path = dir.appendingPathComponent(name + ".snapshot.json").path
            try Data(document(changes).utf8).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        return (dir, paths)
    }

    @Test func mergesRecordsFieldsAndListsAndReportsTheConflicts() throws {
        let (dir, paths) = try Self.inputs()
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("merged.snapshot.json").path, report = dir.appendingPathComponent("conflicts.jsonl").path
        let run = try CLITests.run(["merge"] + paths + ["-o", output, "--rule", "tasks.n=sum", "--report", report])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("3 conflict(s) resolved (2 by a field's rule)"))
        let merged = try SnapshotDocument(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: output))))
        // BASE's records, and one delta: REMOTE's changes, then LOCAL's made to follow them —
        // its title dropped (remote), its n the sum 15 + (12 − 10), its delete of t3 kept.
        #expect(merged.snapshot == (try SnapshotDocument(parsing: Self.document(nil))).snapshot)
        let expected = try SnapshotDocument(parsing: "{\"rev\": 4, \"rows\": [], \"deltas\": [{\"rev\": 4, \"nonce\": \"x\", \"changes\": [\(Self.remote), "
            + #"["U","tasks","t1",{"tags":["LI",0,"x"],"n":["P",{"I":"17"}]}],["U","tasks","t2",{"title":["P","Call mum"]}],["D","tasks","t3"]"#
            + "]}]}")
        #expect(merged.deltas?.map(\.changes) == expected.deltas?.map(\.changes))
        let records = try merged.appliedSnapshot()
        #expect(records["tasks", "t1"] == ["title": "Soy milk", "tags": ["x", "a", "b"], "n": .int(17)])
        #expect(records["tasks", "t2"] == ["title": "Call mum"] && records["tasks", "t3"] == nil && records["tasks", "t4"] == ["title": "New"])
        #expect(try String(contentsOfFile: report, encoding: .utf8) == """
            {"table": "tasks", "key": {"rowid": "t1"}, "field": "n", "base": {"I":"10"}, "local": {"I":"12"}, "remote": {"I":"15"}, "rule": "sum", "outcome": "sum"}
            {"table": "tasks", "key": {"rowid": "t1"}, "field": "title", "base": "Milk", "local": "Oat milk", "remote": "Soy milk", "rule": "remote", "outcome": "remote"}
            {"table": "tasks", "key": {"rowid": "t3"}, "field": null, "base": null, "local": null, "remote": null, "rule": null, "outcome": "deleted"}

            """)
        #expect(try CLITests.run(["validate", output]).status == 0)
        // --strict: written all the same, exit 1.
        let strict = try CLITests.run(["merge"] + paths + ["-o", output, "--force", "--strict"])
        #expect(strict.status == 1 && FileManager.default.fileExists(atPath: output))
    }

    @Test func asStoredAndOtherFormats() throws {
        let (dir, paths) = try Self.inputs()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stored = dir.appendingPathComponent("stored.snapshot.json").path
        #expect(try CLITests.run(["merge"] + paths + ["-o", stored, "--as-stored"]).status == 0)
        let document = try SnapshotDocument(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: stored))))
        #expect(document.deltas == nil && document.snapshot.rev == 5 && document.snapshot.recordCount == 3)
        #expect(document.snapshot["tasks", "t1"] == ["title": "Soy milk", "tags": ["x", "a", "b"], "n": .int(15)])
        // A briefcase: the merged document converted as `convert` converts a snapshot.
        let briefcase = dir.appendingPathComponent("merged.daBriefcase").path
        #expect(try CLITests.run(["merge"] + paths + ["-o", briefcase]).status == 0)
        let cat = try CLITests.run(["cat", briefcase, "--table", "tasks"])
        #expect(cat.text == """
            {"rowid": "t1", "title": "Soy milk", "tags": "[\\"x\\",\\"a\\",\\"b\\"]", "n": 15}
            {"rowid": "t2", "title": "Call mum", "tags": null, "n": null}
            {"rowid": "t4", "title": "New", "tags": null, "n": null}

            """, "\(cat.stderr)")
    }

    @Test func troubleNamesTheInputAndExits2() throws {
        let (dir, paths) = try Self.inputs()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(Self.document(#"["U","tasks","t9",{"title":["P","Nobody"]}]"#).utf8).write(to: URL(fileURLWithPath: paths[2]))
        let output = dir.appendingPathComponent("merged.snapshot.json").path
        let run = try CLITests.run(["merge"] + paths + ["-o", output])
        #expect(run.status == 2)
        #expect(run.stderr.contains(paths[2]) && run.stderr.contains("t9"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// A snapshot this tool wrote from a briefcase is merged as that briefcase (as before): rows
    /// by the table's key, values as the briefcase holds them — Alice's Amount, a currency, edited
    /// to 13 and 14 in the two copies conflicts as `{"ID": 1}` with decimal text, where a
    /// datastore merge would say `{"rowid": "1"}` and numbers.
    @Test func aSnapshotWrittenFromABriefcaseMergesAsOne() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        let snapshot = path("orders.snapshot.json"), output = path("out.snapshot.json"), report = path("report.jsonl")
        #expect(try CLITests.run(["convert", SamplePaths.fixtures.path + "/orders.bin2", snapshot]).status == 0)
        #expect(try CLITests.run(["merge", snapshot, snapshot, snapshot, "-o", output]).status == 0)
        #expect(try String(contentsOfFile: output, encoding: .utf8).contains("\"briefcase\":"))
        let text = try String(contentsOfFile: snapshot, encoding: .utf8)
        let alice = #""Customer":"Alice","Amount":12.5"#
        #expect(text.contains(alice))
        for (name, amount) in [("l.snapshot.json", "13.0"), ("r.snapshot.json", "14.0")] {
            try Data(text.replacingOccurrences(of: alice, with: #""Customer":"Alice","Amount":"# + amount).utf8).write(to: URL(fileURLWithPath: path(name)))
        }
        let merged = try CLITests.run(["merge", snapshot, path("l.snapshot.json"), path("r.snapshot.json"), "-o", output, "--force", "--report", report])
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(try String(contentsOfFile: report, encoding: .utf8) == """
            {"table": "Orders", "key": {"ID": 1}, "field": "Amount", "base": "12.5", "local": "13", "remote": "14", "rule": "remote", "outcome": "remote"}

            """)
    }

    /// Real git: two branches that each added a delta to one snapshot merge through the driver
    /// `git-setup` installs for `*.snapshot.json`; git's own line merge would have conflicted.
    @Test(.enabled(if: DiffCLITests.gitAvailable, "git is not installed"))
    func gitMergesTwoBranches() throws {
        let (dir, git) = try DiffCLITests.repository()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("Tasks.snapshot.json").path
        func write(_ changes: String?) throws { try Data(Self.document(changes).utf8).write(to: URL(fileURLWithPath: path)) }
        try write(nil)
        let setup = try CLITests.run(["git-setup"], directory: dir)
        #expect(setup.text.contains("git config merge.briefcase-snapshot.driver = "), "\(setup.text)")
        #expect(try git(["add", "."]).status == 0 && git(["commit", "-q", "-m", "base"]).status == 0)
        let main = try git(["rev-parse", "--abbrev-ref", "HEAD"]).text.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try git(["checkout", "-q", "-b", "phone"]).status == 0)
        try write(#"["U","tasks","t1",{"tags":["LI",0,"x"]}]"#)
        #expect(try git(["commit", "-q", "-am", "phone"]).status == 0)
        #expect(try git(["checkout", "-q", main]).status == 0)
        try write(#"["U","tasks","t1",{"tags":["LD",2]}],["D","tasks","t2"]"#)
        #expect(try git(["commit", "-q", "-am", "laptop"]).status == 0)
        let merged = try git(["merge", "-q", "--no-edit", "phone"])
        #expect(merged.status == 0, "\(merged.text)\(merged.stderr)")
        let records = try SnapshotDocument(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: path)))).appliedSnapshot()
        #expect(records["tasks", "t1"]?["tags"] == ["x", "a", "b"] && records["tasks", "t2"] == nil)
        #expect(try git(["status", "--porcelain"]).text.isEmpty)
    }
}
