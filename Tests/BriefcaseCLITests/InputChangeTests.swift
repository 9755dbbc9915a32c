import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// An input changed by another process while `convert` reads it (Spec/robustness.md §8.13): one
/// line naming it, exit 2, no output and no temporary left — never a SIGBUS crash.
struct InputChangeTests {
    typealias Running = OutputRaceTests.Running

    static let changedLine = "briefcase: in.json: the input changed while it was read; nothing was written"

    /// Checks a conversion that was made to fail: exit 1 or 2, one line (the decoding of what is
    /// left, or the line about the change), no crash report, nothing left but the input.
    static func expectCleanFailure(_ result: (status: Int32, stderr: String), output: String, in dir: URL,
                                   sourceLocation: SourceLocation = #_sourceLocation) throws {
        let lines = result.stderr.split(separator: "\n").filter { !$0.hasPrefix("briefcase: warning:") }
        #expect(result.status == 1 || result.status == 2, "\(output): \(result)", sourceLocation: sourceLocation)
        #expect(lines.count == 1, "\(output): \(result.stderr)", sourceLocation: sourceLocation)
        for crash in ["Crash", "Fatal", "fault", "Backtrace", "Bus error", "SIGBUS"] {
            #expect(!result.stderr.contains(crash), "\(output): \(result.stderr)", sourceLocation: sourceLocation)
        }
        let left = try OutputRaceTests.names(in: dir).filter { $0 != "in.json" && $0 != "big.json" }
        #expect(left.isEmpty, "\(output): left \(left)", sourceLocation: sourceLocation)
    }

    /// The input cut to a third while each output format is being written. The reader either
    /// meets the cut (the mapping's SIGBUS, or the end of the document: exit 1), or the change is
    /// seen before the output is committed.
    @Test(arguments: OutputRaceTests.outputs)
    func anInputTruncatedWhileConvertingEndsWithOneLineAndNoTemporary(output: String) throws {
        let dir = try CLITests.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let big = dir.appendingPathComponent("big.json"), input = dir.appendingPathComponent("in.json")
        try InterruptTests.writeLargeDocument(to: big, tables: 150)
        let limits = output.hasPrefix("out.snapshot") ? ["--ignore-limits"] : []
        for delay: UInt32 in [0, 200_000] {
            try? FileManager.default.removeItem(at: input)
            try FileManager.default.copyItem(at: big, to: input)
            let running = try Running(["convert", "in.json", output] + limits, in: dir)
            #expect(running.waitFor(".\(output).tmp-") != nil, "\(output): no temporary output appeared")
            usleep(delay)
            #expect(truncate(input.path, off_t(FileManager.default.contents(atPath: big.path)!.count / 3)) == 0)
            try Self.expectCleanFailure(running.finish(), output: output, in: dir)
        }
    }

    /// The input rewritten in place — same size, same bytes even — while it is read: refused
    /// before the output is committed, for a mapped JSON input, a binary one read by offset and
    /// a table file of a folder.
    @Test func anInputRewrittenInPlaceIsRefusedBeforeTheOutputIsCommitted() throws {
        let dir = try CLITests.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.json")
        try InterruptTests.writeLargeDocument(to: input, tables: 150)
        #expect(try CLITests.run(["convert", "in.json", "in.daBriefcase"], directory: dir).status == 0)
        #expect(try CLITests.run(["convert", "in.json", "in.briefcase"], directory: dir).status == 0)
        for (source, written, output) in [("in.json", "in.json", "out.daBriefcase"), ("in.json", "in.json", "out.briefcase"),
                                          ("in.daBriefcase", "in.daBriefcase", "out.json"),
                                          ("in.briefcase", "in.briefcase/T149.daBriefcase", "out.json")] {
            let running = try Running(["convert", source, output], in: dir)
            #expect(running.waitFor(".\(output).tmp-") != nil, "\(output): no temporary output appeared")
            // The first byte written again as it is: the content is the same, the file was written.
            let fd = open(dir.appendingPathComponent(written).path, O_WRONLY)
            var byte: UInt8 = source.hasSuffix(".json") ? UInt8(ascii: "{") : UInt8(ascii: "D")
            #expect(pwrite(fd, &byte, 1, 0) == 1)
            close(fd)
            let (status, stderr) = running.finish()
            #expect(status == 2 && stderr == "briefcase: \(source): the input changed while it was read; nothing was written\n",
                    "\(output): \(status) \(stderr)")
            let left = try OutputRaceTests.names(in: dir).filter { !$0.hasPrefix("in.") }
            #expect(left.isEmpty, "\(output): left \(left)")
        }
    }
}
