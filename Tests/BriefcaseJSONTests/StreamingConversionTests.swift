import JSONCore
@testable import BriefcaseJSON
import BriefcaseKit
import BriefcaseTestSupport
import Foundation
import Testing

/// Binary briefcase → JSON, by every way there is of writing it, against oracles that do not
/// come from the writer: each fixture's expected document (`Fixtures/expected/NAME.json`, checked
/// once against a rebuild from the fixture's models by Spec/json-format.md, see
/// `Fixtures/README.md`), the real samples' own bytes (a round trip), the offsets of the damaged
/// fixtures (computed by hand), and documents written here by hand. The code page a document
/// names is checked against values written by hand, or against `CodePage.detect` run on the
/// model the test built (the rule of the README, "--encoding"), never against what a second
/// way of writing chose. (Folders written element by element: `FolderWriterTests`.)
@Suite struct StreamingConversionTests {
    /// The ways a binary briefcase becomes JSON.
    enum Way: String, CaseIterable, CustomStringConvertible {
        /// `BriefcaseElements.open` and `read(into:)` the encoder: element by element, starting
        /// over when a row contradicts the code page the heads suggested.
        case fromTheFile
        /// The same for an output that cannot be taken back (standard output): exact detection first.
        case fromTheFileWithoutStartingOver
        /// `BriefcaseElements(bytes:)`, element by element.
        case fromMemory
        /// `BriefcaseDocument.decode`, `CodePage.detect`, `JSONDocumentEncoder.encode`.
        case fromADecodedDocument
        var description: String { rawValue }
    }

    struct Written {
        var json: [UInt8]
        var codePage: CodePage
        var detection: CodePageDetection?
        var warnings: [DecodingWarning]
        /// Outputs begun: more than one when the writer started over.
        var starts: Int
    }

