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

    @Test func streamedJSONAndFolderEqualTheWholeDocumentPath() throws {
        // The gzip input takes the whole-document path; the plain file the streaming one.
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["all-types.daBriefcase", "gbk.daBriefcase", "unsafe-names.daBriefcase", "orders.bin2"] {
            let input = CLITests.fixtures.appendingPathComponent(name).path
            let gz = dir.appendingPathComponent(name + ".gz").path
            #expect(try CLITests.run(["convert", input, gz, "--force"]).status == 0)
            for ext in ["json", "briefcase"] {
                let streamed = dir.appendingPathComponent("s-\(name).\(ext)").path, whole = dir.appendingPathComponent("w-\(name).\(ext)").path
                let a = try CLITests.run(["convert", input, streamed]), b = try CLITests.run(["convert", gz, whole])
                #expect(a.status == 0 && b.status == 0)
                #expect(a.stderr.replacingOccurrences(of: input, with: "X") == b.stderr.replacingOccurrences(of: gz, with: "X"), "same notes and warnings")
                if ext == "json" {
                    #expect(try FileIO.read(streamed) == FileIO.read(whole), "\(name)")
                } else {
                    let names = try FileManager.default.contentsOfDirectory(atPath: whole).sorted()
                    #expect(try FileManager.default.contentsOfDirectory(atPath: streamed).sorted() == names)
                    for file in names { #expect(try FileIO.read(streamed + "/" + file) == FileIO.read(whole + "/" + file), "\(name)/\(file)") }
                }
            }
        }
    }
}
