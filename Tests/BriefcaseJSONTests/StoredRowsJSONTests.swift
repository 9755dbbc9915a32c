import Testing
import JSONCore
@testable import BriefcaseKit
@testable import BriefcaseJSON
import BriefcaseTestSupport

/// The JSON of rows kept as bytes (`JSONRowVisitor`, each value written from where it lies) is
/// that of the same rows as values: for every fixture against its expected document
/// (Fixtures/expected/, an oracle independent of the writer), and for random briefcases and
/// rows of large blobs, both ways.
@Suite struct StoredRowsJSONTests {
    /// The document of `document`, its tables' rows as they were decoded or turned into values.
    static func json(_ document: BriefcaseDocument, asValues: Bool, codePage: CodePage) throws -> [UInt8] {
        var document = document
        if asValues {
            document.file.stream.elements = document.file.stream.elements.map { element in
                guard case .table(var table) = element else { return element }
                table.rows = Rows(table.rows.array)
                return .table(table)
            }
        }
        var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: codePage)
        try encoder.encode(document)
        try encoder.writer.flush()
        return encoder.writer.sink.bytes
    }

    static func storedTables(_ document: BriefcaseDocument) -> Int {
        document.file.stream.tables.filter { table in
            table.rows.withStoredBytes(storages: table.fields.map(\.type.storage)) { _ in true } ?? false
        }.count
    }

    @Test(arguments: ExpectedFiles.validFixtures)
    func fixturesWriteTheirExpectedDocumentEitherWay(name: String) throws {
        let bytes = try FileIO.read(SamplePaths.fixtures.appendingPathComponent(name).path)
        var warnings: [DecodingWarning] = []
        let document = try BriefcaseDocument.decode(bytes, as: ExpectedFiles.container(of: name), warnings: &warnings)
        #expect(Self.storedTables(document) == document.file.stream.tables.count, "\(name): every table kept as bytes")
        let codePage = CodePage.detect(in: document.file).codePage
        let expected = try ExpectedFiles.json(of: name)
        let stored = try Self.json(document, asValues: false, codePage: codePage)
        #expect(ExpectedFiles.difference(stored, expected) == nil, "\(name): \(ExpectedFiles.difference(stored, expected) ?? "")")
        #expect(try Self.json(document, asValues: true, codePage: codePage) == stored, "\(name)")
    }

    @Test func randomBriefcasesWriteTheSameEitherWay() throws {
        var random = SplitMix(seed: 0x5704ED)
        for round in 0 ..< 60 {
            let made = RandomBriefcase.make(&random)
            let bytes = try made.encode(as: .dabriefcase)
            var warnings: [DecodingWarning] = []
            let document = try BriefcaseDocument.decode(bytes, as: .dabriefcase, warnings: &warnings)
            for codePage in [CodePage.utf8, try #require(CodePage(name: "windows-1252"))] {
                let stored = try Self.json(document, asValues: false, codePage: codePage)
                #expect(try Self.json(document, asValues: true, codePage: codePage) == stored, "round \(round), \(codePage.name)")
            }
        }
    }

    @Test func rowsOfLargeBlobsAreWrittenInBatchesToTheSameBytes() throws {
        // 100 rows of 60 KB blobs: the batches shrink to keep the writer's buffer small.
        func blob(_ i: Int) -> [UInt8] { (0 ..< 60_000).map { (k: Int) -> UInt8 in UInt8(truncatingIfNeeded: k &* 7 &+ i) } }
        var rows: [Row] = []
        for i in 0 ..< 100 {
            let note: Value? = i % 3 == 0 ? nil : .wide("row \(i)")
            rows.append([.integer(Int64(i)), .blob(ByteString(blob(i))), note])
        }
        let table = Table(name: "Blobs", fields: [FieldDescriptor(name: "ID", type: .integer), FieldDescriptor(name: "Data", type: .blob),
                                                   FieldDescriptor(name: "Note", type: .wideString)], rows: rows)
        let bytes = try BriefcaseDocument(container: .bin2, file: BriefcaseFile(stream: Bin2Stream(elements: [.table(table)]))).encode()
        var warnings: [DecodingWarning] = []
        let document = try BriefcaseDocument.decode(bytes, as: .bin2, warnings: &warnings)
        #expect(Self.storedTables(document) == 1)
        let stored = try Self.json(document, asValues: false, codePage: .utf8)
        #expect(try Self.json(document, asValues: true, codePage: .utf8) == stored)
        // Every row is there, in order, with its blob as base64.
        let parsed = try JSONParser.parse(stored)
        let lines = parsed["elements"]?[0]?["rows"]
        #expect(lines?.arrayValue?.count == 100)
        #expect(lines?[99]?[0]?.int64Value == 99)
        #expect(lines?[1]?[1]?.stringValue == Base64.encode(blob(1)))
    }
}
