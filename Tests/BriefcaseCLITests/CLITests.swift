import Foundation
import Testing
import BriefcaseTestSupport
import BriefcaseKit

/// End-to-end: the built `briefcase` executable run as a subprocess, as CI scripts use it.
struct CLITests {
    struct Result {
        var status: Int32
        var stdout: [UInt8]
        var stderr: String
        var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    static let repository = SamplePaths.repository
    static let sample = SamplePaths.samples.appendingPathComponent("capraynor-Resources-Properties.daBriefcase").path
    static var samplesPresent: Bool { SamplePaths.samplesPresent }
    static let fixtures = SamplePaths.fixtures

    /// The executable SwiftPM built next to the test bundle.
    static let executable: URL = {
        var candidates = [Bundle.main.bundleURL.appendingPathComponent("briefcase"),
                          Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("briefcase")]
        for bundle in Bundle.allBundles { candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("briefcase")) }
        candidates.append(repository.appendingPathComponent(".build/debug/briefcase"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates.last!
    }()

    /// Runs the executable (or `program`, such as /bin/sh) with `arguments`; `environment` is
    /// added to the test's own, `directory` is the working directory.
    static func run(_ arguments: [String], stdin: [UInt8]? = nil, program: URL = executable,
                    environment: [String: String] = [:], directory: URL? = nil) throws -> Result {
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try process.run()
        if let stdin {
            input.fileHandleForWriting.write(Data(stdin))
            try input.fileHandleForWriting.close()
        }
        // Read both pipes before waiting so a large output cannot block the child.
        final class Box: @unchecked Sendable { var data = Data() }
        let stderrBox = Box()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { stderrBox.data = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: [UInt8](stdoutData), stderr: String(decoding: stderrBox.data, as: UTF8.self))
    }

    static func temporaryDirectory() throws -> URL { try makeTemporaryDirectory() }
    static func makeTemporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("briefcase-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test(.enabled(if: samplesPresent, "../shared/briefcase-samples is absent"))
    func convertToJSONAndBackIsByteExact() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let json = dir.appendingPathComponent("x.json").path, back = dir.appendingPathComponent("x.daBriefcase").path
        let first = try Self.run(["convert", Self.sample, json])
        #expect(first.status == 0)
        #expect(first.stderr.contains("gbk"), "says which code page it chose")
        #expect(try Self.run(["convert", json, back]).status == 0)
        #expect(FileManager.default.contents(atPath: back) == FileManager.default.contents(atPath: Self.sample))
        // Through a bare Bin2 stream too (the sample has no properties).
        let bin2 = dir.appendingPathComponent("x.bin2").path, again = dir.appendingPathComponent("y.daBriefcase").path
        #expect(try Self.run(["convert", Self.sample, bin2]).status == 0)
        #expect(try Self.run(["convert", bin2, again]).status == 0)
        #expect(FileManager.default.contents(atPath: again) == FileManager.default.contents(atPath: Self.sample))
    }

    @Test(.enabled(if: samplesPresent, "../shared/briefcase-samples is absent"))
    func pipesWithFromAndTo() throws {
        let toJSON = try Self.run(["convert", Self.sample, "-", "--to", "json"])
        #expect(toJSON.status == 0)
        let back = try Self.run(["convert", "-", "-", "--from", "json", "--to", "dabriefcase"], stdin: toJSON.stdout)
        #expect(back.status == 0)
        #expect(Data(back.stdout) == FileManager.default.contents(atPath: Self.sample))
    }

    /// An existing OUTPUT without --force: one line, no usage dump, exit 2 (Spec/robustness.md §8.11).
    @Test func refusesToOverwriteWithoutForce() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("x.json")
        let input = Self.fixtures.appendingPathComponent("nulls.daBriefcase").path
        try Data("keep".utf8).write(to: out)
        let result = try Self.run(["convert", input, out.path])
        #expect(result.status == 2)
        #expect(result.stderr == "briefcase: '\(out.path)' exists; use --force to replace it\n")
        #expect(FileManager.default.contents(atPath: out.path) == Data("keep".utf8))
        #expect(try Self.run(["convert", input, out.path, "--force"]).status == 0)
        #expect(FileManager.default.contents(atPath: out.path) != Data("keep".utf8))
    }

