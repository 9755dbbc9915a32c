import JSONCore
import Foundation
import Testing
import BriefcaseTestSupport
@testable import BriefcaseJSON
@testable import BriefcaseKit

/// The streaming reader (`JSONStreamReader`, `JSONStreamConversion`) against the tree decoder
/// (`JSONDocumentDecoder`) as the oracle: same elements, same bytes out, same refusals.
struct StreamReaderTests {
    /// Every fixture and real sample that decodes, with its container and its JSON document.
    static func documents() throws -> [(name: String, original: [UInt8], json: [UInt8])] {
        var inputs: [(String, [UInt8], ContainerFormat)] = []
        let names = try FileManager.default.contentsOfDirectory(atPath: SamplePaths.fixtures.path).sorted()
        for name in names where name.hasSuffix(".daBriefcase") || name.hasSuffix(".bin2") {
            let bytes = [UInt8](try Data(contentsOf: SamplePaths.fixtures.appendingPathComponent(name)))
            inputs.append((name, bytes, name.hasSuffix(".bin2") ? .bin2 : .dabriefcase))
        }
        for name in SamplePaths.sampleNames {
            if let bytes = SamplePaths.sample(name) { inputs.append((name, bytes, .dabriefcase)) }
        }
        var result: [(String, [UInt8], [UInt8])] = []
        for (name, bytes, container) in inputs {
            var warnings: [DecodingWarning] = []
            guard let document = try? BriefcaseDocument.decode(bytes, as: container, warnings: &warnings) else { continue }
            var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: CodePage.detect(in: document.file).codePage)
            try encoder.encode(document)
            try encoder.writer.flush()
            result.append((name, bytes, encoder.writer.sink.bytes))
        }
        return result
    }

    /// Collects what the reader hands out.
    struct Collector: JSONDocumentStreamConsumer {
        var heads: [JSONDocumentHead] = []
        var elements: [Element] = []
        mutating func begin(_ head: JSONDocumentHead) throws(BriefcaseError) {
            heads.append(head)
            elements = []
        }
        mutating func element(_ element: Element) throws(BriefcaseError) { elements.append(element) }
    }

    static func stream(_ json: [UInt8]) throws(BriefcaseError) -> (Collector, [UInt8]) {
        var collector = Collector()
        var output = MemoryStreamOutput()
        let failure: BriefcaseError? = json.withUnsafeBytes { raw in
            do throws(BriefcaseError) {
                var reader = JSONStreamReader(raw)
                try reader.read(into: &collector)
                try JSONStreamConversion.convert(raw, to: &output)
            } catch { return error }
            return nil
        }
        if let failure { throw failure }
        return (collector, output.bytes)
    }

    /// Both readers accept or both refuse; when they accept, the same model and the same bytes.
    static func expectSame(_ json: [UInt8], _ label: String) {
        let old = Result { () throws(BriefcaseError) in try JSONDocumentDecoder().decode(json) }
        let new = Result { () throws(BriefcaseError) in try stream(json) }
        switch (old, new) {
        case (.success(let document), .success(let (collector, bytes))):
            #expect(collector.elements == document.file.stream.elements, "\(label): elements differ")
            #expect(collector.heads.last?.properties == document.file.properties, "\(label): properties differ")
            #expect(collector.heads.last?.headerPadding == document.file.headerPadding, "\(label)")
            #expect(collector.heads.last?.container == document.container, "\(label)")
            // The binary writer may refuse the model (invalidModel) in both paths alike.
            switch Result(catching: { () throws(BriefcaseError) in try document.encode() }) {
            case .success(let expected): #expect(bytes == expected, "\(label): output bytes differ")
            case .failure: Issue.record("\(label): old path refuses to encode what the streaming path wrote")
            }
        case (.failure, .failure): break
        case (.success, .failure(let error)):
            // A model the binary writer refuses is refused by the streaming conversion too.
            if error.kind != .invalidModel { Issue.record("\(label): only the streaming reader refuses: \(error)") }
        case (.failure(let error), .success):
            Issue.record("\(label): only the tree decoder refuses: \(error)")
        }
    }

    @Test func fixturesAndSamplesGiveTheSameResultAndTheOriginalBytes() throws {
        let documents = try Self.documents()
        #expect(documents.count >= 7 + (SamplePaths.samplesPresent ? 2 : 0)) // the 7 valid fixtures, and the real samples when present
        for (name, original, json) in documents {
            Self.expectSame(json, name)
            let (_, bytes) = try Self.stream(json)
            // Fixtures that decode without warnings come back byte for byte.
            var warnings: [DecodingWarning] = []
            let container: ContainerFormat = name.hasSuffix(".bin2") ? .bin2 : .dabriefcase
            _ = try BriefcaseDocument.decode(original, as: container, warnings: &warnings)
            if warnings.isEmpty { #expect(bytes == original, "\(name): not the original bytes") }
        }
    }

    @Test func regressionDocumentsReadTheSame() throws {
        let folder = SamplePaths.fixtures.appendingPathComponent("regressions/json")
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
            Self.expectSame([UInt8](try Data(contentsOf: folder.appendingPathComponent(name))), name)
        }
    }

    /// The same content with keys in other orders, duplicated, and `elements` before the head.
    @Test func reorderedDocumentsReadTheSame() throws {
        for (name, _, json) in try Self.documents() {
            let root = try JSONParser.parse(json)
            guard case .object(let top) = root else { Issue.record("\(name)"); continue }
            // elements first (the head after it: read whole or restarted).
            var reversed = JSONObject(top.members.reversed())
            Self.expectSame(JSONValue.object(reversed).serialized(), "\(name) reversed top")
            // properties after elements, encoding before: a restart.
            reversed = JSONObject(top.members.filter { $0.key != "properties" && $0.key != "headerPadding" }
                + top.members.filter { $0.key == "properties" || $0.key == "headerPadding" })
            Self.expectSame(JSONValue.object(reversed).serialized(), "\(name) late properties")
            // Inside elements: rows/changes first, and a duplicate (ignored) rows/changes after.
            var elements: [JSONValue] = []
            for element in top["elements"]?.arrayValue ?? [] {
                guard case .object(let object) = element else { continue }
                var members = object.members.reversed().map { $0 }
                members.append((key: "rows", value: .array([.null])))
                members.append((key: "changes", value: .string("ignored")))
                elements.append(.object(JSONObject(members)))
            }
            var shuffled = top
            shuffled["elements"] = .array(elements)
            Self.expectSame(JSONValue.object(shuffled).serialized(), "\(name) reversed elements")
        }
    }

    /// Damaged documents: random byte changes, cuts and insertions; both readers must agree.
    @Test func mutatedDocumentsAreRefusedAlike() throws {
        var random = SplitMix64(state: 7)
        let alphabet = Array("{}[],:\"\\0123456789-.eEtrufalsn x\u{00}".utf8) + [0xC3, 0xFF, 0x80]
        for (name, _, json) in try Self.documents() where json.count < 200_000 {
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
                Self.expectSame(mutated, "\(name) mutation \(round)")
            }
        }
    }

    /// Values the fast row path must hand over to the tree reader (escapes, fallback objects,
    /// wrong widths, out-of-range numbers), and their errors name the row's JSON path.
    @Test func unusualRowsMatchTheTreeDecoder() throws {
        let head = #"{"format": "briefcase-json", "version": 1, "container": "bin2", "encoding": "utf-8", "elements": [{"kind": "table", "name": "T", "schema": null, "schemaEnd": "zero", "fields": [{"name": "a", "type": "datString", "size": 0}, {"name": "b", "type": "datByte", "size": 0}, {"name": "c", "type": "datWideString", "size": 0}, {"name": "d", "type": "datLargeUInt", "size": 0}], "rows": [ROWS]}]}"#
        let rows = [
            #"["a\"b", 1, "\u00e9\ud83d\ude00", 18446744073709551615]"#,
            #"[{"bytes": "/w=="}, 255, {"utf16le": "AdgAAA=="}, 0]"#,
            #"["x", 256, "y", 1]"#,
            #"["x", 1.0, "y", 1]"#,
            #"["x", -0, "y", -0]"#,
            #"["x", 1, "y"]"#,
            #"["x", 1, "y", 1, 2]"#,
            #"["é😀", 0, "é😀", 18446744073709551616]"#,
            #"[null, null, null, null]"#,
            #"[]"#,
        ]
        for row in rows {
            let json = Array(head.replacingOccurrences(of: "ROWS", with: row).utf8)
            Self.expectSame(json, row)
        }
        let bad = Array(head.replacingOccurrences(of: "ROWS", with: #"["x", 1, "y", 1], ["x", 300, "y", 1]"#).utf8)
        #expect(throws: BriefcaseError.self) { try Self.stream(bad) }
        do { _ = try Self.stream(bad) } catch {
            #expect(error.message.contains("$.elements[0].rows[1][1]"), "\(error.message)")
            #expect(error.offset != nil)
        }
    }
}
