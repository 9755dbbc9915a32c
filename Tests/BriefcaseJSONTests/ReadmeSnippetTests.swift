import JSONCore
import Testing
import BriefcaseTestSupport
import BriefcaseJSON
import BriefcaseKit

/// The BriefcaseJSON catalog's source-and-sink snippet, run on a fixture: the briefcase's JSON
/// document and back give its bytes. The marked region must appear in the article as written
/// (DocumentationTests type-checks the whole snippet with its imports).
struct ReadmeSnippetTests {
    @Test func sourcesAndSinksSnippet() throws {
        let path = SamplePaths.fixtures.appendingPathComponent("gbk.daBriefcase").path
        // MARK: snippet of Sources/BriefcaseJSON/BriefcaseJSON.docc/BriefcaseJSON.md
        let elements = try BriefcaseElements.open(path, as: .dabriefcase)
        var json = JSONDocumentEncoder(sink: ArraySink(), codePage: .utf8)       // any ResettableByteSink
        let report = try elements.read(into: &json, encoding: nil, skipDamaged: false)
        print(report.codePage, report.warnings)                                  // detected, e.g. gbk

        var binary = BinarySink(output: MemoryStreamOutput())                    // or an AtomicOutput
        try json.writer.sink.bytes.withUnsafeBytes { bytes in
            var reader = JSONStreamReader(bytes)
            try reader.read(into: &binary)
        }
        // MARK: end
        #expect(report.codePage.name == "gbk")
        #expect(json.writer.sink.bytes == (try ExpectedFiles.json(of: "gbk.daBriefcase")))
        #expect(binary.output.bytes == (try FileIO.read(path)))
    }

    @Test func theArticleHoldsTheRegion() throws {
        let (missing, count) = try DocumentedSnippets.missing(from: "Tests/BriefcaseJSONTests/ReadmeSnippetTests.swift")
        for region in missing { Issue.record("\(region.file) lacks this snippet:\n\(region.text)") }
        #expect(count == 1)
    }
}
