import Foundation
import JSONCore
import Testing
import BriefcaseKit
import BriefcaseTestSupport

/// gzip in and out of the command line: a trailing `.gz` on INPUT or OUTPUT, or gzip content
/// (1f 8b) on an input, standard input included.
extension CLITests {
    static func bytes(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    /// The fixture with every type, and the real samples when they are there.
    static var gzipInputs: [String] {
        var inputs = [fixtures.appendingPathComponent("all-types.daBriefcase").path]
        if samplesPresent { inputs += SamplePaths.sampleNames.map { SamplePaths.samples.appendingPathComponent($0).path } }
        return inputs
    }

    /// `x.daBriefcase → x.json.gz → x.daBriefcase` gives back the file byte for byte, and a
    /// fixture's `.json.gz` holds exactly its expected document (`Fixtures/expected/`).
    @Test func gzipJSONRoundTripIsByteExact() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for input in Self.gzipInputs {
            let name = URL(fileURLWithPath: input).lastPathComponent
            let gz = dir.appendingPathComponent(name + ".json.gz").path
            let back = dir.appendingPathComponent(name).path
            let compressed = try Self.run(["convert", input, gz])
            #expect(compressed.status == 0, "\(name) → json.gz: \(compressed.stderr)")
            let gzBytes = try #require(Self.bytes(gz))
            #expect(Gzip.hasMagic(gzBytes), "\(name): the .json.gz is gzip")
            if ExpectedFiles.validFixtures.contains(name) {
                #expect(try Gzip.decompress(gzBytes) == ExpectedFiles.json(of: name), "\(name): its expected document inside")
            }
            let result = try Self.run(["convert", gz, back])
            #expect(result.status == 0, "\(name) ← json.gz: \(result.stderr)")
            #expect(Self.bytes(back) == Self.bytes(input), "\(name): byte for byte")
        }
    }

    /// `.daBriefcase.gz` and `.bin2.gz` in and out; `info` and `cat` read them too.
    @Test func gzipBinaryFormatsInAndOut() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for input in Self.gzipInputs {
            let name = URL(fileURLWithPath: input).lastPathComponent
            let gz = dir.appendingPathComponent(name + ".gz").path
            let back = dir.appendingPathComponent("back-" + name).path
            #expect(try Self.run(["convert", input, gz]).status == 0, "\(name) → .gz")
            #expect(try Gzip.decompress(#require(Self.bytes(gz))) == Self.bytes(input), "\(name): the file inside")
            #expect(try Self.run(["convert", gz, back]).status == 0, "\(name) ← .gz")
            #expect(Self.bytes(back) == Self.bytes(input), "\(name)")
            // gzip to gzip, through JSON.
            let json = dir.appendingPathComponent(name + ".json.gz").path, again = dir.appendingPathComponent("again-" + name + ".gz").path
            #expect(try Self.run(["convert", gz, json]).status == 0)
            #expect(try Self.run(["convert", json, again]).status == 0)
            #expect(try Gzip.decompress(#require(Self.bytes(again))) == Self.bytes(input), "\(name): .gz → .json.gz → .gz")

            let info = try Self.run(["info", gz, "--json"])
            #expect(info.status == 0)
            if ExpectedFiles.validFixtures.contains(name) {
                #expect(try ExpectedOutputs.infoFacts(ofInfo: info.stdout) == ExpectedOutputs.infoFacts(name), "\(name): info of the .gz")
            } else if name == "capraynor-Resources-Properties.daBriefcase" { // the reference notes (RealSampleTests)
                let tables = try JSONParser.parse(info.stdout)["tables"]?.arrayValue ?? []
                #expect(tables.map { $0["name"]?.stringValue ?? "?" } == ["CourseInfo", "BJTABLE"], "\(name): info of the .gz")
                #expect(tables.map { $0["rows"]?.int64Value ?? -1 } == [0, 12], "\(name): info of the .gz")
                #expect(tables.first?["delta"]?["changes"]?.int64Value == 3, "\(name): info of the .gz")
            }
        }
        let bin2 = Self.fixtures.appendingPathComponent("orders.bin2").path
        let bin2gz = dir.appendingPathComponent("orders.bin2.gz").path, bin2back = dir.appendingPathComponent("orders.bin2").path
        #expect(try Self.run(["convert", bin2, bin2gz]).status == 0)
        #expect(try Self.run(["convert", bin2gz, bin2back]).status == 0)
        #expect(Self.bytes(bin2back) == Self.bytes(bin2))
        #expect(try ExpectedOutputs.infoFacts(ofInfo: Self.run(["info", bin2gz, "--json"]).stdout) == ExpectedOutputs.infoFacts("orders.bin2"))
        // Orders after its delta (Sources/FixtureMaker): Bob's amount 7 → 8 and shipped at 06:00, Carol deleted, Dora inserted.
        let cat = try Self.run(["cat", bin2gz, "--table", "ORDERS"])
        #expect(cat.status == 0)
        #expect(cat.text == """
            {"ID": 1, "Customer": "Alice", "Amount": "12.5", "Shipped": "2023-03-15T12:00:00.000"}
            {"ID": 2, "Customer": "Bob", "Amount": "8", "Shipped": "2023-03-15T06:00:00.000"}
            {"ID": 4, "Customer": "Dora 😀", "Amount": "5", "Shipped": null}

