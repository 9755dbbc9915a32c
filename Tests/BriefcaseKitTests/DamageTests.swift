import Testing
@testable import BriefcaseKit

/// Damaged input fails with a `BriefcaseError` that names an offset; it never traps, never
/// allocates for counts the input cannot hold, and never takes long.
@Suite struct DamageTests {
    static let values: [Int32] = [0x7FFF_FFF0, -1, 0x7FFF_FFFF]

    /// A fixture, or a real sample (the tests that take samples are skipped when they are absent).
    static func input(_ name: String) throws -> (bytes: [UInt8], bin2: Bool) {
        if TestPaths.sampleNames.contains(name) { return (try #require(TestPaths.sample(name), "\(name) is absent"), false) }
        return (try TestPaths.fixture(name), name.hasSuffix(".bin2"))
    }

    // MARK: Truncation

    /// Every prefix of every fixture (length 0 ..< count) fails with an offset inside the prefix.
    @Test(arguments: TestPaths.allFixtureNames)
    func everyTruncatedPrefixFails(name: String) throws {
        let (bytes, bin2) = try Self.input(name)
        var decodedPrefixes: [Int] = []
        var badOffsets: [(Int, Int?)] = []
        for length in 0 ..< bytes.count {
            do {
                _ = try decodeAny(Array(bytes[..<length]), bin2: bin2)
                decodedPrefixes.append(length)
            } catch {
                if error.offset == nil || error.offset! > length { badOffsets.append((length, error.offset)) }
            }
        }
        #expect(decodedPrefixes.isEmpty, "prefixes that decoded: \(decodedPrefixes.prefix(10))")
        #expect(badOffsets.isEmpty, "errors without an offset in the prefix: \(badOffsets.prefix(10))")
    }

    /// The same for every prefix of the real samples.
    @Test(.enabled(if: TestPaths.samplesPresent, "../shared/briefcase-samples is absent"), arguments: TestPaths.sampleNames)
    func everyTruncatedSamplePrefixFails(name: String) throws { try everyTruncatedPrefixFails(name: name) }

    /// The truncated-prefix test mostly fails at the index (it sits at the end), so also cut each
    /// element body short, with the index intact: every shorter body must fail inside the element.
    @Test(arguments: TestPaths.validFixtureNames)
    func everyShortenedElementBodyFails(name: String) throws {
        let (bytes, bin2) = try Self.input(name)
        let streamStart = bin2 ? 0 : try BriefcaseFileCodec.readHeader(bytes).dataOffset
        let index = try ElementIndex.read(bytes, streamStart: streamStart)
        var problems: [String] = []
        for entry in index.entries {
            let lower = entry.range.lowerBound
            for cut in 0 ..< entry.range.count {
                var shortened = entry
                shortened.range = lower ..< lower + cut
                var decoder = Bin2Decoder(bytes: bytes)
                do {
                    _ = try decoder.decodeElement(shortened, positionBase: index.positionBase)
                    // The one legal prefix: a full-layout empty delta cut after its first Int32 0
                    // is the count-only layout.
                    let countOnly = entry.kind == .delta && cut == 4 && int32(bytes, at: lower) == 0
                    if !countOnly { problems.append("\(entry.name) cut to \(cut) bytes decoded") }
                } catch {
                    if error.offset == nil || error.offset! > lower + cut || error.offset! < lower {
                        problems.append("\(entry.name) cut to \(cut): offset \(String(describing: error.offset)) outside \(lower)...\(lower + cut)")
                    }
                }
            }
        }
        #expect(problems.isEmpty, "\(problems.prefix(10))")
    }

    /// The same for each element body of the real samples.
    @Test(.enabled(if: TestPaths.samplesPresent, "../shared/briefcase-samples is absent"), arguments: TestPaths.sampleNames)
    func everyShortenedSampleElementBodyFails(name: String) throws { try everyShortenedElementBodyFails(name: name) }

    // MARK: Overwritten counts, lengths and positions

    /// Overwrites every 4-byte window of every fixture with 0x7FFFFFF0, -1 and 0x7FFFFFFF: each
    /// result decodes or throws (a trap would kill the test process), quickly. When a mutated file
    /// still decodes cleanly (no warnings, absolute positions), re-encoding reproduces it.
    @Test(arguments: TestPaths.allFixtureNames)
    func overwritingAnyFourBytesNeverTraps(name: String) throws {
        let (bytes, bin2) = try Self.input(name)
        let clock = ContinuousClock()
        var slowest: Duration = .zero
        var decoded = 0
        var problems: [String] = []
        for offset in 0 ... bytes.count - 4 {
            for value in Self.values {
                var mutated = bytes
                withUnsafeBytes(of: value.littleEndian) { raw in
                    for i in 0..<4 { mutated[offset + i] = raw[i] }
                }
                if mutated == bytes { continue }
                let start = clock.now
                do {
                    let result = try decodeAny(mutated, bin2: bin2)
                    decoded += 1
                    let streamStart = bin2 ? 0 : try BriefcaseFileCodec.readHeader(mutated).dataOffset
                    let absolute = try ElementIndex.read(mutated, streamStart: streamStart).positionBase == 0
                    if result.warnings.isEmpty && absolute {
                        let reencoded = try encodeAny(result)
                        if reencoded != mutated { problems.append("offset \(offset) = \(value): decoded but re-encodes differently") }
                    }
                } catch {
                    if error.offset == nil { problems.append("offset \(offset) = \(value): error without offset: \(error)") }
                }
                slowest = max(slowest, clock.now - start)
            }
        }
        #expect(problems.isEmpty, "\(problems.prefix(10))")
        #expect(slowest < .seconds(1), "slowest decode took \(slowest)")
        // Values inside strings and payloads decode fine: the re-encoding check is not vacuous.
        if !name.hasPrefix("damaged-") { #expect(decoded > 0) }
    }

    /// The same for the real samples, at every 4-byte-aligned offset and at the fields the index
    /// names (element positions), which keeps the test fast in debug builds.
    @Test(.enabled(if: TestPaths.samplesPresent, "../shared/briefcase-samples is absent"), arguments: TestPaths.sampleNames)
    func overwritingSampleWordsNeverTraps(name: String) throws {
        let bytes = try Self.input(name).bytes
        var problems: [String] = []
        for offset in stride(from: 0, through: bytes.count - 4, by: 4) {
            for value in Self.values {
                var mutated = bytes
                withUnsafeBytes(of: value.littleEndian) { raw in
                    for i in 0..<4 { mutated[offset + i] = raw[i] }
                }
                do {
                    _ = try BriefcaseFileCodec.decode(mutated)
                } catch {
                    if error.offset == nil { problems.append("offset \(offset) = \(value): error without offset") }
                }
            }
        }
        #expect(problems.isEmpty, "\(problems.prefix(10))")
    }

    // MARK: The damaged fixtures, with offsets computed by hand

    /// Layout of the valid base (see `damagedBase` in Sources/FixtureMaker/main.swift):
    /// 24 index position | 28 table "T" | 33 row count | 60 type of "Name" | 65 row 0 | 70 row 0 Name
    /// | 78 row 1 | 83 row 1 Name length | 87 "cd" | 91 index | 108 EOF.
    static let damagedExpectations: [(String, BriefcaseError.Kind, Int, String?)] = [
        ("damaged-truncated-file.daBriefcase", .invalidData, 24, nil),     // index position 91 > 89 - 4
        ("damaged-truncated-row.daBriefcase", .invalidData, 83, "T"),      // Name length 4, 2 bytes left
        ("damaged-row-count.daBriefcase", .invalidData, 33, "T"),
        ("damaged-index-position.daBriefcase", .invalidData, 24, nil),
        ("damaged-type-200.daBriefcase", .unsupported, 70, "T"),
        ("damaged-type-0.daBriefcase", .unsupported, 70, "T"),
    ]

    @Test(arguments: damagedExpectations.indices)
    func damagedFixtureFailsWhereExpected(index: Int) throws {
        let (name, kind, offset, element) = Self.damagedExpectations[index]
        let bytes = try TestPaths.fixture(name)
        do {
            _ = try BriefcaseFileCodec.decode(bytes)
            Issue.record("\(name) decoded")
        } catch {
            #expect(error.kind == kind, "\(name): \(error)")
            #expect(error.offset == offset, "\(name): \(error)")
            #expect(error.element == element, "\(name): \(error)")
        }
    }

    @Test func damagedFixtureMessages() throws {
        func message(_ name: String) throws -> String {
            do { _ = try BriefcaseFileCodec.decode(try TestPaths.fixture(name)); return "" } catch let error as BriefcaseError { return error.message }
        }
        #expect(try message("damaged-type-200.daBriefcase").contains("200"))
        #expect(try message("damaged-type-0.daBriefcase").contains("datUnknown"))
        #expect(try message("damaged-row-count.daBriefcase").contains("2147483632"))
        #expect(try message("damaged-index-position.daBriefcase").contains("65536"))
    }
}
