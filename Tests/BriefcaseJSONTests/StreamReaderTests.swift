import JSONCore
import Foundation
import Testing
import BriefcaseTestSupport
@testable import BriefcaseJSON
@testable import BriefcaseKit

/// The JSON document reader (`JSONStreamReader`, behind `JSONDocumentDecoder` and the
/// element-by-element `JSONStreamConversion`) against independent oracles: the fixtures' and
/// samples' own bytes, models written here by hand, and round trips.
struct StreamReaderTests {
    /// Every fixture and real sample that decodes without a warning (so that it is laid out as
    /// every writer lays it out), with its container and its JSON document: a fixture's expected
    /// document, a sample's as the JSON writer writes it.
    static func documents() throws -> [(name: String, original: [UInt8], container: ContainerFormat, json: [UInt8])] {
        var inputs: [(String, [UInt8], ContainerFormat)] = []
        let names = try FileManager.default.contentsOfDirectory(atPath: SamplePaths.fixtures.path).sorted()
        for name in names where name.hasSuffix(".daBriefcase") || name.hasSuffix(".bin2") {
            let bytes = [UInt8](try Data(contentsOf: SamplePaths.fixtures.appendingPathComponent(name)))
            inputs.append((name, bytes, name.hasSuffix(".bin2") ? .bin2 : .dabriefcase))
        }
        for name in SamplePaths.sampleNames {
            if let bytes = SamplePaths.sample(name) { inputs.append((name, bytes, .dabriefcase)) }
        }
        var result: [(String, [UInt8], ContainerFormat, [UInt8])] = []
        for (name, bytes, container) in inputs {
            // A fixture's document is its expected one (Fixtures/expected/), not the writer's.
            if ExpectedFiles.validFixtures.contains(name) {
                result.append((name, bytes, container, try ExpectedFiles.json(of: name)))
                continue
            }
            var warnings: [DecodingWarning] = []
            guard let document = try? BriefcaseDocument.decode(bytes, as: container, warnings: &warnings), warnings.isEmpty else { continue }
            var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: CodePage.detect(in: document.file).codePage)
            try encoder.encode(document)
            try encoder.writer.flush()
            result.append((name, bytes, container, encoder.writer.sink.bytes))
        }
        return result
    }

    /// The element-by-element conversion of `json` into its container's bytes.
    static func convert(_ json: [UInt8]) throws(BriefcaseError) -> [UInt8] {
        var output = MemoryStreamOutput()
        let failure: BriefcaseError? = json.withUnsafeBytes { raw in
            do throws(BriefcaseError) { try JSONStreamConversion.convert(raw, to: &output) } catch { return error }
            return nil
        }
        if let failure { throw failure }
        return output.bytes
    }

    /// `json` must convert to exactly `original`, and read (whole) to a document that does.
    static func expectOriginal(_ json: [UInt8], _ original: [UInt8], _ label: String) {
        #expect((try? convert(json)) == original, "\(label): the conversion does not give the original bytes")
        #expect((try? JSONDocumentDecoder().decode(json).encode()) == original, "\(label): the document does not encode to the original bytes")
    }

    @Test func fixturesAndSamplesGiveTheOriginalBytes() throws {
        let documents = try Self.documents()
        #expect(documents.count >= 7 + (SamplePaths.samplesPresent ? 2 : 0)) // the 7 valid fixtures, and the real samples when present
        for (name, original, _, json) in documents {
            Self.expectOriginal(json, original, name)
        }
    }

    /// Documents that once crashed a reader: refused with a located error, or read, in which
    /// case they write again as JSON and read back to the same model.
    @Test func regressionDocumentsAreRefusedWithAPlaceOrRoundTrip() throws {
        let folder = SamplePaths.fixtures.appendingPathComponent("regressions/json")
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where name.hasSuffix(".json") {
            Self.expectRefusedWithAPlaceOrRoundTrip([UInt8](try Data(contentsOf: folder.appendingPathComponent(name))), name)
        }
    }

    static func expectRefusedWithAPlaceOrRoundTrip(_ json: [UInt8], _ label: String) {
        do {
            let (document, codePage) = try JSONDocumentDecoder().decodeNamingCodePage(json)
            var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: codePage)
            try encoder.encode(document)
            #expect(try JSONDocumentDecoder().decode(encoder.writer.sink.bytes) == document, "\(label): JSON round trip")
        } catch let error as BriefcaseError {
            #expect(error.offset != nil, "\(label): \(error) has no offset")
        } catch {
            Issue.record("\(label): \(error)")
        }
    }

    /// The same content with keys in other orders: `elements` before the head (read whole, or
    /// started over when the head comes after), properties last, and each element's members
    /// reversed (rows and changes before the fields they need). Each still gives the original.
    @Test func reorderedDocumentsGiveTheOriginalBytes() throws {
        for (name, original, _, json) in try Self.documents() {
            let root = try JSONParser.parse(json)
            let top = try #require(root.objectValue, "\(name): not an object")
            Self.expectOriginal(JSONValue.object(JSONObject(top.members.reversed())).serialized(), original, "\(name) reversed top")
            let late = JSONObject(top.members.filter { $0.key != "properties" && $0.key != "headerPadding" }
                + top.members.filter { $0.key == "properties" || $0.key == "headerPadding" })
            Self.expectOriginal(JSONValue.object(late).serialized(), original, "\(name) late properties")
            var shuffled = top
            shuffled["elements"] = .array((top["elements"]?.arrayValue ?? []).map { element in
                guard case .object(let object) = element else { return element }
                return .object(JSONObject(object.members.reversed()))
            })
            Self.expectOriginal(JSONValue.object(shuffled).serialized(), original, "\(name) reversed elements")
        }
    }

    /// Damaged documents (random byte changes, cuts and insertions): refused with an offset, or
    /// read; what reads, writes again and reads back the same.
    @Test func mutatedDocumentsAreRefusedWithAPlaceOrRoundTrip() throws {
        var random = SplitMix64(state: 7)
        let alphabet = Array("{}[],:\"\\0123456789-.eEtrufalsn x\u{00}".utf8) + [0xC3, 0xFF, 0x80]
        for (name, _, _, json) in try Self.documents() where json.count < 200_000 {
            for round in 0..<60 {
                var mutated = json
                for _ in 0...Int.random(in: 0...2, using: &random) {
                    let at = Int.random(in: 0..<mutated.count, using: &random)
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: mutated[at] = alphabet.randomElement(using: &random)!
                    case 1: mutated.remove(at: at)
                    default: mutated.insert(alphabet.randomElement(using: &random)!, at: at)
                    }
                }
                Self.expectRefusedWithAPlaceOrRoundTrip(mutated, "\(name) mutation \(round)")
            }
        }
    }

    static let unusualHead = #"{"format": "briefcase-json", "version": 1, "container": "bin2", "encoding": "utf-8", "elements": [{"kind": "table", "name": "T", "schema": null, "schemaEnd": "zero", "fields": [{"name": "a", "type": "datString", "size": 0}, {"name": "b", "type": "datByte", "size": 0}, {"name": "c", "type": "datWideString", "size": 0}, {"name": "d", "type": "datLargeUInt", "size": 0}], "rows": [ROWS]}]}"#

    /// Rows the fast path hands over to the general reader (escapes, fallback objects), read
    /// into the values Spec/json-format.md §6.2 gives them (written here by hand), by both
    /// the whole-document reader and the element-by-element conversion.
    @Test func unusualRowsReadAsTheFormatSays() throws {
        let cases: [(row: String, values: Row)] = [
            (#"["a\"b", 1, "\u00e9\ud83d\ude00", 18446744073709551615]"#,
             [.ansiString(ByteString([0x61, 0x22, 0x62])), .integer(1),
              .wideString(ByteString([0xE9, 0x00, 0x3D, 0xD8, 0x00, 0xDE])), .largeUInt(UInt64.max)]),
            (#"[{"bytes": "/w=="}, 255, {"utf16le": "AdgAAA=="}, 0]"#,
             [.ansiString(ByteString([0xFF])), .integer(255), .wideString(ByteString([0x01, 0xD8, 0x00, 0x00])), .largeUInt(0)]),
            (#"["x", -0, "y", 1]"#, [.ansiString("x"), .integer(0), .wideString(ByteString([0x79, 0x00])), .largeUInt(1)]),
            (#"[null, null, null, null]"#, [nil, nil, nil, nil]),
        ]
        let fields = [FieldDescriptor(name: "a", type: .string), FieldDescriptor(name: "b", type: .byte),
                      FieldDescriptor(name: "c", type: .wideString), FieldDescriptor(name: "d", type: .largeUInt)]
        for (row, values) in cases {
            let json = Array(Self.unusualHead.replacingOccurrences(of: "ROWS", with: row).utf8)
            let expected = Table(name: "T", fields: fields, rows: [values])
            #expect(try JSONDocumentDecoder().decode(json).file.stream.elements == [.table(expected)], "\(row)")
            var warnings: [DecodingWarning] = []
            let converted = try BriefcaseDocument.decode(try Self.convert(json), as: .bin2, warnings: &warnings)
            #expect(converted.file.stream.elements == [.table(expected)], "\(row): converted")
        }
    }

    /// Rows the format refuses, with the path of the offending value or row (§9).
    @Test func unusualRowsAreRefusedNamingTheirPlace() throws {
        let cases: [(row: String, path: String)] = [
            (#"["x", 256, "y", 1]"#, "$.elements[0].rows[1][1]: 256 does not fit a datByte column"),
            (#"["x", 1.0, "y", 1]"#, "$.elements[0].rows[1][1]: expected an integer in"),
            (#"["x", 1, "y"]"#, "$.elements[0].rows[1]: expected 4 items, found 3"),
            (#"["x", 1, "y", 1, 2]"#, "$.elements[0].rows[1]: expected 4 items, found 5"),
            (#"["x", 0, "y", 18446744073709551616]"#, "$.elements[0].rows[1][3]: expected an integer in 0…18446744073709551615"),
            (#"[]"#, "$.elements[0].rows[1]: expected 4 items, found 0"),
        ]
        for (row, message) in cases {
            let json = Array(Self.unusualHead.replacingOccurrences(of: "ROWS", with: #"["ok", 1, "ok", 1], "# + row).utf8)
            for (route, read) in [("decode", { () throws(BriefcaseError) in _ = try JSONDocumentDecoder().decode(json) }),
                                  ("convert", { () throws(BriefcaseError) in _ = try Self.convert(json) })] {
                do throws(BriefcaseError) {
                    try read()
                    Issue.record("\(route) \(row): read")
                } catch {
                    #expect(error.message.hasPrefix(message), "\(route) \(row): \(error.message)")
                    #expect(error.offset != nil, "\(route) \(row)")
                }
            }
        }
    }
}
