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
                let bytes = Mutation.mutant(of: original, &random)
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
                let document = Mutation.mutant(of: json, &random, json: true)
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
