import Foundation
import JSONCore
import Testing
import BriefcaseTestSupport
@testable import BriefcaseJSON
@testable import BriefcaseKit

/// A binary briefcase written with its elements encoded ahead on the workers that parsed or
/// decoded them (`BinarySink.elementPreparation()`, `Bin2Encoder.encodeAhead`): each body encoded
/// as if at position 0, its schema end moved where it lands — the original file, byte for byte.
struct PreparedBinaryElementTests {
    /// Counts the elements that come prepared, passing everything to the binary sink.
    struct CountingPrepared: PassingPreparedElements {
        var inner: BinarySink<MemoryStreamOutput>
        var prepared = 0
        mutating func element(_ element: Element, prepared: Inner.Prepared, at position: Int) throws(BriefcaseError) {
            self.prepared += 1
            try inner.element(element, prepared: prepared, at: position)
        }
    }

    /// The fixtures and a briefcase of many tables (schemas at every position, deltas between
    /// them): their JSON converted back with 1, 2 and 8 jobs gives the original bytes, and
    /// with more than one job every element came encoded ahead.
    @Test func jsonWithJobsGivesTheOriginalBytes() throws {
        var originals: [(String, [UInt8])] = try ExpectedFiles.validFixtures.map { name in
            (name, try FileIO.read(SamplePaths.fixtures.appendingPathComponent(name).path))
        }
        originals.append(("many tables", try ManyTables(groups: 30, seed: 11).document.encode()))
        for (name, original) in originals {
            let container = name.hasSuffix(".bin2") ? ContainerFormat.bin2 : .dabriefcase
            var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: .utf8)
            _ = try BriefcaseElements(bytes: original, as: container).read(into: &encoder, encoding: nil, skipDamaged: false)
            try encoder.writer.flush()
            let json = encoder.writer.sink.bytes
            for jobs in [1, 2, 8] {
                var sink = CountingPrepared(inner: BinarySink(output: MemoryStreamOutput()))
                try Self.read(json, jobs: jobs, into: &sink)
                #expect(sink.inner.output.bytes == original, "\(name), jobs \(jobs)")
                let elements = try BriefcaseElements(bytes: original, as: container).elements.count
                #expect(sink.prepared == (jobs == 1 || elements < 2 ? 0 : elements), "\(name), jobs \(jobs): elements came encoded")
            }
        }
    }

    static func read(_ json: [UInt8], jobs: Int, into sink: inout CountingPrepared) throws {
        var failure: (any Error)?
        json.withUnsafeBytes { raw in
            var reader = JSONStreamReader(raw)
            reader.jobs = jobs
            do { try reader.read(into: &sink) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Tables encoded at position 0 and written after others: the schema end, the one absolute
    /// position in a body, is where `write(_:)` puts it (hand-checked: the body's start plus the
    /// schema's length), and a table without a schema and a zero there keeps its zero.
    @Test func theSchemaEndMovesWithTheBody() throws {
        let fields = [FieldDescriptor(name: "ID", type: .integer)]
        let schema = Schema(fieldPropertyCount: 1, fields: [[SchemaProperty(name: "Name", value: "ID")]], parameterPropertyCount: 0, parameters: [])
        let withSchema = Table(name: "S", schema: schema, fields: fields, rows: [[.integer(1)]])
        var zeroMarker = Table(name: "Z", fields: fields, rows: [[.integer(2)]])
        zeroMarker.schemaEndWhenAbsent = .zero
        let elements: [Element] = [.table(withSchema), .table(zeroMarker), .table(withSchema)]
        var writer = try BriefcaseStreamWriter(output: MemoryStreamOutput(), container: .bin2)
        var starts: [Int] = []
        for element in elements {
            starts.append(writer.count)
            try writer.write(encoded: .success(try Bin2Encoder.encodeAhead(element, into: [])), kind: element.kind, name: element.name)
        }
        try writer.finish()
        let bytes = writer.output.bytes
        #expect(bytes == (try Bin2Encoder.encode(Bin2Stream(elements: elements))))
        func schemaEnd(at start: Int) -> Int { Int(ByteReader(bytes: bytes).getInteger(at: start + 1, as: Int32.self)!) }
        // Schema: flag, schema end (5 bytes), then the field property count (4), one field of one
        // property (count 4; name length 4 + "Name"; value length 4 + "ID"), the parameter
        // property count (4) and no parameters (count 4).
        let schemaLength = 5 + 4 + 4 + (4 + 4) + (4 + 2) + 4 + 4
        #expect(schemaEnd(at: starts[0]) == starts[0] + schemaLength)
        #expect(schemaEnd(at: starts[1]) == 0)
        #expect(schemaEnd(at: starts[2]) == starts[2] + schemaLength)
        #expect(starts[2] > starts[0])
    }

    /// Rows parsed from JSON fill a buffer of their own: encoded ahead, they are kept apart, not
    /// copied (the body is the table's head; its rows are that very buffer), and written after
    /// the head they give the table's bytes. Rows decoded from a file share their element's
    /// buffer with its head: those are copied into the body.
    @Test func rowsParsedFromJSONAreKeptApartNotCopied() throws {
        let fields = [FieldDescriptor(name: "ID", type: .integer), FieldDescriptor(name: "Text", type: .string, size: 20)]
        let table = Table(name: "Apart", fields: fields, rows: (0 ..< 50).map { r in [.integer(Int64(r)), .ansiString(ByteString(utf8: "row \(r)"))] })
        let original = try BriefcaseFileCodec.encode(BriefcaseFile(stream: Bin2Stream(elements: [.table(table)])))
        var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: .utf8)
        _ = try BriefcaseElements(bytes: original, as: .dabriefcase).read(into: &encoder, encoding: nil, skipDamaged: false)
        try encoder.writer.flush()
        let parsed = try JSONDocumentDecoder().decode(encoder.writer.sink.bytes).file.stream.elements[0]
        let parsedTable = try #require(parsed.asTable)
        let apart = try Bin2Encoder.encodeAhead(parsed, into: [])
        // Each row: the NULL mask (1 byte), the integer (4) and the length-prefixed text (4 + its bytes).
        let rowBytes = (0 ..< 50).reduce(0) { $0 + 1 + 4 + 4 + "row \($1)".utf8.count }
        #expect(apart.storedRows.count == rowBytes)
        #expect(parsedTable.rows.withStoredBytes(storages: fields.map(\.type.storage)) { rows in
            rows.baseAddress == apart.storedRows.withUnsafeBufferPointer { $0.baseAddress }
        } == true, "the rows' own buffer, not a copy")
        var writer = ByteWriter()
        try Bin2Encoder.encodeTable(table, into: &writer, at: 0)
        #expect(apart.bytes + apart.storedRows == writer.bytes)
        // Decoded from the file: one buffer with the head, so copied.
        var warnings: [DecodingWarning] = []
        let decoded = try BriefcaseDocument.decode(original, as: .dabriefcase, warnings: &warnings).file.stream.elements[0]
        let copied = try Bin2Encoder.encodeAhead(decoded, into: [])
        #expect(copied.storedRows.isEmpty)
        #expect(copied.bytes == writer.bytes)
        // Written by the stream writer after another element: the original layout.
        var stream = try BriefcaseStreamWriter(output: MemoryStreamOutput(), container: .bin2)
        try stream.write(.table(Table(name: "First", fields: fields, rows: [[.integer(7), .ansiString("x")]])))
        try stream.write(encoded: .success(apart), kind: .table, name: parsed.name)
        try stream.finish()
        #expect(stream.output.bytes == (try Bin2Encoder.encode(Bin2Stream(elements: [
            .table(Table(name: "First", fields: fields, rows: [[.integer(7), .ansiString("x")]])), .table(table)]))))
    }
}
