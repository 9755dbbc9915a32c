import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT, SIGTERM and SIGHUP during `convert` remove the temporary file or folder being written
/// and end the process with exit status 128 + N (Spec/robustness.md §8.10).
struct InterruptTests {
    /// A JSON document of 300 tables × 2000 rows (about 27 MB): long enough to convert (a second
    /// or more in a debug build) that the signal lands while the output is being written. Tables
    /// are named `prefix` and their number.
    static func writeLargeDocument(to url: URL, tables: Int = 300, prefix: String = "T") throws {
        var text = #"{"format": "briefcase-json", "version": 1, "container": "dabriefcase", "encoding": "utf-8", "properties": [], "elements": ["#
        for table in 0..<tables {
            if table > 0 { text += "," }
            text += #"{"kind": "table", "name": "\#(prefix)\#(table)", "schema": null, "schemaEnd": "zero", "fields": [{"name": "ID", "type": "datInteger", "size": 0}, {"name": "Name", "type": "datWideString", "size": 100}], "rows": ["#
            text += (0..<2000).map { #"[\#($0), "row \#($0) of a table with some text"]"# }.joined(separator: ",")
            text += "]}"
        }
        text += "]}"
        try Data(text.utf8).write(to: url)
    }

    /// Starts `convert input output`, waits until its hidden temporary output appears, sends
    /// `signal`, and returns how the process ended.
    static func interrupt(input: URL, output: String, in directory: URL, with signal: Int32) throws -> (Process.TerminationReason, Int32) {
        let process = Process()
        process.executableURL = CLITests.executable
        process.arguments = ["convert", input.path, output]
        process.currentDirectoryURL = directory
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, process.isRunning {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            if names.contains(where: { $0.hasPrefix(".\(output).tmp-") }) { break }
            usleep(1000)
        }
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        return (process.terminationReason, process.terminationStatus)
    }

    @Test func signalsDuringConvertRemoveTheTemporaryOutputAndExit128PlusN() throws {
        let dir = try CLITests.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("big.json")
        try Self.writeLargeDocument(to: input)
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            for output in ["out.daBriefcase", "out.briefcase"] {
                let (reason, status) = try Self.interrupt(input: input, output: output, in: dir, with: signal)
                #expect(reason == .exit && status == 128 + signal, "signal \(signal), \(output): \(reason) \(status)")
                let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
                #expect(names == ["big.json"], "signal \(signal), \(output) left: \(names)")
            }
        }
    }
}