    /// The contract's value mapping and delta application on the real sample: CourseInfo stores
    /// 0 rows and a pending delta of 3 inserts (briefcase-format.md §2.3).
    @Test(.enabled(if: samplesPresent, "../shared/briefcase-samples is absent"))
    func catAppliesThePendingDelta() throws {
        let current = try Self.run(["cat", Self.sample, "--table", "courseinfo"])
        #expect(current.status == 0)
        let lines = current.text.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.first == #"{"课程名称": "1、2班C#程序设计", "课程编号": "2013021202"}"#)
        let original = try Self.run(["cat", Self.sample, "--table", "CourseInfo", "--original"])
        #expect(original.status == 0)
        #expect(original.stdout.isEmpty)

        let csv = try Self.run(["cat", Self.sample, "--table", "BJTABLE", "--format", "csv"])
        #expect(csv.status == 0)
        let rows = csv.text.components(separatedBy: "\r\n")
        #expect(rows.first == "BJID,BJNAME,XYID,XYNAME")
        #expect(rows.count == 14) // header, 12 rows, empty after the last CRLF
        #expect(rows.contains { $0.hasPrefix("201403,") })
    }

    @Test(.enabled(if: samplesPresent, "../shared/briefcase-samples is absent"))
    func infoJSON() throws {
        let result = try Self.run(["info", Self.sample, "--json"])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
        #expect(object["format"] as? String == "dabriefcase")
        #expect((object["properties"] as? [Any])?.isEmpty == true)
        let tables = try #require(object["tables"] as? [[String: Any]])
        #expect(tables.map { $0["name"] as? String } == ["CourseInfo", "BJTABLE"])
        #expect(tables.map { $0["rows"] as? Int } == [0, 12])
        let delta = try #require(tables[0]["delta"] as? [String: Any])
        #expect(delta["changes"] as? Int == 3)
        #expect(tables[1]["delta"] is NSNull)
        let fields = try #require(tables[0]["fields"] as? [[String: Any]])
        #expect(fields.map { $0["name"] as? String } == ["课程名称", "课程编号"])
        #expect(fields.map { $0["type"] as? String } == ["datWideString", "datWideString"])
        #expect(fields.map { $0["size"] as? Int } == [65536, 65536])
    }

    @Test func exitCodes() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Missing file: 2.
        let missing = try Self.run(["convert", dir.appendingPathComponent("none.daBriefcase").path, dir.appendingPathComponent("o.json").path])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("none.daBriefcase"))
        // Usage: 2. Help: 0.
        #expect(try Self.run(["cat"]).status == 2)
        #expect(try Self.run(["frobnicate"]).status == 2)
        #expect(try Self.run(["info", "x.daBriefcase", "--encoding", "no-such-code-page"]).status == 2)
        let help = try Self.run(["--help"])
        #expect(help.status == 0)
        #expect(help.text.contains("convert"))
        // Invalid data: 1, one line naming the file and the offset, and no output left behind.
        let bad = dir.appendingPathComponent("bad.daBriefcase")
        var bytes = Array("DABRC600".utf8) + [16, 0, 0, 0, 0, 0, 0, 0] + Array("DABIN200".utf8)
        bytes += [0x7f, 0, 0, 0] // index position far past the end
        try Data(bytes).write(to: bad)
        let out = dir.appendingPathComponent("bad.json")
        let result = try Self.run(["convert", bad.path, out.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("bad.daBriefcase"))
        #expect(result.stderr.contains("offset 24"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["bad.daBriefcase"])
    }

