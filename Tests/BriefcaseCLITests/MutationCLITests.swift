import BriefcaseKit
import BriefcaseTestSupport
import Foundation
import Testing

/// The proof at the command line: damaged copies of every binary fixture through
/// `briefcase convert` (to JSON, then back). Each run ends with exit 0 or 1 — never a crash (a
/// signal), a usage or I/O status, or a hang; a refusal says why and leaves no output; what
/// converts is valid (`briefcase validate`) when the input is, and converts back.
/// (The library-level suites, MutationTests and StreamingMutationTests, run many more mutants.)
struct MutationCLITests {
    static let mutantsPerFixture = 6

    @Test(arguments: (try? FileManager.default.contentsOfDirectory(atPath: SamplePaths.fixtures.path))?
        .filter { $0.hasSuffix(".daBriefcase") || $0.hasSuffix(".bin2") }.sorted() ?? [])
    func damagedCopiesEndInExitZeroOrOne(name: String) throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = try FileIO.read(SamplePaths.fixtures.appendingPathComponent(name).path)
        var random = SplitMix64(state: name.utf8.reduce(7) { $0 &* 131 &+ UInt64($1) })
        let ext = name.hasSuffix(".bin2") ? "bin2" : "daBriefcase"
        var outcomes: [Int32] = []
        for m in 0 ..< Self.mutantsPerFixture {
            let input = dir.appendingPathComponent("m\(m).\(ext)").path
            let json = dir.appendingPathComponent("m\(m).json").path
            try FileIO.writeAtomically(Mutation.mutant(of: original, &random), to: input)
            let result = try CLITests.run(["convert", input, json])
            outcomes.append(result.status)
            #expect([0, 1].contains(result.status), "\(name) mutant \(m): exit \(result.status): \(result.stderr)")
            if result.status == 1 {
                #expect(result.stderr.contains("m\(m).\(ext)"), "the error names the input: \(result.stderr)")
                #expect(!FileManager.default.fileExists(atPath: json), "a refused conversion left an output")
            } else if result.status == 0 {
                // Valid when the input is: a briefcase that decodes but breaks a rule (two tables
                // whose names differ only in case, as unsafe-names has) keeps breaking it in JSON.
                let inputValid = try CLITests.run(["validate", input]).status
                #expect(try CLITests.run(["validate", json]).status == inputValid, "\(name) mutant \(m): validate differs between the input and its JSON")
                let back = dir.appendingPathComponent("m\(m).back.\(ext)").path
                #expect(try CLITests.run(["convert", json, back]).status == 0, "\(name) mutant \(m): the JSON does not convert back")
            }
        }
        #expect(outcomes.count == Self.mutantsPerFixture)
    }
}
