import JSONCore
import BriefcaseJSON
import BriefcaseKit
import Foundation
import Testing
import BriefcaseTestSupport

/// Issue 11, item 8 (Spec/robustness.md §8.8): a table without fields takes no bytes per row, so
/// the Bin2 reader caps such a table at 65 536 rows; every Bin2 writer refuses more, so that what
/// `convert` writes it also reads back. JSON and snapshots, whose readers have no such cap, keep it.
struct FieldlessTableCLITests {
    /// The JSON document of one table without fields (and without schema) holding `rows` rows,
    /// before a small ordinary table (the order a folder gives them back: by file name).
    static func document(rows: Int, container: ContainerFormat = .dabriefcase) throws -> [UInt8] {
        let empty = Table(name: "NoFields", schema: nil, fields: [], rows: Array(repeating: [], count: rows))
        let small = Table(name: "Small", schema: nil, fields: [FieldDescriptor(name: "ID", type: .integer)], rows: [[.integer(1)]])
        let file = BriefcaseFile(stream: Bin2Stream(elements: [.table(empty), .table(small)]))
        var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: .utf8)
        try encoder.encode(BriefcaseDocument(container: container, file: file))
        return encoder.writer.sink.bytes
    }

    @Test func seventyThousandRowsWithoutFieldsAreRefusedByEveryBinaryWriterAndKeptByJSONAndSnapshot() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.json")
        let original = try Self.document(rows: 70_000)
        try Data(original).write(to: input)

        for name in ["out.daBriefcase", "out.bin2", "out.briefcase"] {
            let out = dir.appendingPathComponent(name).path
            let result = try CLITests.run(["convert", input.path, out])
            #expect(result.status == 1, "\(name): \(result.stderr)")
            #expect(result.stderr.hasPrefix("briefcase: \(out): element 'NoFields': "), "\(name): names the output and the table")
            #expect(result.stderr.contains("70000 rows") && result.stderr.contains("at most 65536"), "\(name): the count and the limit")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(name): one line")
            #expect(!FileManager.default.fileExists(atPath: out), "\(name): nothing written")
        }
        // Standard output too (built in memory, then written): nothing goes out.
        let piped = try CLITests.run(["convert", input.path, "-", "--to", "dabriefcase"])
        #expect(piped.status == 1)
        #expect(piped.stdout.isEmpty)
        #expect(piped.stderr.contains("element 'NoFields'") && piped.stderr.contains("at most 65536"))
        // No temporary file or folder is left behind either.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["in.json"])

        for name in ["out.json", "out.snapshot.json"] {
            let out = dir.appendingPathComponent(name).path
            #expect(try Self.convertAndBack(input.path, out) == Data(original), "\(name) reads back as the document it came from")
            // From a document read as a whole (not element by element), the binary writer refuses it the same way.
            let binary = dir.appendingPathComponent(name + ".daBriefcase").path
            let refused = try CLITests.run(["convert", out, binary])
            #expect(refused.status == 1, "\(name): \(refused.stderr)")
            #expect(refused.stderr.contains("element 'NoFields'") && refused.stderr.contains("at most 65536"), "\(name): \(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: binary))
        }
    }

    /// At the limit a table without fields is written, and it reads back, through every Bin2 writer.
    @Test func sixtyFiveThousandFiveHundredThirtySixRowsWithoutFieldsRoundTrip() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.json")
        let original = try Self.document(rows: 65_536)
        try Data(original).write(to: input)
        // A bare stream reads back as a document of container bin2, the rest as the original.
        let expected = ["out.daBriefcase": original, "out.briefcase": original, "out.bin2": try Self.document(rows: 65_536, container: .bin2)]
        for (name, document) in expected {
            let out = dir.appendingPathComponent(name).path
            #expect(try Self.convertAndBack(input.path, out) == Data(document), "\(name) reads back as the document it came from")
        }
    }

    /// `convert input out`, then `convert out out.back.json`: the JSON read back (nil when a step fails).
    static func convertAndBack(_ input: String, _ out: String) throws -> Data? {
        let back = out + ".back.json"
        let there = try CLITests.run(["convert", input, out])
        #expect(there.status == 0, "→ \(out): \(there.stderr)")
        let again = try CLITests.run(["convert", out, back])
        #expect(again.status == 0, "\(out) →: \(again.stderr)")
        return FileManager.default.contents(atPath: back)
    }
}
