import Testing
import BriefcaseTestSupport
@testable import BriefcaseKit

/// Seeded random mutations of every fixture: bit flips, bytes set to edge values, inserted
/// random and duplicated ranges, deleted ranges, and absurd values in fields that look like
/// counts, lengths or positions. (`DamageTests` covers every truncation and a 4-byte overwrite
/// at every offset; this suite does not repeat those.)
///
/// Every mutant must either be rejected with a `BriefcaseError` or decode to a model that
/// re-encodes and decodes again to the same model — and, when the mutant is laid out the way
/// the encoder lays files out and decodes without warnings, re-encodes to the mutant's bytes.
/// None may trap (that would end the test process) or take long. The mutants are the same on
/// every run (`SplitMix64` seeded from the fixture name and the mutation kind).
@Suite struct MutationTests {
    enum Kind: String, CaseIterable, Sendable {
        case bitFlips, edgeBytes, insertedRandom, insertedCopy, deletedRange, absurdCount
    }

    /// Mutants per fixture and kind: keeps the whole suite within a few seconds in debug builds.
    static let mutantsPerKind = 400

    @Test(arguments: TestPaths.allFixtureNames, Kind.allCases)
    func mutantsAreRejectedOrRoundTrip(name: String, kind: Kind) throws {
        let bytes = try TestPaths.fixture(name)
        let bin2 = name.hasSuffix(".bin2")
        var rng = SplitMix64(state: fnv1a(name + "/" + kind.rawValue))
        var outcome = Outcome()
        let clock = ContinuousClock()
        for _ in 0 ..< Self.mutantsPerKind {
            let (mutant, what) = Self.mutate(bytes, kind, &rng)
            let start = clock.now
            Self.check(mutant, bin2: bin2, what: what, &outcome)
            outcome.slowest = max(outcome.slowest, clock.now - start)
        }
        #expect(outcome.problems.isEmpty, "\(name), \(kind): \(outcome.problems.prefix(5))")
        #expect(outcome.slowest < .seconds(1), "\(name), \(kind): slowest mutant took \(outcome.slowest)")
        // Changing payload bytes (strings, numbers) leaves a valid file: the round-trip property
        // is exercised, not only the rejections.
        if !name.hasPrefix("damaged-") && (kind == .bitFlips || kind == .edgeBytes) {
            #expect(outcome.decoded > 0, "\(name), \(kind): no mutant decoded")
        }
    }

