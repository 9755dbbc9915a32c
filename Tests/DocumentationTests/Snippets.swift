import BriefcaseTestSupport
import Foundation

/// One fenced ```swift block of the documentation, where it is and what it imports.
struct Snippet: Sendable, CustomStringConvertible {
    /// The Markdown file, relative to the repository.
    var file: String
    /// The line of the opening fence (1-based).
    var line: Int
    var text: String

    var description: String { "\(file):\(line)" }

    /// The modules of its leading `import` lines (after any comment or blank line), in order.
    var imports: [String] {
        var modules: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("//") { continue }
            guard trimmed.hasPrefix("import ") else { break }
            modules.append(String(trimmed.dropFirst("import ".count)).trimmingCharacters(in: .whitespaces))
        }
        return modules
    }

    /// `// swift-tools-version:X` of a manifest snippet (`import PackageDescription`).
    var toolsVersion: String? {
        guard let first = text.split(separator: "\n").first, first.hasPrefix("// swift-tools-version:") else { return nil }
        return String(first.dropFirst("// swift-tools-version:".count)).trimmingCharacters(in: .whitespaces)
    }
}

/// The documentation whose Swift snippets must compile: the README, ARCHITECTURE.md, docs/,
/// Spec/ and every DocC catalog's articles (`Sources/*/*.docc`).
enum Documentation {
    static let repository = SamplePaths.repository

    /// The Markdown files, relative to the repository, sorted.
    static var files: [String] {
        let manager = FileManager.default
        var files = ["README.md", "ARCHITECTURE.md", "CHANGELOG.md"].filter { manager.fileExists(atPath: repository.appendingPathComponent($0).path) }
        for folder in ["docs", "Spec"] {
            let names = (try? manager.contentsOfDirectory(atPath: repository.appendingPathComponent(folder).path)) ?? []
            files += names.filter { $0.hasSuffix(".md") }.map { "\(folder)/\($0)" }
        }
        let sources = repository.appendingPathComponent("Sources")
        for target in (try? manager.contentsOfDirectory(atPath: sources.path)) ?? [] {
            for catalog in ((try? manager.contentsOfDirectory(atPath: sources.appendingPathComponent(target).path)) ?? []) where catalog.hasSuffix(".docc") {
                let root = "Sources/\(target)/\(catalog)"
                let enumerator = manager.enumerator(atPath: repository.appendingPathComponent(root).path)
                while let name = enumerator?.nextObject() as? String {
                    if name.hasSuffix(".md") { files.append("\(root)/\(name)") }
                }
            }
        }
        return files.sorted()
    }

    /// Every ```swift block of every file.
    static var snippets: [Snippet] {
        files.flatMap { file in
            let text = (try? String(contentsOf: repository.appendingPathComponent(file), encoding: .utf8)) ?? ""
            return snippets(in: text, file: file)
        }
    }

    /// The ```swift blocks of one Markdown text (fences at any indentation, as DocC allows).
    static func snippets(in text: String, file: String) -> [Snippet] {
        var result: [Snippet] = []
        var current: (line: Int, indent: Int, lines: [Substring])?
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.drop { $0 == " " }
            if var open = current {
                if trimmed.hasPrefix("```") {
                    result.append(Snippet(file: file, line: open.line, text: open.lines.joined(separator: "\n")))
                    current = nil
                } else {
                    open.lines.append(line.dropFirst(min(open.indent, line.prefix { $0 == " " }.count)))
                    current = open
                }
            } else if trimmed.hasPrefix("```swift") {
                current = (index + 1, line.count - trimmed.count, [])
            }
        }
        return result
    }

    /// The library products Package.swift declares: what a snippet may import (besides
    /// Foundation, and PackageDescription in a manifest).
    static var libraryProducts: Set<String> {
        let manifest = (try? String(contentsOf: repository.appendingPathComponent("Package.swift"), encoding: .utf8)) ?? ""
        let pattern = try! NSRegularExpression(pattern: #"\.library\(name: "([A-Za-z0-9_]+)""#)
        let range = NSRange(manifest.startIndex..., in: manifest)
        return Set(pattern.matches(in: manifest, range: range).compactMap { match in
            Range(match.range(at: 1), in: manifest).map { String(manifest[$0]) }
        })
    }
}
