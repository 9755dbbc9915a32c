import BriefcaseTestSupport
import Foundation
import Testing

/// The CLI manual (docs/cli.md) holds every command's help exactly as the tool prints it at 80
/// columns (`Scripts/cli-manual.sh` writes the blocks), and the README's synopsis names every
/// command the tool has and no other.
struct CLIManualTests {
    static func read(_ name: String) throws -> String {
        try String(contentsOf: SamplePaths.repository.appendingPathComponent(name), encoding: .utf8)
    }

    /// What `briefcase ARGUMENTS` prints, 80 columns wide.
    static func help(_ arguments: [String]) throws -> String {
        let result = try CLITests.run(arguments, environment: ["COLUMNS": "80"])
        #expect(result.status == 0, "briefcase \(arguments.joined(separator: " ")): \(result.stderr)")
        return String(decoding: result.stdout, as: UTF8.self)
    }

    /// The subcommands `briefcase --help` lists (`  NAME   summary` under SUBCOMMANDS:).
    static func subcommands() throws -> [String] {
        let lines = try help(["--help"]).split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "SUBCOMMANDS:") else { return [] }
        return lines[(start + 1)...].prefix { !$0.isEmpty }.compactMap { line in
            guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
            return line.split(separator: " ").first.map(String.init)
        }
    }

    /// The ```text block after `<!-- briefcase ARGUMENTS -->` in the manual, or nil.
    static func block(after marker: String, in manual: String) -> String? {
        let lines = manual.split(separator: "\n", omittingEmptySubsequences: false)
        guard let at = lines.firstIndex(of: Substring("<!-- \(marker) -->")), at + 1 < lines.count, lines[at + 1] == "```text",
              let end = lines[(at + 2)...].firstIndex(of: "```") else { return nil }
        return lines[(at + 2)..<end].joined(separator: "\n")
    }

    @Test func theManualHoldsEveryHelpAsPrinted() throws {
        let manual = try Self.read("docs/cli.md")
        let commands = try Self.subcommands()
        #expect(commands.count >= 5, "info, validate, cat, convert, query at least: \(commands)")
        for arguments in [["--help"]] + commands.map({ ["help", $0] }) {
            let marker = "briefcase " + arguments.joined(separator: " ")
            let printed = try Self.help(arguments).trimmingCharacters(in: .newlines)
            let written = Self.block(after: marker, in: manual)
            #expect(written != nil, "docs/cli.md has no block for `\(marker)`: add a `<!-- \(marker) -->` line and run Scripts/cli-manual.sh")
            #expect(written == nil || written == printed, "docs/cli.md's `\(marker)` is not what the tool prints: run Scripts/cli-manual.sh")
        }
    }

    @Test func theReadmeNamesEveryCommand() throws {
        let readme = try Self.read("README.md")
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)
        let section = try #require(lines.firstIndex(of: "## Commands"))
        let open = try #require(lines[section...].firstIndex(of: "```"))
        let close = try #require(lines[(open + 1)...].firstIndex(of: "```"))
        let named = lines[(open + 1)..<close].compactMap { $0.split(separator: " ").dropFirst().first.map(String.init) }
        #expect(named == (try Self.subcommands()), "the README's synopsis, in the order of briefcase --help")
        #expect(lines[(open + 1)..<close].allSatisfy { $0.hasPrefix("briefcase ") })
    }
}
