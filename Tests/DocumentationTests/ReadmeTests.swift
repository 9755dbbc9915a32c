import Foundation
import Testing

/// The README is for users (issue 25): short, and its performance table an excerpt of
/// Benchmarks.md — which the bench writes — naming the commit and machine it came from.
struct ReadmeTests {
    static func read(_ name: String) throws -> String {
        try String(contentsOf: Documentation.repository.appendingPathComponent(name), encoding: .utf8)
    }

    /// The lines of `text` from the heading `## title` to the next `## ` heading.
    static func section(_ title: String, of text: String) -> [Substring] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: Substring("## " + title)) else { return [] }
        let end = lines[(start + 1)...].firstIndex { $0.hasPrefix("## ") } ?? lines.endIndex
        return Array(lines[(start + 1)..<end])
    }

    /// The value of a `| name | value |` row of Benchmarks.md's header table.
    static func field(_ name: String, in text: String) -> String? {
        text.split(separator: "\n").first { $0.hasPrefix("| \(name) | ") }.map {
            String($0.dropFirst("| \(name) | ".count).dropLast(2))
        }
    }

    @Test func readmeIsAtMostThreeHundredLines() throws {
        let lines = try Self.read("README.md").split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count <= 300, "README.md has \(lines.count) lines; details belong in docs/cli.md, ARCHITECTURE.md or DocC")
    }

    @Test func benchmarksAreWrittenByTheBench() throws {
        let benchmarks = try Self.read("Benchmarks.md")
        #expect(benchmarks.contains("<!-- Written by briefcase-bench --markdown"))
        #expect(Self.field("commit", in: benchmarks) != nil)
        #expect(Self.field("machine", in: benchmarks) != nil)
        #expect(Self.field("command", in: benchmarks)?.contains("--markdown Benchmarks.md") == true)
    }

    /// Every row of the README's table is a row of Benchmarks.md, and the README names the
    /// commit and machine Benchmarks.md names.
    @Test func performanceAtAGlanceQuotesBenchmarks() throws {
        let readme = try Self.read("README.md"), benchmarks = try Self.read("Benchmarks.md")
        let section = Self.section("Performance at a glance", of: readme)
        let rows = section.filter { $0.hasPrefix("| ") && !$0.hasPrefix("|---") }
        #expect(rows.count >= 4, "a header and at least three figures")
        let benchmarkLines = Set(benchmarks.split(separator: "\n"))
        for row in rows {
            #expect(benchmarkLines.contains(row), "README row not in Benchmarks.md: \(row)")
        }
        let text = section.joined(separator: "\n")
        for name in ["commit", "machine"] {
            let value = try #require(Self.field(name, in: benchmarks))
            #expect(text.contains(value), "the README's table should name Benchmarks.md's \(name): \(value)")
        }
        #expect(text.contains("Benchmarks.md"))
    }
}
