import BriefcaseKit
import Foundation
import Testing

/// Issue 11, item 3 (Spec/robustness.md §8.3): standard input and gzip are streamed with bounded
/// memory. A gzip bomb is refused as soon as it crosses the 1000× limit, an endless stream ends at
/// its first impossible byte, and a long stream is kept on disk, not in memory: peak memory stays
/// under 256 MB and every run ends with exit 1 within seconds. Each run is measured by GNU time:
/// without it the tests are skipped, not passed unmeasured.
struct StreamedInputTests {
    static var hasTime: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/time") }

    /// The bound of the issue.
    static let peakLimitKB = 256 * 1024

    /// Bombs: 300 MiB of zeros (or of spaces for JSON) gzipped (~306 KB, ratio ~1028 > 1000),
    /// after a first gzip member holding a plausible start ("DABRC600", "DABIN200", "{"), so
    /// only the ratio limit can stop them (concatenated members are one stream).
    static let bombs: URL = {
        let directory = try! CLITests.makeTemporaryDirectory()
        func compressed(_ byte: UInt8) -> [UInt8] {
            let compressor = try! GzipCompressor(level: 6)
            var output: [UInt8] = []
            let chunk = [UInt8](repeating: byte, count: 1 << 20)
            for _ in 0..<300 { try! compressor.compress(chunk) { output.append(contentsOf: $0) } }
            try! compressor.finish { output.append(contentsOf: $0) }
            return output
        }
        let zeros = compressed(0), spaces = compressed(0x20)
        for (name, head, body) in [("bomb.daBriefcase.gz", "DABRC600", zeros), ("bomb.bin2.gz", "DABIN200", zeros),
                                   ("bomb.json.gz", "{", spaces), ("bomb.snapshot.json.gz", "{", spaces)] {
            let bytes = try! Gzip.compress(Array(head.utf8)) + body
            _ = FileManager.default.createFile(atPath: directory.appendingPathComponent(name).path, contents: Data(bytes))
        }
        return directory
    }()

