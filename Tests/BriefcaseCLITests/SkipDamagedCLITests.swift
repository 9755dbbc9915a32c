import JSONCore
import BriefcaseKit
import BriefcaseTestSupport
import Foundation
import Testing

/// `convert` of a briefcase with one damaged table: refused without `--skip-damaged` (exit 1,
/// the table and offset named, nothing written); with it, the other tables converted, the
/// damaged one listed, exit 0. For every output format.
struct SkipDamagedCLITests {
    static func table(_ name: String, _ values: [String]) -> Element {
        .table(Table(name: ByteString(utf8: name), fields: [FieldDescriptor(name: "Text", type: .string, size: 50)],
                     rows: values.map { [.ansiString(ByteString(utf8: $0))] }))
    }

    static let good = BriefcaseFile(properties: [BriefcaseProperty(name: "Owner", value: "test")],
                                    stream: Bin2Stream(elements: [table("First", ["a", "b"]), table("Second", ["c", "d", "e"]), table("Third", ["f"])]))
    static let readable = BriefcaseFile(properties: good.properties, stream: Bin2Stream(elements: [table("First", ["a", "b"]), table("Third", ["f"])]))

    /// The good briefcase with the last value of 'Second' announcing 2^31-1 bytes; and the offset.
    static func damaged(container: ContainerFormat) throws -> (bytes: [UInt8], offset: Int) {
        let document = BriefcaseDocument(container: container, file: container == .bin2 ? BriefcaseFile(stream: good.stream) : good)
        var bytes = try document.encode()
        let start = container == .bin2 ? 0 : try BriefcaseFileCodec.readHeader(bytes).dataOffset
        let range = try ElementIndex.read(bytes, streamStart: start).entries[1].range
        #expect(Array(bytes[range.upperBound - 5 ..< range.upperBound]) == [1, 0, 0, 0, UInt8(ascii: "e")])
        bytes.replaceSubrange(range.upperBound - 5 ..< range.upperBound - 1, with: [0xFF, 0xFF, 0xFF, 0x7F])
        return (bytes, range.upperBound - 5)
    }

    @Test(arguments: ["json", "daBriefcase", "briefcase", "snapshot.json", "json.gz"])
    func damagedTableIsRefusedOrSkipped(_ outputExtension: String) throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.daBriefcase").path
        let (bytes, offset) = try Self.damaged(container: .dabriefcase)
        try FileIO.writeAtomically(bytes, to: input)
        let output = dir.appendingPathComponent("out." + outputExtension).path

        let refused = try CLITests.run(["convert", input, output])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains(input))
        #expect(refused.stderr.contains("element 'Second'"))
        #expect(refused.stderr.contains("offset \(offset)"))
        #expect(!FileManager.default.fileExists(atPath: output), "nothing is left behind")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["in.daBriefcase"], "no temporary left either")

        let skipped = try CLITests.run(["convert", input, output, "--skip-damaged"])
        #expect(skipped.status == 0, "\(skipped.stderr)")
        #expect(skipped.stderr.contains("warning: \(input): skipped damaged table 'Second'"), "\(skipped.stderr)")
        #expect(skipped.stderr.contains("offset \(offset)"))
        #expect(!skipped.stderr.contains("'First'") && !skipped.stderr.contains("'Third'"))
        #expect(FileManager.default.fileExists(atPath: output))

        // What was written holds exactly the readable tables: back to a single file, byte for byte.
        let back = dir.appendingPathComponent("back.daBriefcase").path
        let again = try CLITests.run(["convert", output, back])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try FileIO.read(back) == BriefcaseFileCodec.encode(Self.readable))
    }

    @Test func bareBin2AndStandardOutput() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.bin2").path
        try FileIO.writeAtomically(try Self.damaged(container: .bin2).bytes, to: input)
        let refused = try CLITests.run(["convert", input, "-", "--to", "json"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("element 'Second'"))
        let skipped = try CLITests.run(["convert", input, "-", "--to", "json", "--skip-damaged"])
        #expect(skipped.status == 0)
        #expect(skipped.stderr.contains("skipped damaged table 'Second'"))
        #expect(skipped.text.contains("\"First\"") && skipped.text.contains("\"Third\"") && !skipped.text.contains("\"Second\""))
        let bin2 = dir.appendingPathComponent("out.bin2").path
        #expect(try CLITests.run(["convert", input, bin2, "--skip-damaged"]).status == 0)
        #expect(try FileIO.read(bin2) == Bin2Encoder.encode(Self.readable.stream))
        // A gzip input (read in place only through a temporary copy) behaves the same.
        let gz = dir.appendingPathComponent("in.bin2.gz").path
        #expect(try CLITests.run(["convert", input, gz]).status == 1)
        #expect(try CLITests.run(["convert", bin2, gz]).status == 0)
    }

    @Test func aBrokenIndexFailsTheWholeFileEvenWithTheFlag() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("out.json").path
        let input = CLITests.fixtures.appendingPathComponent("damaged-index-position.daBriefcase").path
        let result = try CLITests.run(["convert", input, output, "--skip-damaged"])
        #expect(result.status == 1)
        #expect(result.stderr.contains(input))
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// A file and its gzip copy (inflated into a temporary file first) convert alike because each
    /// gives what the fixture's expected document says: exactly that document as JSON; as a folder,
    /// its elements in the order of the table files' names (Spec/folder-briefcase.md §2.4, §3).
    @Test(arguments: [("all-types.daBriefcase", [0]), ("gbk.daBriefcase", [0, 1]), ("orders.bin2", [0, 1]),
                      // %2E.%2F..%2Fescape, %2Ehidden, %43ON, Orders (delta, table), a%2Fb, orders~2
                      ("unsafe-names.daBriefcase", [0, 2, 3, 4, 5, 1, 6])])
    func fileAndGzipInputsGiveTheExpectedJSONAndFolder(name: String, folderOrder: [Int]) throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = CLITests.fixtures.appendingPathComponent(name).path
        let gz = dir.appendingPathComponent(name + ".gz").path
        #expect(try CLITests.run(["convert", input, gz]).status == 0)
        let expected = try ExpectedFiles.json(of: name)
        let document = try ExpectedOutputs.document(name)
        for source in [input, gz] {
            let json = dir.appendingPathComponent("\(source.hasSuffix(".gz") ? "gz" : "file").json").path
            let converted = try CLITests.run(["convert", source, json])
            #expect(converted.status == 0)
            let difference = ExpectedFiles.difference(try FileIO.read(json), expected)
            #expect(difference == nil, "\(source): \(difference ?? "")")
            // Only the non-UTF-8 code page is worth a note.
            #expect(converted.stderr == (name == "gbk.daBriefcase" ? "briefcase: note: \(source): 8-bit strings read as gbk: column names in the row descriptors "
                + "match the schema's UTF-8 Name properties when decoded as gbk (2 non-ASCII names checked) (override with --encoding)\n" : ""))

            let folder = dir.appendingPathComponent("\(source.hasSuffix(".gz") ? "gz" : "file").briefcase").path
            #expect(try CLITests.run(["convert", source, folder]).status == 0)
            let back = try CLITests.run(["convert", folder, "-", "--to", "json"])
            #expect(back.status == 0, "\(back.stderr)")
            let read = try JSONParser.parse(back.stdout)
            #expect(read["elements"]?.arrayValue == (try ExpectedOutputs.elements(name, order: folderOrder)), "\(source) as a folder")
            #expect(read["properties"] == (document["properties"] ?? .array([])), "\(source) as a folder")
            #expect(read["encoding"] == document["encoding"], "\(source) as a folder")
        }
    }
}
