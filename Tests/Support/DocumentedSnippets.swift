import Foundation

/// Snippets of the documentation that a test runs: a test file marks each region it shares with
/// a Markdown file between `// MARK: snippet of PATH` and `// MARK: end`, and
/// `missing(from:)` lists the regions that PATH does not hold as written (dedented). The
/// documentation's snippets are type-checked whole by DocumentationTests; these regions are
/// also run, on fixtures, by the tests that hold them.
public enum DocumentedSnippets {
    /// One marked region: the Markdown file it belongs to (relative to the repository) and its
    /// text, dedented by its first line's indentation.
    public struct Region: Equatable, Sendable {
        public var file: String
        public var text: String
    }

    /// The marked regions of `text`.
    public static func regions(in text: String) -> [Region] {
        var result: [Region] = []
        var current: (file: String, lines: [Substring])?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("// MARK: snippet of ") {
                current = (String(trimmed.dropFirst("// MARK: snippet of ".count)), [])
            } else if trimmed == "// MARK: end", let open = current {
                let indent = open.lines.first?.prefix { $0 == " " }.count ?? 0
                let lines = open.lines.map { String($0.dropFirst(min(indent, $0.prefix { $0 == " " }.count))) }
                result.append(Region(file: open.file, text: lines.joined(separator: "\n")))
                current = nil
            } else if current != nil {
                current!.lines.append(line)
            }
        }
        return result
    }

    /// The regions of the test source `source` (relative to the repository) that their Markdown
    /// file does not contain as written, and how many regions it has.
    public static func missing(from source: String) throws -> (missing: [Region], count: Int) {
        let repository = SamplePaths.repository
        let regions = regions(in: try String(contentsOf: repository.appendingPathComponent(source), encoding: .utf8))
        let missing = try regions.filter { region in
            !(try String(contentsOf: repository.appendingPathComponent(region.file), encoding: .utf8)).contains(region.text)
        }
        return (missing, regions.count)
    }
}