    /// Runs `command` (shell syntax; `BRIEFCASE` stands for the executable) in `directory` under GNU
    /// time, with a timeout of 30 s and at most 4 GB of address space; returns the result and the
    /// peak resident memory in KB.
    static func measured(_ command: String, in directory: URL, sourceLocation: SourceLocation = #_sourceLocation) throws -> (CLITests.Result, Int) {
        let timed = "/usr/bin/time -f %M -o peak.txt timeout 30 \"$BRIEFCASE\""
        // (The virtual-memory cap keeps a failing run from taking the machine's memory.)
        let result = try CLITests.shell("ulimit -v 4000000; " + command.replacingOccurrences(of: "BRIEFCASE", with: timed), in: directory)
        let peak = (try? String(contentsOf: directory.appendingPathComponent("peak.txt"), encoding: .utf8))
            .flatMap { Int($0.split(separator: "\n").last { Int($0) != nil } ?? "") }
        try? FileManager.default.removeItem(at: directory.appendingPathComponent("peak.txt"))
        return (result, try #require(peak, "\(command): GNU time wrote no peak: \(result.stderr)", sourceLocation: sourceLocation))
    }

    /// Runs each command and checks: exit 1, every expected fragment on standard error, peak
    /// memory under the limit.
    static func expectRefused(_ cases: [(command: String, fragments: [String])], in directory: URL) throws {
        for (command, fragments) in cases {
            let (result, peak) = try measured(command, in: directory)
            #expect(result.status == 1, "\(command): exit \(result.status): \(result.stderr)")
            for fragment in fragments {
                #expect(result.stderr.contains(fragment), "\(command): \(result.stderr)")
            }
            #expect(peak < peakLimitKB, "\(command): peak \(peak) KB")
        }
    }

    @Test(.enabled(if: hasTime, "needs GNU time (/usr/bin/time) to read the peak memory")) func gzipBombsAreRefusedAsTheyInflateWithBoundedMemory() throws {
        let bomb = "decompression bomb"
        try Self.expectRefused([
            ("BRIEFCASE validate bomb.daBriefcase.gz", [bomb, "bomb.daBriefcase.gz"]),
            ("BRIEFCASE info bomb.bin2.gz", [bomb]),
            ("BRIEFCASE cat bomb.json.gz --table T", [bomb]),
            ("BRIEFCASE convert bomb.json.gz out.daBriefcase", [bomb]),
            ("BRIEFCASE convert bomb.snapshot.json.gz out.json", [bomb]),
            ("BRIEFCASE convert --from json - out.daBriefcase < bomb.json.gz", [bomb, "standard input"]),
            ("BRIEFCASE convert --from dabriefcase - out.json < bomb.daBriefcase.gz", [bomb, "standard input"]),
        ], in: Self.bombs)
        let left = try FileManager.default.contentsOfDirectory(atPath: Self.bombs.path).filter { !$0.hasPrefix("bomb.") }
        #expect(left.isEmpty, "no output written: \(left)")
    }

    @Test(.enabled(if: hasTime, "needs GNU time (/usr/bin/time) to read the peak memory")) func endlessStandardInputEndsAtTheFirstImpossibleByte() throws {
        let directory = try CLITests.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // /dev/zero: byte 0 is 0x00, which neither starts a JSON value nor a signature.
        let notJSON = ["offset 0", "unexpected byte 0x0, expected a JSON value"]
        try Self.expectRefused([
            ("BRIEFCASE validate - --from json < /dev/zero", notJSON),
            ("BRIEFCASE validate - --from snapshot < /dev/zero", ["offset 0"]),
            ("BRIEFCASE validate - --from dabriefcase < /dev/zero", ["offset 0", "DABRC"]),
            ("BRIEFCASE validate - --from bin2 < /dev/zero", ["offset 0"]),
            ("BRIEFCASE convert --from json - out.json < /dev/zero", notJSON),
            ("BRIEFCASE convert --from json - out.daBriefcase < /dev/zero", notJSON),
            ("BRIEFCASE convert --from dabriefcase - out.json < /dev/zero", ["offset 0", "DABRC"]),
            ("yes | BRIEFCASE convert --from json - out.json", ["offset 0", "unexpected 'y', expected a JSON value"]),
            // A JSON document that goes wrong after a valid start: `{"a": 1 2` then forever more.
            ("{ printf '{\"a\": 1 2'; cat /dev/zero; } | BRIEFCASE convert --from json - out.daBriefcase", ["offset 8"]),
        ], in: directory)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "no output written")
        // The spooled copy has no name from the start: nothing is left in TMPDIR, even after SIGKILL.
        let temporary = directory.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let killed = try CLITests.shell("{ printf '{'; cat /dev/zero | tr '\\0' ' '; } | TMPDIR=tmp timeout -s KILL 1 \"$BRIEFCASE\" validate - --from json",
                                        in: directory)
        #expect(killed.status != 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty, "nothing left in TMPDIR")
    }

    @Test(.enabled(if: hasTime, "needs GNU time (/usr/bin/time) to read the peak memory")) func longStandardInputIsKeptOnDiskNotInMemory() throws {
        let directory = try CLITests.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // 300 MB that start like a Bin2 stream: read to the end (nothing in them is impossible
        // before the elements are decoded), then refused by the decoder.
        try Self.expectRefused([
            ("{ printf 'DABIN200'; head -c 300000000 /dev/zero; } | BRIEFCASE convert --from bin2 - out.json", ["-"]),
        ], in: directory)
    }

    @Test(.enabled(if: hasTime, "needs GNU time (/usr/bin/time) to read the peak memory")) func aLongValidBriefcaseOnStandardInputIsReadByOffset() throws {
        let directory = try CLITests.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A valid briefcase followed by 300 MB of zeros: spooled to disk, then read by offset like a
        // file (the tail is a warning, §8.4), never read whole into memory.
        let fixture = CLITests.fixtures.appendingPathComponent("all-types.daBriefcase").path
        let padded = "{ cat '\(fixture)'; head -c 300000000 /dev/zero; } | "
        for (command, warns) in [("BRIEFCASE validate - --from dabriefcase", true), ("BRIEFCASE cat - --from dabriefcase --table AllTypes", true),
                                 ("BRIEFCASE convert --from dabriefcase - out.daBriefcase --force", true),
                                 ("BRIEFCASE info - --from dabriefcase", false)] {
            let (result, peak) = try Self.measured(padded + command, in: directory)
            #expect(result.status == 0, "\(command): exit \(result.status): \(result.stderr)")
            #expect(!warns || result.stderr.contains("300000000 bytes after the element index"), "\(command): \(result.stderr)")
            #expect(!result.stdout.isEmpty || command.contains("convert"), "\(command) printed nothing")
            #expect(peak < Self.peakLimitKB, "\(command): peak \(peak) KB")
        }
    }
}