    static func write(_ path: String, _ container: ContainerFormat, _ way: Way) throws -> Written {
        func elementByElement(_ elements: BriefcaseElements, canRestart: Bool) throws -> Written {
            var sink = StartCounting(JSONDocumentEncoder(sink: ArraySink(), codePage: .utf8))
            let report = try elements.read(into: &sink, encoding: nil, skipDamaged: false, canRestart: canRestart)
            return Written(json: sink.sink.writer.sink.bytes, codePage: report.codePage, detection: report.detection,
                           warnings: report.warnings, starts: sink.starts)
        }
        switch way {
        case .fromTheFile: return try elementByElement(BriefcaseElements.open(path, as: container), canRestart: true)
        case .fromTheFileWithoutStartingOver: return try elementByElement(BriefcaseElements.open(path, as: container), canRestart: false)
        case .fromMemory: return try elementByElement(BriefcaseElements(bytes: FileIO.read(path), as: container), canRestart: true)
        case .fromADecodedDocument:
            var warnings: [DecodingWarning] = []
            let document = try BriefcaseDocument.decode(FileIO.read(path), as: container, warnings: &warnings)
            let detection = CodePage.detect(in: document.file)
            var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: detection.codePage)
            try encoder.encode(document)
            return Written(json: encoder.writer.sink.bytes, codePage: detection.codePage, detection: detection, warnings: warnings, starts: 1)
        }
    }

    /// Counts the times a sink is begun (more than once: the source started over).
    struct StartCounting<Sink: BriefcaseSink>: BriefcaseSink {
        var sink: Sink
        var starts = 0
        init(_ sink: Sink) { self.sink = sink }
        mutating func begin(_ head: BriefcaseHead) throws(BriefcaseError) { starts += 1; try sink.begin(head) }
        mutating func element(_ element: Element) throws(BriefcaseError) { try sink.element(element) }
        mutating func finish() throws(BriefcaseError) { try sink.finish() }
        mutating func abandon() { sink.abandon() }
        var needs: SinkNeeds { sink.needs }
        mutating func elementCheckingUTF8(_ element: Element, at position: Int) throws(BriefcaseError) -> Bool {
            try sink.elementCheckingUTF8(element, at: position)
        }
    }

    // MARK: fixtures and samples

    @Test(arguments: ExpectedFiles.validFixtures)
    func everyFixtureGivesItsExpectedJSONEveryWay(name: String) throws {
        let path = SamplePaths.fixtures.appendingPathComponent(name).path
        let expected = try ExpectedFiles.json(of: name)
        for way in Way.allCases {
            let written = try Self.write(path, ExpectedFiles.container(of: name), way)
            #expect(ExpectedFiles.difference(written.json, expected) == nil, "\(name), \(way): \(ExpectedFiles.difference(written.json, expected) ?? "")")
            #expect(written.warnings.isEmpty, "\(name), \(way): \(written.warnings)")
            #expect(written.starts == 1, "\(name), \(way): the heads' code page held")
        }
    }

    /// The oracle itself reads back as the fixture: by the element-by-element conversion and by
    /// the document decoder with the binary writer.
    @Test(arguments: ExpectedFiles.validFixtures)
    func theExpectedJSONConvertsBackToTheFixture(name: String) throws {
        let original = try FileIO.read(SamplePaths.fixtures.appendingPathComponent(name).path)
        let expected = try ExpectedFiles.json(of: name)
        #expect(try StreamReaderTests.convert(expected) == original, "\(name)")
        #expect(try JSONDocumentDecoder().decode(expected).encode() == original, "\(name)")
    }

    /// The real samples (Chinese .NET files: GBK, the reference notes) come back byte for byte
    /// from the JSON every way writes.
    @Test(.enabled(if: SamplePaths.samplesPresent, "../shared/briefcase-samples is absent"), arguments: SamplePaths.sampleNames)
    func realSamplesRoundTripByteForByteEveryWay(name: String) throws {
        let path = SamplePaths.samples.appendingPathComponent(name).path
        let original = try FileIO.read(path)
        for way in Way.allCases {
            let written = try Self.write(path, .dabriefcase, way)
            #expect(written.codePage == .gbk, "\(name), \(way)")
            #expect(written.starts == 1, "\(name), \(way)")
            #expect(try StreamReaderTests.convert(written.json) == original, "\(name), \(way)")
        }
    }

    /// Where each damaged fixture fails, computed by hand (`damagedBase` in
    /// Sources/FixtureMaker/main.swift, `Fixtures/README.md`): offset, and the element when the
    /// header and the index are sound.
    static let damaged: [(name: String, offset: Int, element: String?)] = [
        ("damaged-truncated-file.daBriefcase", 24, nil), ("damaged-truncated-row.daBriefcase", 83, "T"),
        ("damaged-row-count.daBriefcase", 33, "T"), ("damaged-index-position.daBriefcase", 24, nil),
        ("damaged-type-200.daBriefcase", 70, "T"), ("damaged-type-0.daBriefcase", 70, "T"),
    ]

    @Test(arguments: damaged.indices)
    func damagedFixturesAreRefusedWhereTheyAreDamagedEveryWay(index: Int) throws {
        let (name, offset, element) = Self.damaged[index]
        let path = SamplePaths.fixtures.appendingPathComponent(name).path
        for way in Way.allCases {
            do {
                _ = try Self.write(path, .dabriefcase, way)
                Issue.record("\(name), \(way): converted")
            } catch let error as BriefcaseError {
                #expect(error.offset == offset, "\(name), \(way): \(error)")
                #expect(error.element == element, "\(name), \(way): \(error)")
                if way == .fromTheFile || way == .fromTheFileWithoutStartingOver { #expect(error.file == path, "\(name), \(way): \(error)") }
            }
        }
    }

    /// A folder is read table file by table file, sorted by file name (Spec/folder-briefcase.md
    /// §2.4), each file's elements in its order: its document is the fixture's, elements in that order.
    @Test(arguments: [("all-types.daBriefcase", [0]), ("empty-delta.daBriefcase", [2, 0, 1])]) // Archive.daBriefcase, Orders.daBriefcase
    func aFolderGivesTheFixturesDocumentInTheOrderOfItsTableFiles(name: String, order: [Int]) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("streaming-folder-in-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Briefcase.open(SamplePaths.fixtures.appendingPathComponent(name).path).write(to: dir, as: .folder)
        let elements = BriefcaseElements(try Briefcase.openFolder(dir))
        var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: .utf8)
        _ = try elements.read(into: &encoder, encoding: nil, skipDamaged: false)
        let sink = encoder.writer.sink
        var expected = try #require(try JSONParser.parse(try ExpectedFiles.json(of: name)).objectValue, "\(name): not an object")
        let fixtureElements = try #require(expected["elements"]?.arrayValue, "\(name): no elements")
        expected["elements"] = .array(order.map { fixtureElements[$0] })
        #expect(try JSONParser.parse(sink.bytes) == .object(expected), "\(name)")
    }

    // MARK: code page: rows that contradict the heads

    static let gbkName: [UInt8] = [0xBF, 0xCE, 0xB3, 0xCC] // 课程 in GBK

    /// A briefcase of `elements`, written to a temporary file.
    static func write(_ elements: [Element], properties: [BriefcaseProperty] = []) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("streaming-\(UUID().uuidString).daBriefcase").path
        try FileIO.writeAtomically(BriefcaseFileCodec.encode(BriefcaseFile(properties: properties, stream: Bin2Stream(elements: elements))), to: path)
        return path
    }

    static func table(_ name: String, descriptor: ByteString = "Text", schemaName: String? = nil, values: [ByteString]) -> Element {
        .table(Table(name: ByteString(utf8: name),
                     schema: schemaName.map { Schema(fieldPropertyCount: 2, fields: [[SchemaProperty("Name", $0), SchemaProperty("DataType", "datString")]]) },
                     fields: [FieldDescriptor(name: descriptor, type: .string, size: 50)],
                     rows: values.map { [.ansiString($0)] }))
    }

    /// Written by hand (Spec/json-format.md §3, §8): a single file without properties.
    static func document(encoding: String, _ elements: [String]) -> [UInt8] {
        Array(("{\n  \"format\": \"briefcase-json\",\n  \"version\": 1,\n  \"container\": \"dabriefcase\",\n  \"encoding\": \"\(encoding)\",\n"
            + "  \"properties\": [],\n  \"elements\": [\n    " + elements.joined(separator: ",\n    ") + "\n  ]\n}\n").utf8)
    }

    /// Written by hand (§4.1, §8): a table without schema (schema end 0), one column "Text", `datString` of size 50.
    static func plainTable(_ name: String, _ rows: [String]) -> String {
        "{\"kind\": \"table\", \"name\": \"\(name)\",\n     \"schema\": null, \"schemaEnd\": \"zero\",\n"
            + "     \"fields\": [{\"name\": \"Text\", \"type\": \"datString\", \"size\": 50}],\n     \"rows\": ["
            + rows.map { "\n      [\"\($0)\"]" }.joined(separator: ",") + "\n     ]}"
    }

    @Test func aWindows1252ValueBehindASCIIHeadsStartsOverWithTheExactChoice() throws {
        let elements = [Self.table("Plain", values: ["abc", "def"]), Self.table("Accents", values: ["caf\u{E9}".latin1])]
        let path = try Self.write(elements)
        defer { unlink(path) }
        // Not UTF-8 (a lone E9), no schema to reveal a code page: windows-1252, where E9 is é.
        let expected = Self.document(encoding: "windows-1252", [Self.plainTable("Plain", ["abc", "def"]), Self.plainTable("Accents", ["café"])])
        for way in [Way.fromTheFile, .fromTheFileWithoutStartingOver] {
            let written = try Self.write(path, .dabriefcase, way)
            #expect(ExpectedFiles.difference(written.json, expected) == nil, "\(way): \(ExpectedFiles.difference(written.json, expected) ?? "")")
            #expect(written.detection?.reason == "not UTF-8 and nothing in the file reveals the code page; assuming windows-1252")
            #expect(written.detection?.hint == CodePage.detect(in: Bin2Stream(elements: elements)).hint)
            #expect(written.starts == (way == .fromTheFile ? 2 : 1), "\(way): started over once (or detected first)")
        }
    }

    @Test func gbkHeadsWithGBKValuesNeedNoSecondStart() throws {
        let path = try Self.write([Self.table("Courses", descriptor: ByteString(Self.gbkName), schemaName: "课程", values: [ByteString([0xCA, 0xFD, 0xD1, 0xA7])])])
        defer { unlink(path) }
        // The descriptor's GBK bytes read as the schema's Name 课程; CA FD D1 A7 is 数学 in GBK.
        let expected = Self.document(encoding: "gbk", ["""
            {"kind": "table", "name": "Courses",
                 "schema": {"fieldPropertyCount": 2, "fields": [
                    [["Name", "课程"], ["DataType", "datString"]]
                   ],
                   "parameterPropertyCount": 0, "parameters": []},
                 "fields": [{"name": "课程", "type": "datString", "size": 50}],
                 "rows": [
                  ["数学"]
                 ]}
            """])
        let written = try Self.write(path, .dabriefcase, .fromTheFile)
        #expect(ExpectedFiles.difference(written.json, expected) == nil, "\(ExpectedFiles.difference(written.json, expected) ?? "")")
        #expect(written.detection?.reason == "column names in the row descriptors match the schema's UTF-8 Name properties when decoded as gbk (1 non-ASCII name checked)")
        #expect(written.starts == 1)
    }

    /// Random mixes of strings in several code pages, in heads and in values: the document names
    /// the code page (and reason, and hint) `CodePage.detect` gives for the model built here, and
    /// reads back as exactly that model.
    @Test func randomMixesOfCodePagesNameTheDetectedCodePageAndReadBackAsTheModel() throws {
        let pool: [ByteString] = [
            "plain", ByteString(utf8: "数学"), ByteString([0xCA, 0xFD, 0xD1, 0xA7]), "caf\u{E9}".latin1,
            ByteString([0x81, 0x40]), ByteString([0xA4, 0x40]), ByteString([0x82, 0xA0]), ByteString([0xFF, 0xFE, 0x80]),
            ByteString([0xB0, 0xA1]), ByteString([0xC3]),
        ]
        var generator = SplitMix64(state: 7)
        var restarts = 0, codePages = Set<String>()
        for _ in 0..<40 {
            var elements: [Element] = []
            for t in 0..<Int(generator.next() % 4 + 1) {
                let gbkHead = generator.next() % 3 == 0
                let values = (0..<Int(generator.next() % 4)).map { _ in pool[Int(generator.next() % UInt64(pool.count))] }
                elements.append(Self.table("T\(t)", descriptor: gbkHead ? ByteString(Self.gbkName) : "Text",
                                           schemaName: gbkHead ? "课程" : nil, values: values))
            }
            let path = try Self.write(elements)
            defer { unlink(path) }
            let detection = CodePage.detect(in: Bin2Stream(elements: elements))
            let written = try Self.write(path, .dabriefcase, .fromTheFile)
            #expect(written.codePage == detection.codePage)
            if detection.codePage != .utf8 { #expect(written.detection?.reason == detection.reason) }
            #expect(written.detection?.hint == detection.hint)
            let (document, named) = try JSONDocumentDecoder().decodeNamingCodePage(written.json)
            #expect(named == detection.codePage)
            #expect(document == BriefcaseDocument(container: .dabriefcase, file: BriefcaseFile(stream: Bin2Stream(elements: elements))))
            if written.starts > 1 { restarts += 1 }
            codePages.insert(detection.codePage.name)
        }
        #expect(restarts > 0, "some mixes made the writer start over")
        #expect(codePages.count >= 3, "the mixes reach several code pages: \(codePages)")
    }

    // MARK: damage

    @Test func damagedElementIsSkippedOnlyWhenAsked() throws {
        let path = try Self.write([
            Self.table("First", values: ["a", "b"]),
            Self.table("Second", values: ["c", "d", "e"]),
            Self.table("Third", values: ["f"]),
        ])
        defer { unlink(path) }
        // Break the second table: its last value ("e", length-prefixed) announces 2^31-1 bytes.
        var bytes = try FileIO.read(path)
        let second = try BriefcaseElements.open(path, as: .dabriefcase).elements[1].range
        #expect(Array(bytes[second.upperBound - 5 ..< second.upperBound]) == [1, 0, 0, 0, UInt8(ascii: "e")])
        bytes.replaceSubrange(second.upperBound - 5 ..< second.upperBound - 1, with: [0xFF, 0xFF, 0xFF, 0x7F])
        try FileIO.writeAtomically(bytes, to: path, replacing: true)  // (the file broken in place)
        for way in Way.allCases {
            do {
                _ = try Self.write(path, .dabriefcase, way)
                Issue.record("\(way): converted")
            } catch let error as BriefcaseError {
                #expect(error.element == "Second", "\(way)")
                #expect(error.offset == second.upperBound - 5, "\(way): the length that does not fit")
                if way == .fromTheFile { #expect(error.file == path) }
            }
        }
        let reopened = try BriefcaseElements.open(path, as: .dabriefcase)
        var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: .utf8)
        let report = try reopened.read(into: &encoder, encoding: nil, skipDamaged: true)
        let sink = encoder.writer.sink
        #expect(report.skipped.map(\.name) == ["Second"])
        #expect(report.skipped.first?.error.offset == second.upperBound - 5)
        // What was written is the document of the readable tables.
        let expected = Self.document(encoding: "utf-8", [Self.plainTable("First", ["a", "b"]), Self.plainTable("Third", ["f"])])
        #expect(ExpectedFiles.difference(sink.bytes, expected) == nil, "\(ExpectedFiles.difference(sink.bytes, expected) ?? "")")
    }
}

private extension String {
    /// The ISO-8859-1 bytes of an all-Latin-1 string.
    var latin1: ByteString { ByteString(unicodeScalars.map { UInt8($0.value) }) }
}