    /// The mutation kinds are deterministic: the same seed gives the same mutants.
    @Test func mutationsAreDeterministic() throws {
        let bytes = try TestPaths.fixture("nulls.daBriefcase")
        for kind in Kind.allCases {
            var a = SplitMix64(state: 42), b = SplitMix64(state: 42)
            for _ in 0 ..< 20 {
                let (x, _) = Self.mutate(bytes, kind, &a)
                let (y, _) = Self.mutate(bytes, kind, &b)
                #expect(x == y)
                if kind == .insertedRandom || kind == .insertedCopy || kind == .deletedRange { #expect(x.count != bytes.count) }
            }
        }
    }

    // MARK: Checking one mutant

    struct Outcome {
        var decoded = 0
        var rejected = 0
        var problems: [String] = []
        var slowest: Duration = .zero
    }

    static func check(_ mutant: [UInt8], bin2: Bool, what: String, _ outcome: inout Outcome) {
        let decoded: (stream: Bin2Stream, file: BriefcaseFile?, warnings: [DecodingWarning])
        do {
            decoded = try decodeAny(mutant, bin2: bin2)
        } catch {
            // Rejected: the error says where.
            outcome.rejected += 1
            if error.offset == nil { outcome.problems.append("\(what): error without an offset: \(error)") }
            return
        }
        outcome.decoded += 1
        let encoded: [UInt8]
        do {
            encoded = try encodeAny(decoded)
        } catch {
            outcome.problems.append("\(what): decodes, but the model does not encode: \(error)")
            return
        }
        do {
            let again = try decodeAny(encoded, bin2: bin2)
            if again.stream != decoded.stream || again.file != decoded.file {
                outcome.problems.append("\(what): decode(encode(model)) differs from the model")
            }
        } catch {
            outcome.problems.append("\(what): the re-encoded model does not decode: \(error)")
            return
        }
        if decoded.warnings.isEmpty, isCanonicalLayout(mutant, bin2: bin2), encoded != mutant {
            outcome.problems.append("\(what): decodes without warnings but re-encodes to other bytes")
        }
    }

    /// Absolute positions and elements in index order: the layout `Bin2Encoder` writes.
    static func isCanonicalLayout(_ bytes: [UInt8], bin2: Bool) -> Bool {
        guard let streamStart = bin2 ? 0 : try? BriefcaseFileCodec.readHeader(bytes).dataOffset,
              let index = try? ElementIndex.read(bytes, streamStart: streamStart), index.positionBase == 0
        else { return false }
        let starts = index.entries.map(\.range.lowerBound)
        return starts == starts.sorted()
    }

    // MARK: Mutations

    static let edgeBytes: [UInt8] = [0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF]

    static func mutate(_ bytes: [UInt8], _ kind: Kind, _ rng: inout SplitMix64) -> ([UInt8], String) {
        var mutant = bytes
        guard !bytes.isEmpty else { return (mutant, "empty") }
        switch kind {
        case .bitFlips:
            var flipped: [String] = []
            for _ in 0 ..< Int.random(in: 1 ... 3, using: &rng) {
                let offset = Int.random(in: 0 ..< bytes.count, using: &rng)
                let bit = Int.random(in: 0 ..< 8, using: &rng)
                mutant[offset] ^= 1 << UInt8(bit)
                flipped.append("\(offset).\(bit)")
            }
            return (mutant, "bits flipped at \(flipped.joined(separator: ", "))")
        case .edgeBytes:
            let offset = Int.random(in: 0 ..< bytes.count, using: &rng)
            let value = edgeBytes.randomElement(using: &rng)!
            mutant[offset] = value
            return (mutant, "byte \(offset) = \(value)")
        case .insertedRandom:
            let offset = Int.random(in: 0 ... bytes.count, using: &rng)
            let count = Int.random(in: 1 ... 16, using: &rng)
            mutant.insert(contentsOf: (0 ..< count).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }, at: offset)
            return (mutant, "\(count) random bytes inserted at \(offset)")
        case .insertedCopy:
            let from = Int.random(in: 0 ..< bytes.count, using: &rng)
            let count = Int.random(in: 1 ... min(64, bytes.count - from), using: &rng)
            let offset = Int.random(in: 0 ... bytes.count, using: &rng)
            mutant.insert(contentsOf: bytes[from ..< from + count], at: offset)
            return (mutant, "bytes \(from)..<\(from + count) copied to \(offset)")
        case .deletedRange:
            let offset = Int.random(in: 0 ..< bytes.count, using: &rng)
            let count = Int.random(in: 1 ... min(32, bytes.count - offset), using: &rng)
            mutant.removeSubrange(offset ..< offset + count)
            return (mutant, "bytes \(offset)..<\(offset + count) deleted")
        case .absurdCount:
            // Int32 fields that hold a plausible count, length or position (0…file size).
            guard bytes.count >= 4 else { return (mutant, "too short") }
            let candidates = (0 ... bytes.count - 4).filter { (0 ... Int32(bytes.count)).contains(int32(bytes, at: $0)) }
            let offset = candidates.randomElement(using: &rng) ?? Int.random(in: 0 ... bytes.count - 4, using: &rng)
            let current = int32(bytes, at: offset)
            let values: [Int32] = [
                Int32.min, Int32.min + 1, -2, 1 << 30, 1 << 28, 1 << 24, 1 << 16, 0xFFFF,
                Int32(bytes.count), Int32(bytes.count - offset), Int32(bytes.count - offset - 3),
                current &+ 1, current &- 1, current &* 2, current &+ 8, current &* 1000,
            ]
            let value = values.randomElement(using: &rng)!
            withUnsafeBytes(of: value.littleEndian) { raw in
                for i in 0 ..< 4 { mutant[offset + i] = raw[i] }
            }
            return (mutant, "Int32 at \(offset) (was \(current)) = \(value)")
        }
    }
}

/// FNV-1a of the UTF-8 bytes: a stable seed from a name (`Hasher` is seeded per process).
func fnv1a(_ text: String) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in text.utf8 {
        hash ^= UInt64(byte)
        hash &*= 0x0100_0000_01B3
    }
    return hash
}
