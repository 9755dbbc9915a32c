import JSONCore
@testable import BriefcaseJSON
import BriefcaseKit
import BriefcaseTestSupport
import Foundation
import Testing

/// Damaged input through the converters `briefcase convert` runs, checked by properties rather
/// than by a second converter: every mutant of every binary fixture is refused with an error
/// naming the file and a byte offset in it (and the element, when the header and index are
/// sound), or converts to JSON that reads back as the model that was read and converts on to a
/// binary that reads as it too; every mutant of every fixture's expected JSON document is refused
/// with the JSON path and byte offset of the problem, or converts to a binary that reads as the
/// model that was read and written as JSON again converts to the same bytes. None traps, hangs or
/// takes a second.
@Suite struct StreamingMutationTests {
    static let mutantsPerFixture = 150

    static var binaryFixtures: [(name: String, container: ContainerFormat)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: SamplePaths.fixtures.path)) ?? []
        return names.sorted().compactMap { name in
            name.hasSuffix(".daBriefcase") ? (name, .dabriefcase) : name.hasSuffix(".bin2") ? (name, .bin2) : nil
        }
    }

    @Test func binaryMutantsAreRefusedNamingTheirPlaceOrRoundTrip() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("streaming-mutants-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var converted = 0, refused = 0, refusedInElements = 0
        for (name, container) in Self.binaryFixtures {
            let original = try FileIO.read(SamplePaths.fixtures.appendingPathComponent(name).path)
            var random = SplitMix64(state: name.utf8.reduce(7919) { $0 &* 31 &+ UInt64($1) }) // seeded by the name: same mutants every run
            for m in 0 ..< Self.mutantsPerFixture {
                let bytes = Mutation.mutant(of: original, &random)
                let path = dir.appendingPathComponent("m.\(container == .bin2 ? "bin2" : "daBriefcase")").path
                try FileIO.writeAtomically(bytes, to: path, replacing: true)  // (each mutant over the last)
                let what = "\(name) mutant \(m)"
                let start = DispatchTime.now().uptimeNanoseconds
                let elements: BriefcaseElements
                do {
                    elements = try BriefcaseElements.open(path, as: container)
                } catch {
                    // The header or the index: the file and a place in it.
                    #expect(error.file == path, "\(what): \(error)")
                    #expect(error.offset.map { (0 ... bytes.count).contains($0) } == true, "\(what): \(error)")
                    refused += 1
                    continue
                }
                do {
                    var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: .utf8)
                    let report = try elements.read(into: &encoder, encoding: nil, skipDamaged: false)
                    let sink = encoder.writer.sink
                    try Self.expectRoundTrip(sink.bytes, codePage: report.codePage, of: elements, what)
                    converted += 1
                } catch let error as BriefcaseError {
                    // An element: its name, and a place inside it.
                    #expect(error.file == path, "\(what): \(error)")
                    let stored = elements.elements.filter { $0.label == error.element }
                    #expect(!stored.isEmpty, "\(what): \(error) names no element of the file")
                    #expect(error.offset.map { offset in stored.contains { $0.range.lowerBound ... $0.range.upperBound ~= offset } } == true,
                            "\(what): \(error) is not inside the element it names")
                    refused += 1
                    refusedInElements += 1
                }
                #expect(DispatchTime.now().uptimeNanoseconds - start < 1_000_000_000, "\(what) took over a second")
            }
        }
        // The mutations reach every outcome (a mutation suite that only ever fails tests little).
        #expect(converted > 100 && refused > 100 && refusedInElements > 20, "converted \(converted), refused \(refused) (\(refusedInElements) in an element)")
    }

    /// The JSON written reads back as the model the binary reader reads, in the code page it
    /// names, and that model written as a binary reads as itself.
    static func expectRoundTrip(_ json: [UInt8], codePage: CodePage, of elements: BriefcaseElements, _ what: String) throws {
        var warnings: [DecodingWarning] = []
        let model = try elements.document(warnings: &warnings)
        let (back, named) = try JSONDocumentDecoder().decodeNamingCodePage(json)
        #expect(back == model, "\(what): the JSON does not read back as the model")
        #expect(named == codePage, "\(what)")
        let binary = try StreamReaderTests.convert(json)
        #expect(try BriefcaseDocument.decode(binary, as: model.container, warnings: &warnings) == model, "\(what): the binary written from the JSON")
    }

    @Test func jsonMutantsAreRefusedNamingTheirPlaceOrRoundTrip() throws {
        var converted = 0, refused = 0, paths = 0
        for name in ExpectedFiles.validFixtures {
            let json = try ExpectedFiles.json(of: name)
            var random = SplitMix64(state: name.utf8.reduce(104_729) { $0 &* 31 &+ UInt64($1) })
            for m in 0 ..< Self.mutantsPerFixture {
                let document = Mutation.mutant(of: json, &random, json: true)
                let what = "\(name).json mutant \(m)"
                let start = DispatchTime.now().uptimeNanoseconds
                do {
                    let binary = try StreamReaderTests.convert(document)
                    // What was read: written as a binary, it reads as itself; written as JSON again,
                    // in the code page it named, it converts to the same binary.
                    let (model, codePage) = try JSONDocumentDecoder().decodeNamingCodePage(document)
                    var warnings: [DecodingWarning] = []
                    #expect(try BriefcaseDocument.decode(binary, as: model.container, warnings: &warnings) == model, "\(what)")
                    var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: codePage)
                    try encoder.encode(model)
                    #expect(try StreamReaderTests.convert(encoder.writer.sink.bytes) == binary, "\(what): JSON → binary → JSON → binary")
                    converted += 1
                } catch let error as BriefcaseError {
                    // A value: its path and offset. JSON that is not well-formed around the elements is
                    // the parser's to report (Spec/json-format.md §8.1): its offset.
                    #expect(error.offset.map { (0 ... document.count).contains($0) } == true, "\(what): \(error)")
                    #expect(error.message.hasPrefix("$") || error.message.hasPrefix("not valid JSON: "), "\(what): \(error) names no JSON path")
                    if error.message.hasPrefix("$") { paths += 1 }
                    refused += 1
                }
                #expect(DispatchTime.now().uptimeNanoseconds - start < 1_000_000_000, "\(what) took over a second")
            }
        }
        #expect(converted > 100 && refused > 100 && paths > 50, "converted \(converted), refused \(refused) (\(paths) naming a path)")
    }
}
