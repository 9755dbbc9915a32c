import JSONCore
@testable import BriefcaseJSON
import BriefcaseKit
import BriefcaseTestSupport
import Foundation
import Testing

/// Element-by-element conversion to JSON (`BriefcaseElements`, `JSONDocumentEncoder.write`)
/// against the whole-document JSON encoder, which is the oracle: the same bytes, the same code
/// page (and reason, and hint), the same warnings, the same errors. (Folders written element by
/// element: `FolderWriterTests`, against the input's own bytes.)
@Suite struct StreamingConversionTests {
    /// The whole-document path: decode everything, detect, encode.
    static func wholeJSON(_ bytes: [UInt8], _ container: ContainerFormat) throws -> (json: [UInt8], detection: CodePageDetection, warnings: [DecodingWarning]) {
        var warnings: [DecodingWarning] = []
        let document = try BriefcaseDocument.decode(bytes, as: container, warnings: &warnings)
        let detection = CodePage.detect(in: document.file)
        var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: detection.codePage)
        try encoder.encode(document)
        return (encoder.writer.sink.bytes, detection, warnings)
    }

    /// The streaming path; `starts` counts the outputs begun (more than one: started over).
    static func streamedJSON(_ path: String, _ container: ContainerFormat, canRestart: Bool = true) throws
        -> (json: [UInt8], report: ElementConversionReport, starts: Int) {
        let elements = try BriefcaseElements.open(path, as: container)
        var sink = StartCounting(JSONDocumentEncoder(sink: ArraySink(), codePage: .utf8))
        let report = try elements.read(into: &sink, encoding: nil, skipDamaged: false, canRestart: canRestart)
        return (sink.sink.writer.sink.bytes, report, sink.starts)
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
        mutating func wroteOnlyValidUTF8() -> Bool? { sink.wroteOnlyValidUTF8() }
    }

    static func inputs() -> [(path: String, container: ContainerFormat)] {
        var inputs: [(String, ContainerFormat)] = []
        let fixtures = (try? FileManager.default.contentsOfDirectory(atPath: SamplePaths.fixtures.path)) ?? []
        for name in fixtures.sorted() {
            let path = SamplePaths.fixtures.appendingPathComponent(name).path
            if name.hasSuffix(".daBriefcase") { inputs.append((path, .dabriefcase)) }
            if name.hasSuffix(".bin2") { inputs.append((path, .bin2)) }
        }
        for name in SamplePaths.sampleNames {
            let path = SamplePaths.samples.appendingPathComponent(name).path
            if FileManager.default.fileExists(atPath: path) { inputs.append((path, .dabriefcase)) }
        }
        return inputs
    }

    @Test func everyFixtureAndSampleGivesTheSameJSONBothWays() throws {
        let inputs = Self.inputs()
        #expect(inputs.count >= 12)
        var converted = 0
        for (path, container) in inputs {
            let bytes = try FileIO.read(path)
            let whole: (json: [UInt8], detection: CodePageDetection, warnings: [DecodingWarning])
            do {
                whole = try Self.wholeJSON(bytes, container)
            } catch let expected as BriefcaseError {
                // A damaged file fails the same way, now naming the file.
                do {
                    _ = try Self.streamedJSON(path, container)
                    Issue.record("\(path): streaming accepted what the whole decode refused (\(expected))")
                } catch let error as BriefcaseError {
                    #expect(error.message == expected.message, "\(path)")
                    #expect(error.offset == expected.offset, "\(path)")
                    #expect(error.element == expected.element, "\(path)")
                    #expect(error.file == path)
                }
                continue
            }
            for canRestart in [true, false] {
                let streamed = try Self.streamedJSON(path, container, canRestart: canRestart)
                #expect(streamed.json == whole.json, "\(path): JSON differs")
                #expect(streamed.report.codePage == whole.detection.codePage, "\(path)")
                #expect(streamed.report.detection?.reason == whole.detection.reason || whole.detection.codePage == .utf8, "\(path)")
                #expect(streamed.report.detection?.hint == whole.detection.hint, "\(path)")
                #expect(streamed.report.warnings == whole.warnings, "\(path)")
                #expect(streamed.starts == 1, "\(path): the heads' code page held")
            }
            converted += 1
        }
        #expect(converted >= 7 + (SamplePaths.samplesPresent ? 2 : 0)) // the 7 valid fixtures, and the real samples when present
    }

    @Test func aFolderInputStreamsInTheOrderOfItsDocument() throws {
        guard let path = Self.inputs().first(where: { $0.path.hasSuffix("all-types.daBriefcase") })?.path else {
            Issue.record("no all-types fixture"); return
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("streaming-folder-in-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Briefcase.open(path).write(to: dir, as: .folder)
        let document = try Briefcase.openFolder(dir).document()
        let briefcase = try Briefcase.openFolder(dir)
        let elements = BriefcaseElements(briefcase)
        var warnings: [DecodingWarning] = []
        let decoded = try elements.elements.indices.map { try elements.decode($0, warnings: &warnings) }
        #expect(decoded == document.file.stream.elements)
        #expect(elements.properties == document.file.properties)
    }

    // MARK: code page: rows that contradict the heads

    static let gbkName: [UInt8] = [0xBF, 0xCE, 0xB3, 0xCC] // 课程 in GBK

    /// A briefcase of `tables`, written to a temporary file.
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

    @Test func aWindows1252ValueBehindASCIIHeadsStartsOverWithTheExactChoice() throws {
        let path = try Self.write([
            Self.table("Plain", values: ["abc", "def"]),
            Self.table("Accents", values: ["caf\u{E9}".latin1]),
        ])
        defer { unlink(path) }
        let whole = try Self.wholeJSON(FileIO.read(path), .dabriefcase)
        #expect(whole.detection.codePage == .windows1252)
        for canRestart in [true, false] {
            let streamed = try Self.streamedJSON(path, .dabriefcase, canRestart: canRestart)
            #expect(streamed.json == whole.json)
            #expect(streamed.report.detection?.reason == whole.detection.reason)
            #expect(streamed.report.detection?.hint == whole.detection.hint)
            #expect(streamed.starts == (canRestart ? 2 : 1), "started over once (or detected first)")
        }
    }

    @Test func gbkHeadsWithGBKValuesNeedNoSecondStart() throws {
        let path = try Self.write([
            Self.table("Courses", descriptor: ByteString(Self.gbkName), schemaName: "课程", values: [ByteString([0xCA, 0xFD, 0xD1, 0xA7])]),
        ])
        defer { unlink(path) }
        let whole = try Self.wholeJSON(FileIO.read(path), .dabriefcase)
        #expect(whole.detection.codePage == CodePage(name: "gbk"))
        let streamed = try Self.streamedJSON(path, .dabriefcase)
        #expect(streamed.json == whole.json)
        #expect(streamed.starts == 1)
    }

    /// Random mixes of strings in several code pages, in heads and in values: the streamed
    /// choice (code page, reason, hint) and bytes always equal the whole-document ones.
    @Test func randomMixesOfCodePagesMatchTheWholeDocument() throws {
        let pool: [ByteString] = [
            "plain", ByteString(utf8: "数学"), ByteString([0xCA, 0xFD, 0xD1, 0xA7]), "caf\u{E9}".latin1,
            ByteString([0x81, 0x40]), ByteString([0xA4, 0x40]), ByteString([0x82, 0xA0]), ByteString([0xFF, 0xFE, 0x80]),
            ByteString([0xB0, 0xA1]), ByteString([0xC3]),
        ]
        var generator = SplitMix64(state: 7)
        var restarts = 0
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
            let whole = try Self.wholeJSON(FileIO.read(path), .dabriefcase)
            let streamed = try Self.streamedJSON(path, .dabriefcase)
            #expect(streamed.json == whole.json)
            #expect(streamed.report.codePage == whole.detection.codePage)
            if whole.detection.codePage != .utf8 { #expect(streamed.report.detection?.reason == whole.detection.reason) }
            #expect(streamed.report.detection?.hint == whole.detection.hint)
            if streamed.starts > 1 { restarts += 1 }
        }
        #expect(restarts > 0, "some mixes made the streaming writer start over")
    }

    @Test func damagedElementIsSkippedOnlyWhenAsked() throws {
        let path = try Self.write([
            Self.table("First", values: ["a", "b"]),
            Self.table("Second", values: ["c", "d", "e"]),
            Self.table("Third", values: ["f"]),
        ])
        defer { unlink(path) }
        let elements = try BriefcaseElements.open(path, as: .dabriefcase)
        // Break the second table: its last value ("e", length-prefixed) announces 2^31-1 bytes.
        var bytes = try FileIO.read(path)
        let second = elements.elements[1].range
        let good = try Self.wholeJSON(bytes, .dabriefcase).json
        #expect(Array(bytes[second.upperBound - 5 ..< second.upperBound]) == [1, 0, 0, 0, UInt8(ascii: "e")])
        bytes.replaceSubrange(second.upperBound - 5 ..< second.upperBound - 1, with: [0xFF, 0xFF, 0xFF, 0x7F])
        try FileIO.writeAtomically(bytes, to: path)
        #expect(throws: BriefcaseError.self) { _ = try Self.streamedJSON(path, .dabriefcase) }
        do {
            _ = try Self.streamedJSON(path, .dabriefcase)
        } catch let error as BriefcaseError {
            #expect(error.element == "Second")
            #expect(error.file == path)
            #expect(error.offset != nil)
        }
        let reopened = try BriefcaseElements.open(path, as: .dabriefcase)
        var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: .utf8)
        let report = try reopened.read(into: &encoder, encoding: nil, skipDamaged: true)
        let sink = encoder.writer.sink
        #expect(report.skipped.map(\.name) == ["Second"])
        #expect(sink.bytes != good)
        // What was written is the document of the readable tables.
        let readable = try Self.write([Self.table("First", values: ["a", "b"]), Self.table("Third", values: ["f"])])
        defer { unlink(readable) }
        #expect(sink.bytes == (try Self.wholeJSON(FileIO.read(readable), .dabriefcase)).json)
    }
}

