import BriefcaseKit
import BriefcaseTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Killing `briefcase convert` (SIGKILL) at random moments leaves the destination holding either
/// the old briefcase or the new one, byte for byte — never a mix or a truncated file.
struct CrashSafetyTests {
    /// A briefcase of a few MB so that a conversion takes long enough to be interrupted.
    /// (A bare Bin2 stream holds no properties: `withProperties: false` for it.)
    static func bigBriefcase(rows: Int, tag: String, withProperties: Bool = true) throws -> [UInt8] {
        let fields = [FieldDescriptor(name: "ID", type: .integer), FieldDescriptor(name: "Text", type: .wideString, size: 200)]
        let table = Table(name: "Big", fields: fields, rows: (0..<rows).map { [.integer(Int64($0)), .wide("\(tag) row \($0)")] })
        return try BriefcaseFileCodec.encode(BriefcaseFile(properties: withProperties ? [BriefcaseProperty(name: "Tag", value: ByteString(utf8: tag))] : [],
                                                           stream: Bin2Stream(elements: [.table(table)])))
    }

    /// Runs `arguments`, kills it after `delay` seconds (if still running), waits for it.
    static func runAndKill(_ arguments: [String], after delay: Double) throws {
        let process = Process()
        process.executableURL = CLITests.executable
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        usleep(UInt32(delay * 1_000_000))
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Runs to completion; returns the exit status and how long it took in seconds.
    static func timedRun(_ arguments: [String]) throws -> (status: Int32, seconds: Double) {
        let start = DispatchTime.now().uptimeNanoseconds
        let status = try CLITests.run(arguments).status
        return (status, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }

    /// Output formats written as one file, and how many kills each gets: with the folder's 17,
    /// 102 kills in all.
    static let singleFileOutputs = ["daBriefcase", "bin2", "json", "json.gz", "snapshot.json"]
    static let killsPerFormat = 17

    @Test(arguments: singleFileOutputs)
    func singleFileIsOldOrNewAfterSIGKILL(ext: String) throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let oldSource = dir.appendingPathComponent("old.daBriefcase").path
        let newSource = dir.appendingPathComponent("new.daBriefcase").path
        try Data(try Self.bigBriefcase(rows: 20_000, tag: "old", withProperties: ext != "bin2")).write(to: URL(fileURLWithPath: oldSource))
        try Data(try Self.bigBriefcase(rows: 120_000, tag: "new", withProperties: ext != "bin2")).write(to: URL(fileURLWithPath: newSource))
        // Binary outputs are made from JSON, so the conversion does real work before and during
        // the write; text outputs from the binary file.
        var input = newSource
        if ext == "daBriefcase" || ext == "bin2" {
            input = dir.appendingPathComponent("new.json").path
            #expect(try CLITests.run(["convert", newSource, input]).status == 0)
        }
        let output = dir.appendingPathComponent("out." + ext).path
        let limits = ext == "snapshot.json" ? ["--ignore-limits"] : []
        #expect(try CLITests.run(["convert", oldSource, output] + limits).status == 0)
        let old = try #require(FileManager.default.contents(atPath: output))
        let (status, full) = try Self.timedRun(["convert", input, output, "--force"] + limits)
        #expect(status == 0)
        let new = try #require(FileManager.default.contents(atPath: output))
        #expect(new != old)

        var sawOld = 0, sawNew = 0
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<Self.killsPerFormat {
            try old.write(to: URL(fileURLWithPath: output))
            try Self.runAndKill(["convert", input, output, "--force"] + limits, after: Double.random(in: 0...(full * 1.1), using: &generator))
            let now = try #require(FileManager.default.contents(atPath: output))
            if now == old { sawOld += 1 } else if now == new { sawNew += 1 } else {
                Issue.record("\(ext): output is neither the old nor the new file (\(now.count) bytes)")
            }
        }
        #expect(sawOld + sawNew == Self.killsPerFormat)
    }

    @Test func folderIsOldOrNewAfterSIGKILL() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let oldSource = dir.appendingPathComponent("old.daBriefcase").path
        let newSource = dir.appendingPathComponent("new.daBriefcase").path
        try Data(try Self.bigBriefcase(rows: 2_000, tag: "old")).write(to: URL(fileURLWithPath: oldSource))
        try Data(try Self.bigBriefcase(rows: 200_000, tag: "new")).write(to: URL(fileURLWithPath: newSource))
        let output = dir.appendingPathComponent("out.briefcase").path
        let (status, full) = try Self.timedRun(["convert", newSource, output])
        #expect(status == 0)
        let newTable = try #require(FileManager.default.contents(atPath: output + "/Big.daBriefcase"))

        for _ in 0..<Self.killsPerFormat {
            #expect(try CLITests.run(["convert", oldSource, output, "--force"]).status == 0)
            let oldTable = try #require(FileManager.default.contents(atPath: output + "/Big.daBriefcase"))
            try Self.runAndKill(["convert", newSource, output, "--force"], after: Double.random(in: 0...(full * 1.1)))
            let briefcase = try Briefcase.openFolder(output)
            #expect(briefcase.tableNames == ["Big"])
            let table = FileManager.default.contents(atPath: output + "/Big.daBriefcase")
            let tag = briefcase.property("Tag")
            #expect((table == oldTable && tag == "old") || (table == newTable && tag == "new"), "a mix or a damaged folder")
        }
    }
}