    /// Every fixture that is not deliberately damaged converts to its expected JSON document
    /// (`Fixtures/expected/`) and back byte for byte.
    @Test func fixturesRoundTripThroughTheCLI() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.fixtures.path)
            .filter { ($0.hasSuffix(".daBriefcase") || $0.hasSuffix(".bin2")) && !$0.hasPrefix("damaged") }
        #expect(!names.isEmpty)
        for name in names {
            let source = Self.fixtures.appendingPathComponent(name).path
            let json = dir.appendingPathComponent(name + ".json").path
            let back = dir.appendingPathComponent(name).path
            #expect(try Self.run(["convert", source, json]).status == 0, "\(name) → json")
            let difference = ExpectedFiles.difference(try FileIO.read(json), try ExpectedFiles.json(of: name))
            #expect(difference == nil, "\(name): its expected document: \(difference ?? "")")
            #expect(try Self.run(["convert", json, back]).status == 0, "\(name) ← json")
            #expect(FileManager.default.contents(atPath: back) == FileManager.default.contents(atPath: source), "\(name)")
        }
    }

    /// Where each damaged fixture is damaged, worked out by hand from its layout (`damagedBase` in
    /// Sources/FixtureMaker/main.swift: 24 index position, 33 row count, rows from 65).
    static let damagedOffsets = [
        "damaged-truncated-file.daBriefcase": 24, "damaged-index-position.daBriefcase": 24, "damaged-row-count.daBriefcase": 33,
        "damaged-truncated-row.daBriefcase": 83, "damaged-type-200.daBriefcase": 70, "damaged-type-0.daBriefcase": 70,
    ]

    /// Damaged fixtures: `convert` exits 1 with one line naming the file and the offset, writing
    /// nothing. `info` reads the header, the index and each element's head and counts, no row: it
    /// refuses the same way when the damage is there, and lists the table when it is in a row.
    @Test func damagedFixturesAreRejected() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.fixtures.path).filter { $0.hasPrefix("damaged") }
        #expect(Set(names) == Set(Self.damagedOffsets.keys))
        for (name, offset) in Self.damagedOffsets {
            let path = Self.fixtures.appendingPathComponent(name).path
            func expectRefused(_ result: Result, _ command: String) {
                #expect(result.status == 1 && result.stdout.isEmpty, "\(command) \(name): exit \(result.status) \(result.stderr)")
                #expect(result.stderr.hasPrefix("briefcase: \(path): ") && result.stderr.contains("offset \(offset): ")
                        && result.stderr.filter { $0 == "\n" }.count == 1, "\(command) \(name): \(result.stderr)")
            }
            expectRefused(try Self.run(["convert", path, "-", "--to", "json"]), "convert")
            let info = try Self.run(["info", path])
            if offset < 65 {
                expectRefused(info, "info")
            } else {
                #expect(info.status == 0 && info.text.contains("  T: 2 rows, 2 fields"), "info \(name): \(info.stderr)")
            }
        }
    }
}

extension CLITests {
    /// orders.bin2 stores Alice (1), Bob (2), Carol (3) and a delta keyed on ID that updates Bob's
    /// amount to 8 and ship date, deletes Carol and inserts Dora (4) — see Sources/FixtureMaker.
    @Test func catReplaysAKeyedDelta() throws {
        let path = Self.fixtures.appendingPathComponent("orders.bin2").path
        let current = try Self.run(["cat", path, "--table", "ORDERS"])
        #expect(current.status == 0)
        #expect(current.stderr.isEmpty)
        let ids = current.text.split(separator: "\n").map { $0.prefix(9) }
        #expect(ids == [#"{"ID": 1,"#, #"{"ID": 2,"#, #"{"ID": 4,"#])
        #expect(current.text.contains(#""Amount": "8""#))
        #expect(current.text.contains(#""Customer": "Dora 😀""#))
        let original = try Self.run(["cat", path, "--table", "orders", "--original", "--format", "csv"])
        #expect(original.text.hasPrefix("ID,Customer,Amount,Shipped\r\n1,Alice,12.5,2023-03-15T12:00:00.000\r\n2,Bob,7,\r\n"))
    }

    /// A change that matches no row is a warning on standard error, never silently dropped.
    @Test func unmatchedChangesAreReported() throws {
        let path = Self.fixtures.appendingPathComponent("empty-delta.daBriefcase").path
        let result = try Self.run(["cat", path, "--table", "Archive"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("matches no row"))
        #expect(result.stderr.contains("Archive"))
        #expect(try Self.run(["cat", path, "--table", "NoSuchTable"]).status == 2)
    }
}

import BriefcaseKit

extension CLITests {
    /// `x.daBriefcase → x.briefcase → x.daBriefcase` keeps every property, row and delta (the
    /// order of elements may differ: a folder lists its tables by file name).
    @Test func folderRoundTripKeepsEverything() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var inputs = try FileManager.default.contentsOfDirectory(atPath: Self.fixtures.path)
            .filter { $0.hasSuffix(".daBriefcase") && !$0.hasPrefix("damaged") }
            .map { Self.fixtures.appendingPathComponent($0).path }
        if Self.samplesPresent { inputs += SamplePaths.sampleNames.map { SamplePaths.samples.appendingPathComponent($0).path } }
        for input in inputs {
            let name = URL(fileURLWithPath: input).lastPathComponent
            let folder = dir.appendingPathComponent(name + ".briefcase").path
            let back = dir.appendingPathComponent(name).path
            #expect(try Self.run(["convert", input, folder]).status == 0, "\(name) → folder")
            #expect(try Self.run(["convert", folder, back]).status == 0, "\(name) ← folder")
            let original = try BriefcaseFileCodec.decode([UInt8](FileManager.default.contents(atPath: input)!))
            let result = try BriefcaseFileCodec.decode([UInt8](FileManager.default.contents(atPath: back)!))
            #expect(result.properties == original.properties, "\(name)")
            #expect(Set(result.stream.elements) == Set(original.stream.elements), "\(name)")
            #expect(result.stream.elements.count == original.stream.elements.count, "\(name)")
        }
    }
}