            """)
    }

    /// gzip recognised by content: on standard input (with --from naming the format inside) and
    /// in a file whose name says nothing.
    @Test func gzipIsRecognisedByContent() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = Self.fixtures.appendingPathComponent("all-types.daBriefcase").path
        let original = try #require(Self.bytes(input))
        let expected = try ExpectedFiles.json(of: "all-types.daBriefcase")

        let fromGzipStdin = try Self.run(["convert", "-", "-", "--from", "dabriefcase", "--to", "json"], stdin: Gzip.compress(original))
        #expect(fromGzipStdin.status == 0, "\(fromGzipStdin.stderr)")
        #expect(ExpectedFiles.difference(fromGzipStdin.stdout, expected) == nil, "\(ExpectedFiles.difference(fromGzipStdin.stdout, expected) ?? "")")
        let jsonFromStdin = try Self.run(["convert", "-", "-", "--from", "json", "--to", "dabriefcase"], stdin: Gzip.compress(expected))
        #expect(jsonFromStdin.status == 0, "\(jsonFromStdin.stderr)")
        #expect(jsonFromStdin.stdout == original)
        // Plain standard input still works, and standard output is never compressed.
        let plainStdin = try Self.run(["convert", "-", "-", "--from", "dabriefcase", "--to", "dabriefcase"], stdin: original)
        #expect(plainStdin.stdout == original)

        // No telling name: the content is gzip, and inside it a briefcase, a Bin2 stream, JSON.
        let mystery = dir.appendingPathComponent("mystery").path
        try Data(Gzip.compress(original)).write(to: URL(fileURLWithPath: mystery))
        let info = try Self.run(["info", mystery, "--json"])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.text.contains(#""format": "dabriefcase""#))
        let unnamedJSON = dir.appendingPathComponent("document.gz").path
        try Data(Gzip.compress(expected)).write(to: URL(fileURLWithPath: unnamedJSON))
        let back = dir.appendingPathComponent("back.daBriefcase").path
        #expect(try Self.run(["convert", unnamedJSON, back]).status == 0)
        #expect(Self.bytes(back) == original)
        let unnamedBin2 = dir.appendingPathComponent("stream.gz").path
        try Data(Gzip.compress(#require(Self.bytes(Self.fixtures.appendingPathComponent("orders.bin2").path))))
            .write(to: URL(fileURLWithPath: unnamedBin2))
        #expect(try Self.run(["info", unnamedBin2, "--json"]).text.contains(#""format": "bin2""#))
        // A concatenation of gzip members is one input.
        let halves = try Gzip.compress(Array(original.prefix(100))) + Gzip.compress(Array(original.dropFirst(100)))
        let concatenated = try Self.run(["convert", "-", "-", "--from", "dabriefcase", "--to", "dabriefcase"], stdin: halves)
        #expect(concatenated.stdout == original)
    }

    /// Damaged gzip: exit 1, one line naming the file and the offset, nothing left behind. A
    /// folder cannot be gzipped: a usage error.
    @Test func gzipErrors() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = Self.fixtures.appendingPathComponent("all-types.daBriefcase").path
        let compressed = try Gzip.compress(#require(Self.bytes(input)))

        let cut = dir.appendingPathComponent("cut.daBriefcase.gz")
        try Data(compressed.prefix(compressed.count - 20)).write(to: cut)
        var result = try Self.run(["convert", cut.path, dir.appendingPathComponent("out.json").path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("cut.daBriefcase.gz"))
        #expect(result.stderr.contains("offset \(compressed.count - 20)"))
        #expect(result.stderr.split(separator: "\n").count == 1)

        var flipped = compressed
        flipped[flipped.count - 6] ^= 0x40 // the CRC-32
        let bad = dir.appendingPathComponent("crc.daBriefcase.gz")
        try Data(flipped).write(to: bad)
        result = try Self.run(["convert", bad.path, dir.appendingPathComponent("out.json.gz").path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("incorrect data check"))

        let notGzip = dir.appendingPathComponent("plain.json.gz")
        try Data("{}".utf8).write(to: notGzip)
        result = try Self.run(["info", notGzip.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("not gzip"))

        // Decoding errors inside gzip say their offsets are in the decompressed data.
        let damaged = dir.appendingPathComponent("damaged.daBriefcase.gz")
        try Data(Gzip.compress(#require(Self.bytes(Self.fixtures.appendingPathComponent("damaged-index-position.daBriefcase").path))))
            .write(to: damaged)
        result = try Self.run(["convert", damaged.path, "-", "--to", "json"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("decompressed"))

        // Gzip on standard input that is damaged.
        result = try Self.run(["convert", "-", "-", "--from", "dabriefcase", "--to", "json"], stdin: Array(compressed.prefix(30)))
        #expect(result.status == 1)
        #expect(result.stderr.contains("standard input"))

        for output in ["x.briefcase.gz", "y.gz"] {
            let arguments = ["convert", input, dir.appendingPathComponent(output).path] + (output == "y.gz" ? ["--to", "folder"] : [])
            result = try Self.run(arguments)
            #expect(result.status == 2, "\(output)")
            #expect(result.stderr.contains("folder briefcase cannot be gzipped"), "\(output)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
                == ["crc.daBriefcase.gz", "cut.daBriefcase.gz", "damaged.daBriefcase.gz", "plain.json.gz"])
    }
}
