import Foundation
import Testing

/// Spec/robustness.md §8.9 (failed writes are errors) and §8.11 (usage errors are exit 2).
struct UsageAndOutputTests {
    static let fixture = CLITests.fixtures.appendingPathComponent("nulls.daBriefcase").path

    @Test func usageErrorsExitTwo() throws {
        for arguments in [[], ["help", "bogus"], ["help", "convert", "bogus"], ["bogus"], ["convert"], ["convert", "x.json"],
                          ["info", Self.fixture, "--bogus"], ["cat", Self.fixture], ["validate"]] {
            let result = try CLITests.run(arguments)
            #expect(result.status == 2, "briefcase \(arguments.joined(separator: " ")) → \(result.status)")
            #expect(!result.stderr.isEmpty, "says why: \(arguments)")
        }
        #expect(try CLITests.run(["help", "bogus"]).stderr.contains("'bogus'"))
        // Help that was asked for is not an error.
        for arguments in [["--help"], ["help"], ["help", "convert"], ["convert", "--help"]] {
            let result = try CLITests.run(arguments)
            #expect(result.status == 0, "briefcase \(arguments.joined(separator: " "))")
            #expect(result.text.contains("USAGE"))
        }
    }

    /// `info X > /dev/full` and `info X >&-` used to exit 0 with nothing written.
    @Test func failedWritesToStandardOutputExitTwo() throws {
        let commands = ["\"$BRIEFCASE\" info '\(Self.fixture)'", "\"$BRIEFCASE\" info '\(Self.fixture)' --json",
                        "\"$BRIEFCASE\" validate '\(Self.fixture)'", "\"$BRIEFCASE\" cat '\(Self.fixture)' --table Mixed",
                        "\"$BRIEFCASE\" cat '\(Self.fixture)' --table Mixed --format csv",
                        "\"$BRIEFCASE\" convert '\(Self.fixture)' - --to json", "\"$BRIEFCASE\" --help"]
        for command in commands {
            for redirection in ["> /dev/full", ">&-"] {
                let result = try CLITests.shell("\(command) \(redirection)")
                #expect(result.status == 2, "\(command) \(redirection) → \(result.status)")
                #expect(result.stderr.contains("standard output: cannot write"), "\(command) \(redirection): \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1)
            }
        }
    }

    /// With standard output closed, a file the command opens must not become standard output.
    @Test func closedStandardOutputDoesNotCaptureTheOutputFile() throws {
        let dir = try CLITests.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("out.json").path
        let result = try CLITests.shell("\"$BRIEFCASE\" convert '\(Self.fixture)' '\(output)' >&-")
        #expect(result.status == 0, "\(result.stderr)")
        let back = dir.appendingPathComponent("back.daBriefcase").path
        #expect(try CLITests.run(["convert", output, back]).status == 0)
        #expect(FileManager.default.contents(atPath: back) == FileManager.default.contents(atPath: Self.fixture))
    }
}
