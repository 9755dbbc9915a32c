import JSONCore
import Testing
import BriefcaseTestSupport
import BriefcaseJSON
import BriefcaseKit

/// The README's source-and-sink snippet ("Link the library"), as written there, on a fixture:
/// the briefcase's JSON document and back give its bytes.
struct ReadmeSnippetTests {
    @Test func sourcesAndSinksSnippet() throws {
        let path = SamplePaths.fixtures.appendingPathComponent("gbk.daBriefcase").path
        let elements = try BriefcaseElements.open(path, as: .dabriefcase)
        var json = JSONDocumentEncoder(sink: ArraySink(), codePage: .utf8)       // any ResettableByteSink
        let report = try elements.read(into: &json, encoding: nil, skipDamaged: false)
        #expect(report.codePage.name == "gbk")
        #expect(json.writer.sink.bytes == (try ExpectedFiles.json(of: "gbk.daBriefcase")))

        var binary = BinarySink(output: MemoryStreamOutput())                    // or an AtomicOutput
        try json.writer.sink.bytes.withUnsafeBytes { bytes in
            var reader = JSONStreamReader(bytes)
            try reader.read(into: &binary)
        }
        #expect(binary.output.bytes == (try FileIO.read(path)))
    }
}
