import Foundation
import BriefcaseKit
import BriefcaseTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Runs the built executable through `/bin/sh -c` with resource limits (`ulimit` lines), so a
/// command that allocates by the size of the file, or keeps a file open per table, fails here.
enum LimitedRun {
    static func run(_ limits: String, _ arguments: [String]) throws -> CLITests.Result {
        // `timeout` so that a regression fails instead of hanging the suite.
        try CLITests.run(["-c", "\(limits); exec timeout 120 \"$0\" \"$@\"", CLITests.executable.path] + arguments,
                         program: URL(fileURLWithPath: "/bin/sh"))
    }
}

/// Issue 11 item 4 (Spec/robustness.md §8.4): a valid briefcase followed by 10 GiB of junk (a
/// sparse file) is read by offset: header, index and elements, never the whole file. Under a
/// 2 GB address-space limit neither a 10 GiB buffer nor a 10 GiB mapping fits, so a whole-file
/// read ends in a trap ("failed to allocate") or an error.
struct FileSizeAllocationTests {
    static let limit = "ulimit -v 2000000"
    static let junkSize: off_t = 10 << 30

    /// A copy of `fixture` with `junk` bytes and then a 10 GiB hole after its last byte.
    static func paddedCopy(of fixture: String, in dir: URL, junk: [UInt8] = Array("junk".utf8)) throws -> String {
        let original = try #require(FileManager.default.contents(atPath: CLITests.fixtures.appendingPathComponent(fixture).path))
        let path = dir.appendingPathComponent("padded-" + fixture).path
        try (original + Data(junk)).write(to: URL(fileURLWithPath: path))
        #expect(truncate(path, off_t(original.count + junk.count) + junkSize) == 0)
        return path
    }

    @Test func infoCatAndConvertReadAPaddedBriefcaseByOffset() throws {
        let dir = try CLITests.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let padded = try Self.paddedCopy(of: "all-types.daBriefcase", in: dir)
        // What the fixture's expected document (Fixtures/expected/) says, for each command.
        let info = try LimitedRun.run(Self.limit, ["info", padded, "--json"])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(try ExpectedOutputs.infoFacts(ofInfo: info.stdout) == ExpectedOutputs.infoFacts("all-types.daBriefcase"))
        #expect(!info.stderr.contains("Fatal error"))

        let cat = try LimitedRun.run(Self.limit, ["cat", padded, "--table", "AllTypes"])
        #expect(cat.status == 0, "\(cat.stderr)")
        #expect(try ExpectedOutputs.lines(cat.stdout) == ExpectedOutputs.catRows("all-types.daBriefcase", table: "AllTypes"))

        let json = dir.appendingPathComponent("out.json").path
        let convert = try LimitedRun.run(Self.limit, ["convert", padded, json])
        #expect(convert.status == 0, "\(convert.stderr)")
        #expect(convert.stderr.contains("after the element index"), "the junk is mentioned: \(convert.stderr)")
        #expect(try FileIO.read(json) == ExpectedFiles.json(of: "all-types.daBriefcase"))
    }

    @Test func validateWarnsAboutTrailingBytesWithoutReadingThem() throws {
        let dir = try CLITests.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let padded = try Self.paddedCopy(of: "all-types.daBriefcase", in: dir)
        let result = try LimitedRun.run(Self.limit, ["validate", padded])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.text.contains("valid dabriefcase, 0 errors, 1 warning"), "\(result.text)")
        // 4 bytes of junk and the hole: hand-computed from the fixture's size.
        let size = try #require(FileManager.default.contents(atPath: CLITests.fixtures.appendingPathComponent("all-types.daBriefcase").path)).count
        #expect(result.stderr.contains("offset \(size): warning: \(Self.junkSize + 4) bytes after the element index"), "\(result.stderr)")

        let bin2 = try Self.paddedCopy(of: "orders.bin2", in: dir)
        let stream = try LimitedRun.run(Self.limit, ["validate", bin2])
        #expect(stream.status == 0, "\(stream.stderr)")
        #expect(stream.text.contains("valid bin2, 0 errors, 1 warning"), "\(stream.text)")
        let info = try LimitedRun.run(Self.limit, ["info", bin2])
        #expect(info.status == 0, "\(info.stderr)")
    }
}

extension FileSizeAllocationTests {
    /// An index entry whose name length (2 GiB) fits only in the junk: every command ends with
    /// one line saying the entry cannot be read into memory (exit 2, as for any resource the
    /// machine lacks), never a trap, under the address-space limit; nothing is written.
    @Test func aHugeNameLengthBeforeTheJunkIsAnErrorNotATrap() throws {
        let dir = try CLITests.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var bytes = try #require(FileManager.default.contents(atPath: CLITests.fixtures.appendingPathComponent("all-types.daBriefcase").path).map { Array($0) })
        func int32(at offset: Int) -> Int { Int(Int32(bitPattern: UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24)) }
        // DABRC600: data offset at 8; DABIN200: index position at data + 8; the index: count,
        // then the first entry's type and name length (daBriefcase.md, bin2.md §4).
        let indexPosition = int32(at: int32(at: 8) + 8), nameLength = indexPosition + 8
        #expect(int32(at: nameLength) == 8, "the fixture's only element is 'AllTypes'")
        bytes.replaceSubrange(nameLength ..< nameLength + 4, with: [0xF0, 0xFF, 0xFF, 0x7F])
        let path = dir.appendingPathComponent("huge-name.daBriefcase").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(truncate(path, off_t(bytes.count) + Self.junkSize) == 0)
        for arguments in [["info", path], ["validate", path], ["cat", path, "--table", "AllTypes"],
                          ["convert", path, dir.appendingPathComponent("out.json").path]] {
            let result = try LimitedRun.run(Self.limit, arguments)
            #expect(result.status == 2, "\(arguments[0]): \(result.status) \(result.stderr)")
            // The index read whole from its start: the count, the entry's type and name length, its
            // 2 147 483 632-byte name (0x7FFFFFF0), its position and length: 20 bytes and the name.
            #expect(result.stderr == "briefcase: \(path): not enough memory to read the 2147483652 bytes at offset \(indexPosition)\n",
                    "\(arguments[0]): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.json").path))
    }
}
