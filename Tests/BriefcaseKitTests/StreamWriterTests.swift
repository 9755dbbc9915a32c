import Foundation
import Testing
import BriefcaseTestSupport
@testable import BriefcaseKit

/// `BriefcaseStreamWriter` writes, element by element, the bytes the whole-document encoders write.
struct StreamWriterTests {
    static func streamed(_ document: BriefcaseDocument) throws(BriefcaseError) -> [UInt8] {
        var writer = try BriefcaseStreamWriter(output: MemoryStreamOutput(), container: document.container,
                                               properties: document.file.properties, headerPadding: document.file.headerPadding)
        for element in document.file.stream.elements { try writer.write(element) }
        try writer.finish()
        return writer.output.bytes
    }

    @Test func everyFixtureAndSampleGivesTheEncodersBytes() throws {
        var inputs: [(String, [UInt8], ContainerFormat)] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: SamplePaths.fixtures.path).sorted()
        where name.hasSuffix(".daBriefcase") || name.hasSuffix(".bin2") {
            inputs.append((name, [UInt8](try Data(contentsOf: SamplePaths.fixtures.appendingPathComponent(name))),
                           name.hasSuffix(".bin2") ? .bin2 : .dabriefcase))
        }
        for name in SamplePaths.sampleNames {
            if let bytes = SamplePaths.sample(name) { inputs.append((name, bytes, .dabriefcase)) }
        }
        var checked = 0
        for (name, bytes, container) in inputs {
            var warnings: [DecodingWarning] = []
            guard let document = try? BriefcaseDocument.decode(bytes, as: container, warnings: &warnings) else { continue }
            #expect(try Self.streamed(document) == document.encode(), "\(name)")
            // The same elements as the other container too (a single file from a bare stream…).
            var other = document
            other.container = container == .bin2 ? .dabriefcase : .bin2
            if other.container == .dabriefcase || document.file.properties.isEmpty {
                #expect(try Self.streamed(other) == other.encode(), "\(name) as \(other.container)")
            }
            checked += 1
        }
        #expect(checked >= 7 + (SamplePaths.samplesPresent ? 2 : 0)) // the 7 valid fixtures, and the real samples when present
    }

    @Test func schemaEndPositionsAndPaddingAreAbsolute() throws {
        var table = Table(name: "T", fields: [FieldDescriptor(name: "a", type: .integer, size: 0)])
        table.rows = [[.integer(1)], [nil]]
        var positioned = table
        positioned.name = "U"
        positioned.schemaEndWhenAbsent = .position
        var withSchema = table
        withSchema.name = "V"
        withSchema.schema = Schema(fieldPropertyCount: 1, fields: [[SchemaProperty(name: "Name", value: "a")]],
                                   parameterPropertyCount: 0, parameters: [])
        let file = BriefcaseFile(properties: [BriefcaseProperty(name: "k", value: "v")],
                                 stream: Bin2Stream(elements: [.table(table), .table(positioned), .table(withSchema)]),
                                 headerPadding: ByteString([1, 2, 3]))
        let document = BriefcaseDocument(container: .dabriefcase, file: file)
        #expect(try Self.streamed(document) == document.encode())
    }

    @Test func bin2RefusesProperties() {
        #expect(throws: BriefcaseError.self) {
            _ = try BriefcaseStreamWriter(output: MemoryStreamOutput(), container: .bin2,
                                          properties: [BriefcaseProperty(name: "k", value: "v")])
        }
    }

    @Test func atomicOutputIsPatchedInPlace() throws {
        let path = NSTemporaryDirectory() + "stream-writer-\(getpid()).daBriefcase"
        defer { unlink(path) }
        let bytes = [UInt8](try Data(contentsOf: SamplePaths.fixtures.appendingPathComponent("all-types.daBriefcase")))
        var warnings: [DecodingWarning] = []
        let document = try BriefcaseDocument.decode(bytes, as: .dabriefcase, warnings: &warnings)
        var writer = try BriefcaseStreamWriter(output: try AtomicOutput(path: path), container: .dabriefcase,
                                               properties: document.file.properties, headerPadding: document.file.headerPadding)
        for element in document.file.stream.elements { try writer.write(element) }
        try writer.finish()
        var output = writer.output
        try output.commit()
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) == bytes)
    }
}
