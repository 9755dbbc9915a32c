@testable import BriefcaseJSON
import BriefcaseKit
import BriefcaseTestSupport
import Foundation
import Testing

/// Damaged input through the streaming converters (what `briefcase convert` runs): every mutant of
/// every fixture either fails with a `BriefcaseError` in both the streaming and the whole-document
/// path, or converts to the same JSON in both; and every mutant of every fixture's JSON document
/// either fails in both JSON readers or gives the same binary. None traps, hangs or takes a second.
@Suite struct StreamingMutationTests {
    /// A seeded mutant of `bytes`: bit flips, a byte set to an edge value, a truncation, an
    /// inserted or deleted range, or an Int32 overwritten with an absurd count or position.
    /// With `json`, half the mutants keep the JSON well-formed instead: a digit changed, or a
    /// value swapped for `null`, `0`, `""`, `1e400` or `-1`.
    static func mutant(of bytes: [UInt8], _ random: inout SplitMix64, json: Bool = false) -> [UInt8] {
        var out = bytes
        guard !out.isEmpty else { return [0] }
        let at = Int(random.next() % UInt64(out.count))
        if json, random.next() % 2 == 0 {
            let digits = out.indices.filter { (0x30 ... 0x39).contains(out[$0]) }
            if random.next() % 2 == 0, !digits.isEmpty {
                out[digits[Int(random.next() % UInt64(digits.count))]] = 0x30 + UInt8(random.next() % 10)
            } else {
                // A scalar after ": " or ", " or "[": replaced up to the next delimiter.
                let starts = out.indices.dropLast().filter { out[$0] == UInt8(ascii: "[") || (out[$0] == UInt8(ascii: " ") && [UInt8(ascii: ":"), UInt8(ascii: ",")].contains(out[$0 - 1 < 0 ? 0 : $0 - 1])) }
                guard !starts.isEmpty else { return out }
                let start = starts[Int(random.next() % UInt64(starts.count))] + 1
                guard start < out.count, out[start] != UInt8(ascii: "{"), out[start] != UInt8(ascii: "[") else { return out }
                var end = start
                var inString = false
                while end < out.count {
                    let byte = out[end]
                    if byte == UInt8(ascii: "\""), end == start || inString { inString.toggle(); if !inString { end += 1; break } }
                    else if !inString, [UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}")].contains(byte) { break }
                    end += 1
                }
                let replacements = ["null", "0", "\"\"", "1e400", "-1", "true"]
                out.replaceSubrange(start ..< end, with: Array(replacements[Int(random.next() % UInt64(replacements.count))].utf8))
            }
            return out
        }
        switch random.next() % 6 {
        case 0:
            for _ in 0 ..< 1 + Int(random.next() % 3) {
                let i = Int(random.next() % UInt64(out.count))
                out[i] ^= UInt8(1) << (random.next() % 8)
            }
        case 1: out[at] = [0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF][Int(random.next() % 6)]
        case 2: out.removeLast(out.count - at)
        case 3: out.insert(contentsOf: (0 ..< 1 + Int(random.next() % 16)).map { _ in UInt8(truncatingIfNeeded: random.next()) }, at: at)
        case 4: out.removeSubrange(at ..< min(out.count, at + 1 + Int(random.next() % 32)))
        default:
            guard out.count >= 4 else { return out }
            let i = Int(random.next() % UInt64(out.count - 3))
            let absurd: [Int32] = [.min, -2, -1, 1 << 30, 1 << 24, 1 << 16, Int32(out.count), Int32(out.count - i), .max]
            let value = absurd[Int(random.next() % UInt64(absurd.count))]
            withUnsafeBytes(of: value.littleEndian) { out.replaceSubrange(i ..< i + 4, with: $0) }
        }
        return out
    }

    static let mutantsPerFixture = 150

    static var binaryFixtures: [(name: String, container: ContainerFormat)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: SamplePaths.fixtures.path)) ?? []
        return names.sorted().compactMap { name in
            name.hasSuffix(".daBriefcase") ? (name, .dabriefcase) : name.hasSuffix(".bin2") ? (name, .bin2) : nil
        }
    }

    @Test func binaryMutantsConvertAlikeOrFailAlike() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("streaming-mutants-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var converted = 0, refused = 0
        for (name, container) in Self.binaryFixtures {
            let original = try FileIO.read(SamplePaths.fixtures.appendingPathComponent(name).path)
            var random = SplitMix64(state: name.utf8.reduce(7919) { $0 &* 31 &+ UInt64($1) }) // seeded by the name: same mutants every run
            for m in 0 ..< Self.mutantsPerFixture {
                let bytes = Self.mutant(of: original, &random)
                let path = dir.appendingPathComponent("m.\(container == .bin2 ? "bin2" : "daBriefcase")").path
                try FileIO.writeAtomically(bytes, to: path)
                let start = DispatchTime.now().uptimeNanoseconds
                let whole = try? StreamingConversionTests.wholeJSON(bytes, container).json
                let streamed: [UInt8]?
                do {
                    streamed = try StreamingConversionTests.streamedJSON(path, container).json
                } catch is BriefcaseError {
                    streamed = nil
                }
                #expect(DispatchTime.now().uptimeNanoseconds - start < 1_000_000_000, "\(name) mutant \(m) took over a second")
                #expect(whole == streamed, "\(name) mutant \(m): whole \(whole?.count ?? -1) bytes, streamed \(streamed?.count ?? -1) bytes")
                if whole == nil { refused += 1 } else { converted += 1 }
            }
        }
        // The mutations reach both outcomes (a mutation suite that only ever fails tests little).
        #expect(converted > 100 && refused > 100, "converted \(converted), refused \(refused)")
    }

    @Test func jsonMutantsReadAlikeOrFailAlike() throws {
        var converted = 0, refused = 0
        for (name, container) in Self.binaryFixtures {
            let bytes = try FileIO.read(SamplePaths.fixtures.appendingPathComponent(name).path)
            guard let json = try? StreamingConversionTests.wholeJSON(bytes, container).json else { continue } // damaged fixtures
            var random = SplitMix64(state: name.utf8.reduce(104_729) { $0 &* 31 &+ UInt64($1) })
            for m in 0 ..< Self.mutantsPerFixture {
                let document = Self.mutant(of: json, &random, json: true)
                let tree = try? JSONDocumentDecoder().decode(document).encode()
                var output = MemoryStreamOutput()
                let streamed: [UInt8]? = document.withUnsafeBytes { buffer in
                    do {
                        try JSONStreamConversion.convert(buffer, to: &output)
                        return output.bytes
                    } catch {
                        return nil
                    }
                }
                #expect(tree == streamed, "\(name).json mutant \(m): tree \(tree?.count ?? -1) bytes, streamed \(streamed?.count ?? -1) bytes")
                if tree == nil { refused += 1 } else { converted += 1 }
            }
        }
        #expect(converted > 100 && refused > 100, "converted \(converted), refused \(refused)")
    }
}
