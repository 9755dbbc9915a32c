import JSONCore
import Foundation
import Testing
import BriefcaseTestSupport
@testable import BriefcaseJSON
@testable import BriefcaseKit

/// The lossless JSON document: byte-exact round trips and the forms of Spec/json-format.md.
struct DocumentTests {
    static func json(_ document: BriefcaseDocument, codePage: CodePage = .utf8) throws -> String {
        var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: codePage)
        try encoder.encode(document)
        return String(decoding: encoder.writer.sink.bytes, as: UTF8.self)
    }

    /// The worked example of Spec/json-format.md §10: the 246 bytes were assembled independently
    /// (by hand, checked with a separate Python script), so both directions are checked against it.
    static let exampleHex = """
    4441425243363030 1c000000 01000000 03000000 566572 01000000 32
    444142494e323030 d0000000
    01000000 02000000 02000000 4944 06 05000000 5469746c65 0b 01000000 02000000 4944 01 01000000
    00000000 4c040000 00000000 00000000 00 03 09000000 04000000 59006f00
    01 a2000000 02000000 01000000 04000000 4e616d65 02000000 4944 04000000 4e616d65 05000000 5469746c65
    00000000 00000000
    01000000 02000000 02000000 4944 06 00000000 05000000 5469746c65 0b 14000000
    00 07000000 04000000 48006900
    02000000 01000000 05000000 426f6f6b73 28000000 00000000 05000000 426f6f6b73 6e000000
    """

    static var exampleBytes: [UInt8] { hexBytes(exampleHex) }

    static let exampleJSON = """
    {
      "format": "briefcase-json",
      "version": 1,
      "container": "dabriefcase",
      "encoding": "utf-8",
      "properties": [
        ["Ver", "2"]
      ],
      "elements": [
        {"kind": "delta", "name": "Books",
         "loggedFields": [{"name": "ID", "type": "datInteger"}, {"name": "Title", "type": "datWideString"}],
         "keyFields": ["ID"], "reducedDelta": 1,
         "changes": [
          {"type": "insert", "recordID": 1100, "status": "pending", "message": "",
           "old": [null, null],
           "new": [9, "Yo"]}
         ]},
        {"kind": "table", "name": "Books",
         "schema": {"fieldPropertyCount": 1, "fields": [
            [["Name", "ID"]],
            [["Name", "Title"]]
           ],
           "parameterPropertyCount": 0, "parameters": []},
         "fields": [{"name": "ID", "type": "datInteger", "size": 0}, {"name": "Title", "type": "datWideString", "size": 20}],
         "rows": [
          [7, "Hi"]
         ]}
      ]
    }

    """

    @Test func specExampleBothWays() throws {
        let bytes = Self.exampleBytes
        #expect(bytes.count == 246)
        var warnings: [DecodingWarning] = []
        let document = try BriefcaseDocument.decode(bytes, as: .dabriefcase, warnings: &warnings)
        #expect(warnings.isEmpty)
        #expect(try Self.json(document) == Self.exampleJSON)
        let back = try JSONDocumentDecoder().decode(Array(Self.exampleJSON.utf8))
        #expect(try back.encode() == bytes)
    }

    @Test(.enabled(if: SamplePaths.samplesPresent, "../shared/briefcase-samples is absent"),
          arguments: SamplePaths.sampleNames)
    func realSamplesRoundTripThroughJSON(name: String) throws {
        let bytes = try #require(SamplePaths.sample(name))
        var warnings: [DecodingWarning] = []
        let document = try BriefcaseDocument.decode(bytes, as: .dabriefcase, warnings: &warnings)
        let codePage = CodePage.detect(in: document.file).codePage
        #expect(codePage == .gbk)
        let text = try Self.json(document, codePage: codePage)
        // Column names and values are readable text, not bytes.
        #expect(text.contains("\"课程名称\""))
        #expect(!text.contains("\"bytes\""))
        let back = try JSONDocumentDecoder().decode(Array(text.utf8))
        #expect(try back.encode() == bytes)
    }

    /// Values that need the fallback forms keep their exact bytes.
    @Test func fallbackForms() throws {
        let gbkBytes = ByteString([0xd6, 0xd0, 0xb9, 0xfa]) // 中国 in GBK: not UTF-8
        let loneSurrogate = ByteString([0x01, 0xd8, 0x00, 0x00])
        let flagged = Decimal96(low: 1, mid: 0, high: 0, flags: 0x0002_0001) // scale 2 + a stray bit
        let payloadNaN = Double(bitPattern: 0x7ff8_0000_0000_0001)
        let fields = [
            FieldDescriptor(name: "s", type: .string), FieldDescriptor(name: "w", type: .wideString),
            FieldDescriptor(name: "d", type: .dateTime), FieldDescriptor(name: "b", type: .boolean),
            FieldDescriptor(name: "m", type: .decimal), FieldDescriptor(name: "f", type: .float),
            FieldDescriptor(name: "g", type: .float), FieldDescriptor(name: "n", type: .singleFloat),
        ]
        let row: Row = [.ansiString(gbkBytes), .wideString(loneSurrogate), .dateTime(OLEDateTime(45000.12345678901)),
                        .boolean(255), .decimal(flagged), .float(payloadNaN), .float(-.infinity), .singleFloat(-0.0)]
        let document = BriefcaseDocument(container: .bin2, file: BriefcaseFile(stream: Bin2Stream(elements: [
            .table(Table(name: "T", fields: fields, rows: [row])),
        ])))
        let text = try Self.json(document)
        #expect(text.contains(#"[{"bytes": "1tC5+g=="}, {"utf16le": "AdgAAA=="}, {"oleDate": 45000.12345678901}, {"byte": 255}, {"decimalBytes": "AQAAAAAAAAAAAAAAAQACAA=="}, "NaN:7ff8000000000001", "-Infinity", -0.0]"#))
        let back = try JSONDocumentDecoder().decode(Array(text.utf8))
        #expect(try back.encode() == document.encode())
        let read = try #require(back.file.stream.elements[0].asTable).rows[0]
        let nan: Double? = if case .float(let nan)? = read[5] { nan } else { nil }
        let zero: Float? = if case .singleFloat(let zero)? = read[7] { zero } else { nil }
        #expect(try #require(nan).bitPattern == 0x7ff8_0000_0000_0001)
        #expect(try #require(zero).bitPattern == 0x8000_0000)
    }

    @Test func readableForms() throws {
        let fields = [FieldDescriptor(name: "d", type: .dateTime), FieldDescriptor(name: "c", type: .currency),
                      FieldDescriptor(name: "m", type: .decimal), FieldDescriptor(name: "u", type: .largeUInt),
                      FieldDescriptor(name: "i", type: .largeInt), FieldDescriptor(name: "g", type: .guid)]
        // 42173.333333333336 = 2015-06-18 08:00 (bin2-format.md §4); 25000 = 2.5; 150 scale 2 = 1.50.
        let row: Row = [.dateTime(OLEDateTime(42173.333333333336)), .currency(Currency(scaled: 25000)),
                        .decimal(Decimal96(low: 150, mid: 0, high: 0, flags: 2 << 16)), .largeUInt(.max), .integer(.min),
                        .guid(ByteString(utf8: "0F8FAD5B-D9CB-469F-A165-70867728950E"))]
        let document = BriefcaseDocument(container: .bin2, file: BriefcaseFile(stream: Bin2Stream(elements: [
            .table(Table(name: "T", fields: fields, rows: [row])),
        ])))
        let text = try Self.json(document)
        #expect(text.contains(#"["2015-06-18T08:00:00.000", "2.5", "1.50", 18446744073709551615, -9223372036854775808, "0F8FAD5B-D9CB-469F-A165-70867728950E"]"#))
        #expect(try JSONDocumentDecoder().decode(Array(text.utf8)) == document)
    }

    @Test func errorsNameThePath() throws {
        // Each error's kind, and its message starting with the JSON path of what is wrong.
        let wrong: [(from: String, to: String, kind: BriefcaseError.Kind, path: String, saying: String)] = [
            ("[7, \"Hi\"]", "[7.5, \"Hi\"]", .invalidData, "$.elements[1].rows[0][0]: ", "7.5"),
            ("\"version\": 1", "\"version\": 2", .unsupported, "$.version: ", "version 2 is not supported"),
            ("[[\"Name\", \"ID\"]]", "[]", .invalidData, "$.elements[1].schema.fields[0]: ", "expected 1 items"),
        ]
        for (from, to, kind, path, saying) in wrong {
            let text = Self.exampleJSON.replacingOccurrences(of: from, with: to)
            let error = #expect(throws: BriefcaseError.self, "\(to)") { try JSONDocumentDecoder().decode(Array(text.utf8)) }
            #expect(error?.kind == kind && error?.message.hasPrefix(path) == true && error?.message.contains(saying) == true,
                    "\(to): \(String(describing: error))")
        }
        // Truncated documents are JSON errors at the offset where the input ends.
        let bytes = Array(Self.exampleJSON.utf8)
        for length in stride(from: 0, to: bytes.count - 2, by: 7) {
            let error = #expect(throws: BriefcaseError.self, "length \(length)") { try JSONDocumentDecoder().decode(Array(bytes[0..<length])) }
            #expect(error?.kind == .invalidData && error?.offset == length && error?.message.contains("not valid JSON: unexpected end of input") == true,
                    "length \(length): \(String(describing: error))")
        }
    }
}
