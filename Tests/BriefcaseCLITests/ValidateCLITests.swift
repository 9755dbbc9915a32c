import Foundation
import Testing
import BriefcaseTestSupport

/// `briefcase validate` end to end: exit codes, finding lines, `--json`, `--strict`, every input format.
@Suite struct ValidateCLITests {
    static let fixtures = SamplePaths.fixtures.path

    static func fixture(_ name: String) -> String { fixtures + "/" + name }

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try #require(FileManager.default.contents(atPath: fixture(name))))
    }

    static func write(_ bytes: [UInt8], _ path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// The `--json` output as an array of report objects.
    static func reports(_ result: CLITests.Result) throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout))
        return try #require(object as? [[String: Any]], "stdout is not an array of objects: \(result.text)")
    }

    @Test func validFilesExitZero() throws {
        let paths = ["all-types.daBriefcase", "nulls.daBriefcase", "empty-delta.daBriefcase", "orders.bin2"].map(Self.fixture)
        let result = try CLITests.run(["validate"] + paths)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        let lines = result.text.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines.allSatisfy { $0.contains(": valid ") })
        #expect(lines.last == "\(Self.fixture("orders.bin2")): valid bin2, 0 errors, 0 warnings")
    }

    /// `validate` finds a PATH's format as every other command does (`FileFormat.ofContent`):
    /// a name without a format's extension is told by what it is — a directory, gzip around a
    /// file, an SQLite database — and `info` reads each the same way.
    @Test func formatsAreFoundAsEveryCommandFindsThem() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Self.fixture("all-types.daBriefcase")
        let made = ["Backup.briefcase", "blob.daBriefcase.gz", "data.sqlite"].map { dir.appendingPathComponent($0).path }
        let named = ["Backup.gz", "blob", "data.bin"].map { dir.appendingPathComponent($0).path }
        for (path, name) in zip(made, named) {
            let converted = try CLITests.run(["convert", source, path])
            #expect(converted.status == 0, "\(converted.stderr)")
            try FileManager.default.moveItem(atPath: path, toPath: name)
        }
        for (path, format) in zip(named, ["folder", "dabriefcase (gzip; offsets are in the decompressed data)", "sqlite"]) {
            #expect(try CLITests.run(["info", path]).status == 0, "\(path)")
            let result = try CLITests.run(["validate", path])
            #expect(result.status == 0, "\(path): \(result.stderr)")
            #expect(result.text == "\(path): valid \(format), 0 errors, 0 warnings\n")
        }
    }

    @Test func invalidFileExitsOneAndNamesElementAndOffset() throws {
        let path = Self.fixture("damaged-row-count.daBriefcase")
        let result = try CLITests.run(["validate", path])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("\(path): element 'T': offset 33: error: row count is 2147483632"))
        #expect(result.text == "\(path): INVALID dabriefcase, 1 error, 0 warnings\n")
    }

    @Test func missingFileExitsTwo() throws {
        let missing = "/nonexistent/\(UUID().uuidString).daBriefcase"
        var result = try CLITests.run(["validate", missing])
        #expect(result.status == 2)
        #expect(result.stderr.contains(missing))
        #expect(result.stderr.contains("no such file"))
        // With a valid and an invalid PATH: still 2, and the others are checked.
        result = try CLITests.run(["validate", Self.fixture("nulls.daBriefcase"), Self.fixture("damaged-type-0.daBriefcase"), missing])
        #expect(result.status == 2)
        #expect(result.text.contains("nulls.daBriefcase: valid"))
        #expect(result.text.contains("damaged-type-0.daBriefcase: INVALID"))
    }

    @Test func usageErrorsExitTwo() throws {
        #expect(try CLITests.run(["validate"]).status == 2)
        #expect(try CLITests.run(["validate", Self.fixture("nulls.daBriefcase"), "--encoding", "no-such-code-page"]).status == 2)
        #expect(try CLITests.run(["validate", "-"]).status == 2) // standard input needs --from
    }

    @Test func jsonReportShape() throws {
        let missing = "/nonexistent/\(UUID().uuidString).bin2"
        let paths = [Self.fixture("gbk.daBriefcase"), Self.fixture("damaged-truncated-row.daBriefcase"), missing]
        let result = try CLITests.run(["validate", "--json"] + paths)
        #expect(result.status == 2)
        let reports = try Self.reports(result)
        #expect(reports.count == 3)
        #expect(reports.map { $0["path"] as? String } == paths)

        let gbk = reports[0]
        #expect(gbk["format"] as? String == "dabriefcase")
        #expect(gbk["valid"] as? Bool == true)
        #expect(gbk["encoding"] as? String == "gbk")
        #expect((gbk["errors"] as? [Any])?.isEmpty == true)
        #expect((gbk["warnings"] as? [Any])?.isEmpty == true)

        let damaged = reports[1]
        #expect(damaged["valid"] as? Bool == false)
        let errors = try #require(damaged["errors"] as? [[String: Any]])
        #expect(errors.map { $0["offset"] as? Int } == [83, 89])
        #expect(errors.allSatisfy { $0["element"] as? String == "T" && $0["message"] is String })
        #expect(errors.map { $0["check"] as? String } == ["decoding", "element-bounds"])

        let gone = reports[2]
        #expect(gone["valid"] as? Bool == false)
        #expect(gone["format"] as? String == "bin2")
        let goneErrors = try #require(gone["errors"] as? [[String: Any]])
        #expect(goneErrors.count == 1 && goneErrors[0]["offset"] == nil && goneErrors[0]["element"] == nil)
    }

    /// A delta whose two change counts differ (orders.bin2, first count at 12): a warning, valid;
    /// with --strict, an error.
    @Test func strictTurnsWarningsIntoErrors() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var bytes = try Self.bytes("orders.bin2")
        try #require(bytes[12] == 3)
        bytes[12] = 2
        let path = dir.appendingPathComponent("counts.bin2").path
        try Self.write(bytes, path)

        let lenient = try CLITests.run(["validate", path])
        #expect(lenient.status == 0)
        #expect(lenient.stderr.hasPrefix("\(path): element 'Orders': offset 12: warning: "))
        #expect(lenient.text == "\(path): valid bin2, 0 errors, 1 warning\n")

        let strict = try CLITests.run(["validate", path, "--strict", "--json"])
        #expect(strict.status == 1)
        #expect(strict.stderr.hasPrefix("\(path): element 'Orders': offset 12: error: "))
        let report = try #require(try Self.reports(strict).first)
        #expect(report["valid"] as? Bool == false)
        #expect((report["errors"] as? [[String: Any]])?.first?["check"] as? String == "change-counts")
        #expect((report["warnings"] as? [Any])?.isEmpty == true)
    }

    /// JSON inputs: syntax errors with their offset, structural errors, then the model checks.
    @Test func jsonInputs() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Shipped logged as datFloat (type byte at 62) while the table says datDateTime.
        var bytes = try Self.bytes("orders.bin2")
        try #require(bytes[62] == 2)
        bytes[62] = 3
        let bin2 = dir.appendingPathComponent("orders.bin2").path, json = dir.appendingPathComponent("orders.json").path
        try Self.write(bytes, bin2)
        #expect(try CLITests.run(["convert", bin2, json]).status == 0)
        let result = try CLITests.run(["validate", bin2, json, "--json"])
        #expect(result.status == 1)
        let reports = try Self.reports(result)
        let fromBytes = try #require(reports[0]["errors"] as? [[String: Any]])
        let fromJSON = try #require(reports[1]["errors"] as? [[String: Any]])
        #expect(fromBytes.map { $0["offset"] as? Int } == [62])
        #expect(fromJSON.count == 1 && fromJSON[0]["offset"] == nil && fromJSON[0]["element"] as? String == "Orders")
        #expect(fromJSON.first?["check"] as? String == "logged-fields")
        #expect(reports[1]["format"] as? String == "json")

        let broken = dir.appendingPathComponent("broken.json").path
        try Self.write(Array(#"{"format": "briefcase-json", "version": }"#.utf8), broken)
        let syntax = try CLITests.run(["validate", broken])
        #expect(syntax.status == 1)
        #expect(syntax.stderr.contains("\(broken): offset 40: error: "))

        let notBriefcase = dir.appendingPathComponent("other.json").path
        try Self.write(Array(#"{"a": 1}"#.utf8), notBriefcase)
        let structure = try CLITests.run(["validate", notBriefcase])
        #expect(structure.status == 1)
        #expect(structure.stderr.contains(#"\#(notBriefcase): offset 0: error: $: missing key "format""#))
    }

    @Test func folderBriefcases() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let folder = dir.appendingPathComponent("x.briefcase").path
        #expect(try CLITests.run(["convert", Self.fixture("empty-delta.daBriefcase"), folder]).status == 0)
        let clean = try CLITests.run(["validate", folder])
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(clean.text == "\(folder): valid folder, 0 errors, 0 warnings\n")

        // Damage Archive.daBriefcase: its delta's first change type becomes 9.
        let file = folder + "/Archive.daBriefcase"
        var bytes = [UInt8](try #require(FileManager.default.contents(atPath: file)))
        let change = try #require(bytes.firstRange(of: [0x4C, 0x04, 0x00, 0x00])).lowerBound - 4 // recID 1100, after the type
        try #require(bytes[change] == 0)
        bytes[change] = 9
        try Self.write(bytes, file)
        let result = try CLITests.run(["validate", folder, "--json"])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("\(file): element 'Archive': offset \(change): error: change 0 has change type 9"))
        let error = try #require((try Self.reports(result).first?["errors"] as? [[String: Any]])?.first)
        #expect(error["file"] as? String == "Archive.daBriefcase")
        #expect(error["offset"] as? Int == change)
    }

    @Test func unrecognisedContentIsInvalid() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("x.dat").path
        try Self.write(Array("hello".utf8), path)
        let result = try CLITests.run(["validate", path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(path): offset 0: error: not a briefcase"))
        // Named with --from, it is checked as that format.
        let named = try CLITests.run(["validate", path, "--from", "bin2"])
        #expect(named.status == 1)
        #expect(named.stderr.contains("Bin2 signature"))
    }

    @Test func standardInput() throws {
        let result = try CLITests.run(["validate", "-", "--from", "bin2"], stdin: try Self.bytes("orders.bin2"))
        #expect(result.status == 0)
        #expect(result.text == "-: valid bin2, 0 errors, 0 warnings\n")
    }

    @Test(.enabled(if: SamplePaths.samplesPresent, "../shared/briefcase-samples is absent"))
    func realSamplesAreValid() throws {
        let paths = SamplePaths.sampleNames.map { SamplePaths.samples.appendingPathComponent($0).path }
        let result = try CLITests.run(["validate", "--json"] + paths)
        #expect(result.status == 0)
        #expect(result.stderr.contains("gbk"), "says which code page it chose")
        for report in try Self.reports(result) {
            #expect(report["valid"] as? Bool == true)
            #expect((report["warnings"] as? [Any])?.isEmpty == true)
        }
    }
}
