import Foundation
import JSONCore
import BriefcaseKit
import BriefcaseTestSupport
import Testing

/// `--jobs 1`, `2` and `8` give the same bytes: every output format of `convert` (a file, a
/// folder, standard output), `validate --json`, `info --json` and `cat`, with the same standard
/// error and exit status — for every fixture, the real samples, a briefcase of many tables,
/// damaged tables with and without `--skip-damaged`, and a code page that restarts. Besides
/// comparing the job counts, the outputs are checked against oracles that do not come from the
/// tool: the fixtures' expected documents and the input's own bytes.
struct JobsCLITests {
    static let jobCounts = [1, 2, 8]

    /// What every command writes for `input` with `--jobs jobs`, by name: each output file (a
    /// folder's files as `out.briefcase/NAME`), and each command's standard output, standard
    /// error and exit status. Run in `dir`, outputs named relative to it, so that messages
    /// naming them read the same whatever the directory.
    static func outputs(_ input: String, jobs: Int, table: String, skipDamaged: Bool, in dir: URL) throws -> [String: [UInt8]] {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let options = ["--jobs", String(jobs)] + (skipDamaged ? ["--skip-damaged"] : [])
        let commands: [(String, [String])] = [
            ("json", ["convert", input, "out.json"] + options),
            ("snapshot", ["convert", input, "out.snapshot.json", "--ignore-limits"] + options),
            ("dabriefcase", ["convert", input, "out.daBriefcase"] + options),
            ("bin2", ["convert", input, "out.bin2"] + options),
            ("folder", ["convert", input, "out.briefcase"] + options),
            ("json to standard output", ["convert", input, "-", "--to", "json"] + options),
            ("validate", ["validate", input, "--json", "--jobs", String(jobs)]),
            ("info", ["info", input, "--json", "--jobs", String(jobs)]),
            ("cat", ["cat", input, "--table", table, "--jobs", String(jobs)]),
            ("cat --original", ["cat", input, "--table", table, "--original", "--jobs", String(jobs)]),
        ]
        var outputs: [String: [UInt8]] = [:]
        for (name, arguments) in commands {
            let result = try CLITests.run(arguments, directory: dir)
            outputs[name + ": stdout"] = result.stdout
            outputs[name + ": stderr"] = Array(result.stderr.utf8)
            outputs[name + ": status"] = Array("\(result.status)".utf8)
        }
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path) {
            let path = dir.appendingPathComponent(name).path
            if name.hasSuffix(".briefcase") {
                for file in try FileManager.default.contentsOfDirectory(atPath: path) { outputs[name + "/" + file] = try FileIO.read(path + "/" + file) }
            } else {
                outputs[name] = try FileIO.read(path)
            }
        }
        return outputs
    }

    /// The outputs with one job, after checking that 2 and 8 give the same.
    static func sameForEveryJobCount(_ input: String, table: String, skipDamaged: Bool = false, _ label: String) throws -> [String: [UInt8]] {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let one = try outputs(input, jobs: 1, table: table, skipDamaged: skipDamaged, in: dir.appendingPathComponent("jobs1"))
        for jobs in jobCounts.dropFirst() {
            let other = try outputs(input, jobs: jobs, table: table, skipDamaged: skipDamaged, in: dir.appendingPathComponent("jobs\(jobs)"))
            #expect(other.keys.sorted() == one.keys.sorted(), "\(label), jobs \(jobs)")
            for (name, bytes) in one where other[name] != bytes {
                Issue.record("\(label), jobs \(jobs): \(name) differs: \(ExpectedFiles.difference(other[name] ?? [], bytes) ?? "")")
            }
        }
        return one
    }

    static func text(_ bytes: [UInt8]?) -> String { String(decoding: bytes ?? [], as: UTF8.self) }

    static func expectedSnapshot(_ fixture: String) throws -> [UInt8] {
        let stem = fixture.split(separator: ".").first.map(String.init) ?? fixture
        return try FileIO.read(SamplePaths.fixtures.appendingPathComponent("expected/\(stem).snapshot.json").path)
    }

    @Test(arguments: ExpectedFiles.validFixtures)
    func fixturesGiveTheirExpectedOutputsWithEveryJobCount(name: String) throws {
        let path = SamplePaths.fixtures.appendingPathComponent(name).path
        let firstTable = try ExpectedOutputs.document(name)["elements"]?.arrayValue?.first { $0["kind"] == "table" }?["name"]?.stringValue
        let outputs = try Self.sameForEveryJobCount(path, table: firstTable ?? "none", name)
        let expected = try ExpectedFiles.json(of: name)
        #expect(ExpectedFiles.difference(outputs["out.json"] ?? [], expected) == nil, "\(name)")
        #expect(outputs["json to standard output: stdout"] == expected, "\(name)")
        #expect(ExpectedFiles.difference(outputs["out.snapshot.json"] ?? [], try Self.expectedSnapshot(name)) == nil, "\(name)")
        #expect(outputs[name.hasSuffix(".bin2") ? "out.bin2" : "out.daBriefcase"] == (try FileIO.read(path)), "\(name): written again byte for byte")
        if let firstTable {
            #expect(try ExpectedOutputs.lines(outputs["cat --original: stdout"] ?? []) == ExpectedOutputs.catRows(name, table: firstTable),
                    "\(name): cat \(firstTable)")
        }
    }

    @Test(.enabled(if: SamplePaths.samplesPresent, "../shared/briefcase-samples is absent"), arguments: SamplePaths.sampleNames)
    func realSamplesGiveTheSameOutputsWithEveryJobCount(name: String) throws {
        let path = SamplePaths.samples.appendingPathComponent(name).path
        let outputs = try Self.sameForEveryJobCount(path, table: "Properties", name)
        #expect(outputs["out.daBriefcase"] == (try FileIO.read(path)), "\(name)")
        #expect(Self.text(outputs["json: status"]) == "0" && Self.text(outputs["snapshot: status"]) == "0", "\(name)")
    }

    /// 50 groups of random tables and deltas; `cat` of a plain table among them.
    @Test func manyTablesGiveTheSameOutputsWithEveryJobCount() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("many.daBriefcase").path
        let original = try ManyTables(groups: 50, seed: 21).document.encode()
        try FileIO.writeAtomically(original, to: input)
        let outputs = try Self.sameForEveryJobCount(input, table: "Plain33", "many tables")
        #expect(outputs["out.daBriefcase"] == original)
        #expect(Self.text(outputs["cat: stdout"]) == "{\"Text\": \"c\"}\n{\"Text\": \"d\"}\n{\"Text\": \"e\"}\n")
        #expect(Self.text(outputs["json: status"]) == "0", "\(Self.text(outputs["json: stderr"]))")
    }

    /// The JSON document of 50 groups of random tables as the input: its elements parsed on
    /// several threads give every output as one job does, and the briefcase it was written from.
    @Test func aJSONDocumentGivesTheSameOutputsWithEveryJobCount() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let binary = dir.appendingPathComponent("many.daBriefcase").path
        let input = dir.appendingPathComponent("many.json").path
        let original = try ManyTables(groups: 50, seed: 22).document.encode()
        try FileIO.writeAtomically(original, to: binary)
        #expect(try CLITests.run(["convert", binary, input, "--jobs", "1"]).status == 0)
        let outputs = try Self.sameForEveryJobCount(input, table: "Plain33", "many tables as JSON")
        #expect(outputs["out.daBriefcase"] == original)
        #expect(outputs["out.json"] == (try FileIO.read(input)))
        #expect(Self.text(outputs["cat: stdout"]) == "{\"Text\": \"c\"}\n{\"Text\": \"d\"}\n{\"Text\": \"e\"}\n")
    }

    /// Damaged tables among many: refused the same way, and with `--skip-damaged` left out the
    /// same way — the same list on standard error, in stream order — by every command.
    @Test(arguments: [false, true])
    func damagedTablesGiveTheSameOutputsWithEveryJobCount(skipDamaged: Bool) throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("damaged.daBriefcase").path
        let many = ManyTables(groups: 30, seed: 4)
        let (bytes, failures, _) = try many.damaged(broken: [2, 3, 25], warning: [3, 10])
        try FileIO.writeAtomically(bytes, to: input)
        let outputs = try Self.sameForEveryJobCount(input, table: "Plain10", skipDamaged: skipDamaged, "damaged, skip \(skipDamaged)")
        let stderr = Self.text(outputs["json: stderr"])
        if skipDamaged {
            let listed = stderr.split(separator: "\n").filter { $0.contains("skipped damaged table") }
            #expect(listed.map { $0.split(separator: "'").dropFirst().first.map(String.init) } == failures.map(\.name), "\(stderr)")
            var readable = many.document.file
            readable.stream.elements.removeAll { element in failures.contains { $0.name == String(decoding: element.name.bytes, as: UTF8.self) } }
            #expect(outputs["out.daBriefcase"] == (try BriefcaseFileCodec.encode(readable)), "the readable tables, byte for byte")
        } else {
            #expect(Self.text(outputs["json: status"]) == "1")
            #expect(stderr.contains("element '\(failures[0].name)'") && stderr.contains("offset \(failures[0].offset)"), "\(stderr)")
            #expect(outputs["out.json"] == nil, "nothing written")
        }
        #expect(Self.text(outputs["validate: status"]) == "1")
    }

    /// One windows-1252 value in the 40th of 45 ASCII tables: the code page chosen from the
    /// heads is given up there and the conversion starts over, with every job count.
    @Test func aCodePageRestartGivesTheSameOutputsWithEveryJobCount() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("restart.daBriefcase").path
        let elements: [Element] = (0 ..< 45).map { t in
            .table(Table(name: ByteString(utf8: "T\(t)"), fields: [FieldDescriptor(name: "Text", type: .string, size: 50)],
                         rows: [[.ansiString(t == 40 ? ByteString([0x63, 0x61, 0x66, 0xE9]) : ByteString(utf8: "abc"))]]))
        }
        let original = try BriefcaseFileCodec.encode(BriefcaseFile(stream: Bin2Stream(elements: elements)))
        try FileIO.writeAtomically(original, to: input)
        let outputs = try Self.sameForEveryJobCount(input, table: "T40", "restart")
        let document = try JSONParser.parse(outputs["out.json"] ?? [])
        #expect(document["encoding"]?.stringValue == "windows-1252")
        #expect(document["elements"]?.arrayValue?[40]["rows"] == .array([.array([.string("café")])]))
        #expect(outputs["json to standard output: stdout"] == outputs["out.json"], "the exact detection first writes the same")
        #expect(outputs["out.daBriefcase"] == original)
        #expect(Self.text(outputs["cat: stdout"]) == "{\"Text\": \"café\"}\n")
    }

    @Test(arguments: ["convert", "cat", "validate", "info"])
    func jobsBelowOneIsAUsageError(command: String) throws {
        let input = SamplePaths.fixtures.appendingPathComponent("orders.bin2").path
        let arguments = command == "convert" ? [command, input, "-", "--to", "json"] : command == "cat" ? [command, input, "--table", "Orders"] : [command, input]
        let result = try CLITests.run(arguments + ["--jobs", "0"])
        #expect(result.status == 2, "usage error")
        #expect(result.stderr.contains("--jobs must be at least 1"), "\(result.stderr)")
        #expect(try CLITests.run([command, "--help"]).text.contains("--jobs <n>"))
    }
}