extension CLITests {
    /// Every truncated prefix, and 0x7FFFFFF0 (≥ 2^31−16) written at every offset of a fixture:
    /// exit 1 with the offset named (or 0 when the damage hit plain data), fast, never a crash.
    @Test func absurdCountsAndTruncationsThroughTheCLI() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bytes = [UInt8](FileManager.default.contents(atPath: Self.fixtures.appendingPathComponent("gbk.daBriefcase").path)!)
        var mutants: [[UInt8]] = (0..<bytes.count).map { Array(bytes[0..<$0]) }
        for offset in 0...(bytes.count - 4) {
            var mutant = bytes
            mutant.replaceSubrange(offset..<offset + 4, with: [0xF0, 0xFF, 0xFF, 0x7F])
            mutants.append(mutant)
        }
        let path = dir.appendingPathComponent("m.daBriefcase").path
        var slowest = 0.0
        for mutant in mutants {
            try Data(mutant).write(to: URL(fileURLWithPath: path))
            let start = Date()
            let result = try Self.run(["convert", path, "-", "--to", "json", "--encoding", "gbk"])
            slowest = max(slowest, Date().timeIntervalSince(start))
            #expect(result.status == 0 || result.status == 1, "exit \(result.status): \(result.stderr)")
            if result.status == 1 {
                #expect(result.stderr.contains("m.daBriefcase"))
                #expect(result.stderr.contains("offset"), "\(result.stderr)")
            }
        }
        #expect(slowest < 1.0, "slowest run took \(slowest) s")
    }
}

extension CLITests {
    /// Where 8-bit text is turned into text (JSON, folder file names and Properties.plist), the tool
    /// says which code page it chose when it is not UTF-8; binary to binary needs no code page.
    @Test func saysWhichCodePageItChose() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let gbk = Self.fixtures.appendingPathComponent("gbk.daBriefcase").path
        let folder = try Self.run(["convert", gbk, dir.appendingPathComponent("g.briefcase").path])
        #expect(folder.status == 0)
        #expect(folder.stderr.contains("read as gbk"))
        let binary = try Self.run(["convert", gbk, dir.appendingPathComponent("g.bin2").path, "--to", "dabriefcase"])
        #expect(binary.status == 0)
        #expect(binary.stderr.isEmpty)
    }
}

extension CLITests {
    /// `info` of a folder shows what `info` of the single file shows (the same reader: heads by
    /// offset): in `empty-delta`, the delta-only `Archive` comes after the table `Orders`
    /// (Fixtures/README.md), in the folder as in the file.
    @Test func infoOfAFolderListsWhatTheFileLists() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = Self.fixtures.appendingPathComponent("empty-delta.daBriefcase").path
        let folder = dir.appendingPathComponent("empty-delta.briefcase").path
        #expect(try Self.run(["convert", file, folder]).status == 0)
        let fromFile = try Self.run(["info", file])
        let fromFolder = try Self.run(["info", folder])
        #expect(fromFile.status == 0 && fromFolder.status == 0)
        let tables = fromFolder.text.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("    ") }
        #expect(tables == ["  Orders: 1 rows, 2 fields, delta with 0 changes", "  Archive: no dataset, delta with 4 changes"])
        #expect(fromFolder.text.replacingOccurrences(of: "format: folder", with: "format: dabriefcase") == fromFile.text)
    }

    /// `info` reads heads only: a file whose row 1 is cut short (`damaged-truncated-row`, which
    /// `convert` refuses at offset 83) shows its table's 2 rows and exit 0.
    @Test func infoReadsNoRows() throws {
        let result = try Self.run(["info", Self.fixtures.appendingPathComponent("damaged-truncated-row.daBriefcase").path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.text.contains("  T: 2 rows, 2 fields"))
    }
}
