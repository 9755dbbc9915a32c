import Foundation
import Testing
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