@Suite struct LargeValueEmissionTests {
    /// Large blobs take the six-bytes-at-a-time base64 path and a grown scratch buffer: the text
    /// is what `Base64.encode` gives, at every length around the loop's edges.
    @Test func largeBlobsEncodeAsBase64Does() {
        var generator = SplitMix64(state: 3)
        for count in [0, 5, 6, 7, 8, 9, 13, 14, 15, 70_001, 300_000, 1 << 20] {
            let bytes = (0 ..< count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: .utf8)
            encoder.writeValue(.blob(ByteString(bytes)), type: .blob)
            try? encoder.writer.flush()
            #expect(encoder.writer.sink.bytes == Array(("\"" + Base64.encode(bytes) + "\"").utf8), "\(count) bytes")
        }
    }
}

extension LargeValueEmissionTests {
    /// Integers at every digit-count edge, and rows mixing them, as `description` writes them.
    @Test func integersAtEveryLengthEdge() throws {
        var edges: [UInt64] = [0, 1, 9, 10, 11, 99, 100, 101, UInt64.max, UInt64.max - 1]
        var power: UInt64 = 1
        for _ in 0 ..< 19 { power *= 10; edges += [power - 1, power, power + 1] }
        for value in edges {
            var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: .utf8)
            encoder.writeValue(.largeUInt(value), type: .largeUInt)
            if value <= UInt64(Int64.max) {
                encoder.writeValue(.integer(Int64(value)), type: .largeInt)
                encoder.writeValue(.integer(-Int64(value)), type: .largeInt)
            }
            try encoder.writer.flush()
            let expected = value <= UInt64(Int64.max) ? "\(value)\(value)-\(value)".replacingOccurrences(of: "-0", with: "0") : "\(value)"
            #expect(String(decoding: encoder.writer.sink.bytes, as: UTF8.self) == expected)
        }
        var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: .utf8)
        encoder.writeValue(.integer(Int64.min), type: .largeInt)
        try encoder.writer.flush()
        #expect(String(decoding: encoder.writer.sink.bytes, as: UTF8.self) == "\(Int64.min)")
    }
}

private extension String {
    /// The ISO-8859-1 bytes of an all-Latin-1 string.
    var latin1: ByteString { ByteString(unicodeScalars.map { UInt8($0.value) }) }
}
