import Foundation
import Testing
import BriefcaseTestSupport

/// Every input in `Fixtures/regressions/TARGET/` once crashed a parser (Spec/robustness.md). Each
/// is run through the CLI the way a user would meet it, and must end the way the fix decided: a
/// clean refusal (exit 1 and an error naming the file) or, where the input is valid after all, a
/// conversion that round-trips. Inputs added later without an entry below must still end in exit
/// 0 or 1 with no crash.
struct RegressionInputTests {
    static let root = SamplePaths.fixtures.appendingPathComponent("regressions")

    /// Decided outcomes: 0 = read and converted, 1 = refused.
    static let expectedStatus: [String: Int32] = [
        "json/crash-first-change-count-equal.json": 0,
        "snapshot/crash-rev-overflow.json": 1,
        "plist/crash-attlist-without-default.plist": 1,
        "plist/crash-binary-set-bridging.plist": 1,
        "plist/crash-invalid-utf8-name-fuzzed.plist": 1,
        "plist/crash-invalid-utf8-name.plist": 1,
        "plist/crash-notation-without-public-id.plist": 1,
        "plist/crash-pi-without-data-fuzzed.plist": 1,
        "plist/crash-pi-without-data.plist": 1,
        "plist/crash-unparsed-entity.plist": 1,
        "sqlite/crash-logged-type-differs.sqlite": 1,
        "sqlite/bin2-with-header-padding.sqlite": 1,
    ]

    static var inputs: [String] {
        let targets = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return targets.flatMap { target in
            ((try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(target).path)) ?? [])
                .filter { $0 != "README.md" }.map { "\(target)/\($0)" }
        }.sorted()
    }

    @Test func everyDecidedInputIsPresentAndDocumented() throws {
        #expect(Set(Self.expectedStatus.keys).isSubset(of: Set(Self.inputs)))
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        for input in Self.inputs {
            #expect(readme.contains("`\(input)`"), "Fixtures/regressions/README.md does not describe \(input)")
        }
    }

    @Test(arguments: inputs)
    func endsCleanly(input: String) throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = Self.root.appendingPathComponent(input).path
        let target = String(input.prefix { $0 != "/" })
        let result: CLITests.Result
        var output: String?
        switch target {
        case "plist":
            // A sound folder briefcase whose Properties.plist is the input.
            let folder = dir.appendingPathComponent("f.briefcase").path
            #expect(try CLITests.run(["convert", CLITests.fixtures.appendingPathComponent("nulls.daBriefcase").path, folder]).status == 0)
            try FileManager.default.removeItem(atPath: folder + "/Properties.plist")
            try FileManager.default.copyItem(atPath: path, toPath: folder + "/Properties.plist")
            result = try CLITests.run(["validate", folder])
            if result.status != 0 { #expect(result.stderr.contains("Properties.plist"), "\(result.stderr)") }
        case "diff":
            // The two briefcases the harness cuts the input into, each compared with itself: no
            // difference (exit 0, nothing printed), or trouble (2) for a half that is not one.
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let rest = Array(bytes.dropFirst(2)), cut = (Int(bytes[0]) | Int(bytes[1]) << 8) % (rest.count + 1)
            var compared = 0
            for (i, half) in [Array(rest[..<cut]), Array(rest[cut...])].enumerated() {
                let file = dir.appendingPathComponent("half\(i).daBriefcase").path
                try Data(half).write(to: URL(fileURLWithPath: file))
                let same = try CLITests.run(["diff", file, file])
                #expect([0, 2].contains(same.status) && same.stdout.isEmpty, "\(input) half \(i): \(same.text)\(same.stderr)")
                if same.status == 0 { compared += 1 }
            }
            #expect(compared > 0, "\(input): neither half is a briefcase")
            return
        case "json", "snapshot", "sqlite":
            output = dir.appendingPathComponent("out.daBriefcase").path
            result = try CLITests.run(["convert", path, output!, "--from", target])
        default: // briefcase, bin2, gzip
            result = try CLITests.run(["validate", path])
        }
        #expect([0, 1].contains(result.status), "\(input): exit \(result.status) (a crash?) \(result.stderr)")
        if let expected = Self.expectedStatus[input] {
            #expect(result.status == expected, "\(input): \(result.stderr)")
        }
        if result.status == 1 {
            #expect(result.stderr.contains("error") || result.stderr.contains(input.split(separator: "/").last!), "\(result.stderr)")
            if let output { #expect(!FileManager.default.fileExists(atPath: output), "a refused input left an output") }
        }
        // Read after all: converting the result back and forth is stable, byte for byte.
        if result.status == 0, let output, target == "json" {
            let json = dir.appendingPathComponent("again.json").path, again = dir.appendingPathComponent("again.daBriefcase").path
            #expect(try CLITests.run(["convert", output, json]).status == 0)
            #expect(try CLITests.run(["convert", json, again]).status == 0)
            #expect(FileManager.default.contents(atPath: again) == FileManager.default.contents(atPath: output))
        }
    }
}
