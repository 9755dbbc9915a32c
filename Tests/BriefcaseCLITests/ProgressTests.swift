import BriefcaseTestSupport
import Foundation
import Testing

/// The progress bar: only for inputs over 8 MB, only on a terminal, never with --quiet.
struct ProgressTests {
    static var hasScript: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/script") }

    /// Runs the command with a pseudo-terminal as standard error (util-linux `script`).
    static func runOnTerminal(_ arguments: [String]) throws -> String {
        let command = ([CLITests.executable.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", command, "/dev/null"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test(.enabled(if: hasScript, "needs /usr/bin/script for a pseudo-terminal"))
    func shownOnATerminalForLargeInputsOnly() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let big = dir.appendingPathComponent("big.daBriefcase").path
        try Data(try CrashSafetyTests.bigBriefcase(rows: 400_000, tag: "progress")).write(to: URL(fileURLWithPath: big))
        #expect((try FileManager.default.attributesOfItem(atPath: big)[.size] as? Int ?? 0) > 8 * 1024 * 1024)

        let shown = try Self.runOnTerminal(["convert", big, dir.appendingPathComponent("a.json").path])
        #expect(shown.contains("MB/s"))
        let quiet = try Self.runOnTerminal(["convert", big, dir.appendingPathComponent("b.json").path, "--quiet"])
        #expect(!quiet.contains("MB/s"))
        let small = try Self.runOnTerminal(["convert", SamplePaths.fixtures.appendingPathComponent("all-types.daBriefcase").path,
                                            dir.appendingPathComponent("c.json").path])
        #expect(!small.contains("MB/s"))
        // Not a terminal: nothing on standard error at all.
        let piped = try CLITests.run(["convert", big, dir.appendingPathComponent("d.json").path])
        #expect(piped.status == 0)
        #expect(piped.stderr.isEmpty)
    }
}
