import Foundation
import Testing

/// Every Swift snippet of the documentation compiles with exactly the imports it shows: each
/// ```swift block of the README, ARCHITECTURE.md, docs/, Spec/ and the DocC articles is a file
/// of its own, type-checked by swiftc against the library modules built for these tests.
struct SnippetTests {
    static let snippets = Documentation.snippets

    @Test(.enabled(if: SnippetCompiler.available, "no swiftc on the PATH, or the library modules are not built next to the tests"),
          arguments: snippets)
    func compilesWithTheImportsItShows(_ snippet: Snippet) throws {
        let result = try SnippetCompiler.typecheck(snippet)
        #expect(result.status == 0, "\(snippet) does not compile on its own:\n\(snippet.text)\n\(result.output)")
    }

    @Test(arguments: snippets)
    func beginsWithItsImports(_ snippet: Snippet) {
        let imports = snippet.imports
        #expect(!imports.isEmpty, "\(snippet) shows no import: every snippet starts with the imports it needs")
        let allowed = Documentation.libraryProducts.union(["Foundation", "PackageDescription"])
        for module in imports {
            #expect(allowed.contains(module), "\(snippet) imports \(module), which is not a library product of this package")
        }
    }

    /// The snippets are found where they are: the README's two, and the articles of every
    /// catalog that has code (so an extractor that finds nothing cannot pass the tests above).
    @Test func theSnippetsAreFound() {
        let byFile = Dictionary(grouping: Self.snippets, by: \.file)
        #expect(byFile["README.md"]?.count == 2)
        for catalog in ["BriefcaseKit", "BriefcaseJSON", "BriefcaseRecords", "BriefcaseSQLite", "BriefcaseDatastore", "DatastoreKit", "JSONCore", "BriefcaseDiff"] {
            #expect(byFile.keys.contains { $0.hasPrefix("Sources/\(catalog)/\(catalog).docc/") }, "no snippet found in \(catalog).docc")
        }
        #expect(Self.snippets.allSatisfy { $0.text.contains("\n") })
    }

    /// The harness sees a missing import: a snippet naming BriefcaseKit's types while importing
    /// BriefcaseJSON alone (which uses BriefcaseKit without re-exporting it) does not compile.
    @Test(.enabled(if: SnippetCompiler.available, "no swiftc on the PATH, or the library modules are not built next to the tests"))
    func aMissingImportFails() throws {
        let complete = Snippet(file: "(test)", line: 1, text: """
            import BriefcaseKit
            import BriefcaseJSON

            let elements = try BriefcaseElements.open("Orders.daBriefcase", as: .dabriefcase)
            var json = JSONDocumentEncoder(sink: ArraySink(), codePage: .utf8)
            """)
        #expect(try SnippetCompiler.typecheck(complete).status != 0, "ArraySink is JSONCore's: without that import it must fail")
        var withCore = complete
        withCore.text = "import JSONCore\n" + complete.text
        #expect(try SnippetCompiler.typecheck(withCore).status == 0)
        var withoutKit = withCore
        withoutKit.text = withCore.text.replacingOccurrences(of: "import BriefcaseKit\n", with: "")
        #expect(try SnippetCompiler.typecheck(withoutKit).status != 0, "BriefcaseElements is BriefcaseKit's")
    }

    /// Fences inside a DocC article may be indented, and other languages are not Swift.
    @Test func extractsOnlySwiftBlocks() {
        let text = """
            Text.

            ```swift
            import JSONCore
            let a = 1
            ```

            ```sh
            swift test
            ```

              ```swift
              import BriefcaseKit
                let b = 2
              ```
            """
        let found = Documentation.snippets(in: text, file: "x.md")
        #expect(found.map(\.line) == [3, 12])
        #expect(found.map(\.text) == ["import JSONCore\nlet a = 1", "import BriefcaseKit\n  let b = 2"])
        #expect(found.map(\.imports) == [["JSONCore"], ["BriefcaseKit"]])
    }
}

extension Snippet: CustomTestStringConvertible {
    var testDescription: String { description }
}
