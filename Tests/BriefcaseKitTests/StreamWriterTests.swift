import Foundation
import Testing
import BriefcaseTestSupport
@testable import BriefcaseKit

/// `BriefcaseStreamWriter`, the one binary writer, against bytes it did not write: the fixtures
/// and the real samples moved into the other container by hand (`HandStream`), layouts assembled
/// by hand, and the input itself. (That every fixture and sample is written back byte for byte:
/// `FixtureTests`, `RealSampleTests`.)
struct StreamWriterTests {
    static func streamed(_ document: BriefcaseDocument) throws(BriefcaseError) -> [UInt8] {
        var writer = try BriefcaseStreamWriter(output: MemoryStreamOutput(), container: document.container,
                                               properties: document.file.properties, headerPadding: document.file.headerPadding)
        for element in document.file.stream.elements { try writer.write(element) }
        try writer.finish()
        return writer.output.bytes
    }

    /// A single file as a bare stream is its stream moved to offset 0; a bare stream as a single
    /// file is the 16-byte header of no properties, then the stream moved to offset 16.
    @Test func theOtherContainerIsTheStreamMovedByHand() throws {
        var inputs: [(String, [UInt8], ContainerFormat)] = TestPaths.validFixtureNames.map {
            ($0, (try? TestPaths.fixture($0)) ?? [], $0.hasSuffix(".bin2") ? .bin2 : .dabriefcase)
        }
        for name in TestPaths.sampleNames {
            if let bytes = TestPaths.sample(name) { inputs.append((name, bytes, .dabriefcase)) }
        }
        var checked = 0
        for (name, bytes, container) in inputs {
            var warnings: [DecodingWarning] = []
            var document = try BriefcaseDocument.decode(bytes, as: container, warnings: &warnings)
            let start = container == .bin2 ? 0 : HandStream.dataOffset(bytes)
            let elements = HandStream.elements(bytes, streamStart: start)
            document.container = container == .bin2 ? .dabriefcase : .bin2
            if document.container == .dabriefcase {
                #expect(try Self.streamed(document) == HandStream.singleFile(elements), "\(name)")
            } else if document.file.properties.isEmpty {
                #expect(try Self.streamed(document) == HandStream.stream(elements, at: 0), "\(name)")
            } else {
                let error = #expect(throws: BriefcaseError.self, "\(name): a bare stream holds no properties") { try Self.streamed(document) }
                #expect(error?.kind == .invalidModel && error?.message.hasPrefix("a bare Bin2 stream cannot hold the") == true, "\(name): \(String(describing: error))")
            }
            checked += 1
        }
        #expect(checked == TestPaths.validFixtureNames.count + (TestPaths.samplesPresent ? 2 : 0))
    }

    /// Properties, header padding, and the three ways a table stores its schema end: 0 (no
    /// schema), the position of the row count (no schema), the end of the schema.
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

        func rows(_ b: inout Bytes) {
            b.i32(2); b.i32(1); b.field("a", 6)
            b.u8(0); b.i32(1)                                // row 0: 1
            b.u8(1)                                          // row 1: NULL
        }
        var b = Bytes()
        b.ascii("DABRC600"); b.i32(29); b.i32(1); b.str("k"); b.str("v"); b.raw([1, 2, 3])
        b.ascii("DABIN200"); b.i32(157)                      // @29; the index at 157
        b.u8(0); b.i32(0); rows(&b)                          // T @41: no schema, schema end 0
        b.u8(0); b.i32(75); rows(&b)                         // U @70: no schema, schema end = its row count
        b.u8(1); b.i32(133)                                  // V @99: schema ending at 133
        b.i32(1); b.i32(1); b.prop("Name", "a"); b.i32(0); b.i32(0)
        rows(&b)
        b.i32(3)                                             // the index @157
        b.i32(0); b.str("T"); b.i32(41)
        b.i32(0); b.str("U"); b.i32(70)
        b.i32(0); b.str("V"); b.i32(99)
        #expect(try Self.streamed(BriefcaseDocument(container: .dabriefcase, file: file)) == b.bytes)
    }

    /// Raw copies move a table's schema end with its body (whatever base the source's positions
    /// had), and leave a zero schema end alone.
    @Test func rawCopiesAreRebased() throws {
        // Each source, and the same stream with absolute positions, which `HandStream` reads.
        let absolute = HandBuiltStreamTests.fileWithPositions(relativeTo: 0)
        let sources: [(bytes: [UInt8], container: ContainerFormat, absolute: [UInt8], streamStart: Int)] = [
            (HandBuiltStreamTests.fileWithPositions(relativeTo: 32), .dabriefcase, absolute, 32),
            (absolute, .dabriefcase, absolute, 32),
            (HandBuiltStreamTests.noSchemaStream(schemaEnd: 0), .bin2, HandBuiltStreamTests.noSchemaStream(schemaEnd: 0), 0),
            (HandBuiltStreamTests.noSchemaStream(schemaEnd: 17), .bin2, HandBuiltStreamTests.noSchemaStream(schemaEnd: 17), 0),
            (HandBuiltStreamTests.customersExample, .bin2, HandBuiltStreamTests.customersExample, 0),
        ]
        var raw = try BriefcaseStreamWriter(output: MemoryStreamOutput(), container: .dabriefcase)
        var expected: [HandStream.Element] = []
        for source in sources {
            let reader = try BriefcaseElements(bytes: source.bytes, as: source.container)
            for stored in reader.elements { try raw.write(raw: try stored.rawBytes(), of: stored) }
            expected += HandStream.elements(source.absolute, streamStart: source.streamStart)
        }
        try raw.finish()
        #expect(raw.output.bytes == HandStream.singleFile(expected))
    }

    @Test func bin2RefusesProperties() throws {
        let error = try #require(throws: BriefcaseError.self) {
            _ = try BriefcaseStreamWriter(output: MemoryStreamOutput(), container: .bin2,
                                          properties: [BriefcaseProperty(name: "k", value: "v")])
        }
        #expect(error.kind == .invalidModel && error.message.hasPrefix("a bare Bin2 stream cannot hold the 1 briefcase properties"), "\(error)")
    }

    @Test func atomicOutputIsPatchedInPlace() throws {
        let path = NSTemporaryDirectory() + "stream-writer-\(getpid()).daBriefcase"
        defer { unlink(path) }
        let bytes = [UInt8](try Data(contentsOf: SamplePaths.fixtures.appendingPathComponent("all-types.daBriefcase")))
        var warnings: [DecodingWarning] = []
        let document = try BriefcaseDocument.decode(bytes, as: .dabriefcase, warnings: &warnings)
        var writer = try BriefcaseStreamWriter(output: try SharedAtomicOutput(path: path, replacing: false), container: .dabriefcase,
                                               properties: document.file.properties, headerPadding: document.file.headerPadding)
        for element in document.file.stream.elements { try writer.write(element) }
        try writer.finish()
        try writer.output.commit()
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) == bytes)
    }
}
