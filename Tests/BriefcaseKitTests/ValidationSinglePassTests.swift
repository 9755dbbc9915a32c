import Foundation
import Testing
import BriefcaseTestSupport
@testable import BriefcaseKit

/// `validate` checks values in the decoder's one pass (`CheckedReading`); before, it decoded
/// every element into the model and walked the model at the end. The model walk is kept
/// (`checkingWhileReading: false`) as the oracle: both must give the same report — the same
/// findings, in the same order, the same code page and reason — on every fixture, the samples,
/// the fuzz and regression inputs that are binary briefcases, thousands of mutants, and random
/// briefcases full of the values the checks report (unpaired surrogates, odd UTF-16 lengths,
/// NaN dates, bad decimals and GUIDs, 8-bit text that is not UTF-8), with and without
/// `--strict`, one job and two.
@Suite struct ValidationSinglePassTests {
    /// Both reports of `bytes`, compared; returns the number of findings.
    @discardableResult
    static func compare(_ bytes: [UInt8], container: ContainerFormat, _ what: String,
                        sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        var total = 0
        for options in [ValidationOptions(), ValidationOptions(strict: true, jobs: 2), ValidationOptions(codePage: .windows1252)] {
            let old = Validator.validate(bytes: bytes, container: container, path: "x", options: options, checkingWhileReading: false)
            let new = Validator.validate(bytes: bytes, container: container, path: "x", options: options, checkingWhileReading: true)
            #expect(new.errors == old.errors, "\(what): errors", sourceLocation: sourceLocation)
            #expect(new.warnings == old.warnings, "\(what): warnings", sourceLocation: sourceLocation)
            #expect(new.encoding == old.encoding && new.encodingReason == old.encodingReason, "\(what): code page",
                    sourceLocation: sourceLocation)
            total += old.errors.count + old.warnings.count
        }
        return total
    }

    static func container(of name: String) -> ContainerFormat { name.hasSuffix(".bin2") ? .bin2 : .dabriefcase }

    @Test(arguments: TestPaths.allFixtureNames)
    func fixtures(name: String) throws {
        Self.compare(try TestPaths.fixture(name), container: Self.container(of: name), name)
    }

    @Test(.enabled(if: TestPaths.samplesPresent, "../shared/briefcase-samples is absent"))
    func samples() throws {
        for name in TestPaths.sampleNames {
            Self.compare(try #require(TestPaths.sample(name)), container: .dabriefcase, name)
        }
    }

    /// The inputs of the fuzz corpus that are binary briefcases, as the fuzz targets read them
    /// (`stdin`: after the selector byte; `gzip`: decompressed). (The regressions and the rest
    /// of the corpus are JSON, plist and snapshot documents, validated from their model as before.)
    @Test func fuzzCorpus() throws {
        var compared = 0
        let root = TestPaths.repository.appendingPathComponent("Fuzz/corpus")
        let files = try #require(FileManager.default.enumerator(atPath: root.path))
        for case let file as String in files {
            guard let data = FileManager.default.contents(atPath: root.appendingPathComponent(file).path), !data.isEmpty else { continue }
            var candidates = [[UInt8](data), [UInt8](data.dropFirst())]
            if let inflated = try? Gzip.decompress([UInt8](data)) { candidates.append(inflated) }
            for bytes in candidates {
                let magic = String(decoding: bytes.prefix(6), as: UTF8.self)
                guard magic == "DABRC6" || magic == "DABIN2" else { continue }
                Self.compare(bytes, container: magic == "DABIN2" ? .bin2 : .dabriefcase, file)
                compared += 1
            }
        }
        #expect(compared >= 2)
    }

    /// Seeded mutants of every fixture (the mutation suite's kinds, and the shared mutator).
    @Test(arguments: TestPaths.allFixtureNames)
    func mutants(name: String) throws {
        let bytes = try TestPaths.fixture(name)
        var findings = 0
        for kind in MutationTests.Kind.allCases {
            var rng = SplitMix64(state: fnv1a("single pass/" + name + "/" + kind.rawValue))
            for i in 0 ..< 60 {
                let (mutant, what) = MutationTests.mutate(bytes, kind, &rng)
                findings += Self.compare(mutant, container: Self.container(of: name), "\(name) \(kind) \(i): \(what)")
            }
        }
        var rng = SplitMix64(state: fnv1a("single pass/shared/" + name))
        for i in 0 ..< 200 {
            findings += Self.compare(Mutation.mutant(of: bytes, &rng), container: Self.container(of: name), "\(name) mutant \(i)")
        }
        #expect(findings > 0)
    }

    /// Random briefcases with every kind of value the checks report, whole and mutated, and
    /// one table per briefcase grown past the finding cap (so that which findings are kept, and
    /// the "more … not shown" lines, are compared too).
    @Test func randomBriefcases() throws {
        var random = SplitMix(seed: 1313)
        var findings = 0, notUTF8 = 0, capped = 0
        for i in 0 ..< 150 {
            var document = RandomBriefcase.make(&random)
            if i % 3 == 0, case .table(var table)? = document.file.stream.elements.first {
                let rows = table.rows
                if !rows.isEmpty {
                    while table.rows.count < 70 { table.rows += rows }
                    document.file.stream.elements[0] = .table(table)
                }
            }
            guard let bytes = try? document.encode() else { continue }
            findings += Self.compare(bytes, container: document.container, "random \(i)")
            let report = Validator.validate(bytes: bytes, container: document.container, path: "x")
            if report.encoding != CodePage.utf8.name { notUTF8 += 1 }
            if (report.errors + report.warnings).contains(where: { $0.message.contains("are not shown") }) { capped += 1 }
            var rng = SplitMix64(state: UInt64(i))
            for j in 0 ..< 8 {
                Self.compare(Mutation.mutant(of: bytes, &rng), container: document.container, "random \(i) mutant \(j)")
            }
        }
        // The interesting cases came up: findings, a code page detected from the values, caps.
        #expect(findings > 100)
        #expect(notUTF8 > 0)
        #expect(capped > 0)
    }

    /// The quick tests on values agree with the checks' own: a GUID passes `isGUIDText` exactly
    /// when `guidProblem` finds nothing; UTF-16 text that `mayHaveWideTextProblem` clears has no
    /// `wideTextProblem`. On every byte in every position of a GUID, and random text.
    @Test func quickValueTestsAgreeWithTheChecks() {
        let good = Array("0A1b2C3d-4E5f-6789-aBcD-eF0123456789".utf8)
        var cases: [[UInt8]] = [good, Array("00000000-0000-0000-0000-000000000000".utf8)]
        for position in 0 ..< 36 {
            for byte in [0x00, 0x10, 0x19, 0x2D, 0x2F, 0x30, 0x39, 0x3A, 0x40, 0x41, 0x46, 0x47, 0x60, 0x61, 0x66, 0x67, 0x7F, 0x80, 0xB0, 0xC6, 0xFF] as [UInt8] {
                var guid = good
                guid[position] = byte
                cases.append(guid)
            }
        }
        for guid in cases {
            let quick = guid.withUnsafeBufferPointer { ValidationRun.isGUIDText($0.baseAddress!) }
            #expect(quick == (ValidationRun.guidProblem(ByteString(guid)) == nil), "\(guid)")
        }
        var random = SplitMix64(state: 7)
        for _ in 0 ..< 20_000 {
            let count = Int(random.next() % 24)
            let text: [UInt8] = (0 ..< count).map { i in
                // Mostly ASCII units, now and then a surrogate's high byte.
                i % 2 == 1 && random.next() % 6 == 0 ? UInt8(0xD8 + random.next() % 8) : UInt8(truncatingIfNeeded: random.next() % 0x7F)
            }
            let maybe = text.withUnsafeBufferPointer { ValidationRun.mayHaveWideTextProblem($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, count: count) }
            if !maybe { #expect(ValidationRun.wideTextProblem(ByteString(text)) == nil, "\(text)") }
            let surrogate = stride(from: 1, to: count, by: 2).contains { text[$0] & 0xF8 == 0xD8 }
            #expect(maybe == (count % 2 != 0 || surrogate), "\(text)")
        }
    }
}
