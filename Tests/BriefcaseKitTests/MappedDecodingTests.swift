@testable import BriefcaseKit
import BriefcaseTestSupport
import Foundation
import Testing

/// Elements decoded from their file mapped into memory (`ByteSource` of a `MappedFile`, what the
/// conversion driver does with large elements) are the elements decoded from a copy read into an
/// array: the same model, the same warnings, the same errors. Only what outlives the decoding is
/// copied out of the mapping.
struct MappedDecodingTests {
    /// Every element of `path`, read both ways, compared.
    private func compareEveryElement(_ path: String, _ container: ContainerFormat) throws {
        let elements = try BriefcaseElements.open(path, as: container)
        for stored in elements.elements {
            var arrayWarnings: [DecodingWarning] = [], mappedWarnings: [DecodingWarning] = []
            let fromArray = Result { () throws(BriefcaseError) in try stored.read(ModelReading(), warnings: &arrayWarnings) }
            let fromMapping = Result { () throws(BriefcaseError) in try stored.readMapped(ModelReading(), warnings: &mappedWarnings) }
            switch (fromArray, fromMapping) {
            case (.success(let a), .success(let m)): #expect(a == m, "\(path): \(stored.label)")
            case (.failure(let a), .failure(let m)): #expect(a.description == m.description, "\(path): \(stored.label)")
            default: Issue.record("\(path): \(stored.label): \(fromArray) read from an array, \(fromMapping) mapped")
            }
            #expect(arrayWarnings.map(\.description) == mappedWarnings.map(\.description), "\(path): \(stored.label)")
        }
        #expect(elements.elements.isEmpty || elements.elements[0].fileIsMapped)
    }

    @Test func theFixturesDecodeTheSameMapped() throws {
        let fixtures = try FileManager.default.contentsOfDirectory(atPath: SamplePaths.fixtures.path)
            .filter { $0.hasSuffix(".daBriefcase") || $0.hasSuffix(".bin2") }
        #expect(fixtures.count >= 10)
        for name in fixtures {
            let path = SamplePaths.fixtures.appendingPathComponent(name).path
            // (A fixture damaged in its header or index does not open: nothing to compare.)
            guard (try? BriefcaseElements.open(path, as: ExpectedFiles.container(of: name))) != nil else { continue }
            try compareEveryElement(path, ExpectedFiles.container(of: name))
        }
    }

    @Test(.enabled(if: SamplePaths.samplesPresent, "../shared/briefcase-samples is absent"), arguments: SamplePaths.sampleNames)
    func theSamplesDecodeTheSameMapped(name: String) throws {
        try compareEveryElement(SamplePaths.samples.appendingPathComponent(name).path, .dabriefcase)
    }

    /// Damaged input fails or warns mapped exactly as read into an array.
    @Test func damagedElementsFailTheSameMapped() throws {
        let original = try FileIO.read(SamplePaths.fixtures.appendingPathComponent("all-types.daBriefcase").path)
        var random = SplitMix64(seed: 0x6d61_7070)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mapped-mutant-\(UUID().uuidString)").path
        defer { unlink(path) }
        var opened = 0
        for _ in 0 ..< 150 {
            try FileIO.writeAtomically(Mutation.mutant(of: original, &random), to: path, replacing: true)  // (each mutant over the last)
            guard (try? BriefcaseElements.open(path, as: .dabriefcase)) != nil else { continue }
            opened += 1
            try compareEveryElement(path, .dabriefcase)
        }
        #expect(opened > 50)
    }

    /// What follows the elements — the index, a tail of junk — is not mapped: a valid briefcase
    /// followed by a sparse gigabyte maps only up to its last element (Spec/robustness.md §8.4).
    @Test func onlyTheElementsAreMapped() throws {
        let original = try FileIO.read(SamplePaths.fixtures.appendingPathComponent("all-types.daBriefcase").path)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mapped-tail-\(UUID().uuidString)").path
        defer { unlink(path) }
        try FileIO.writeAtomically(original, to: path)
        try #require(truncate(path, off_t(original.count + (1 << 30))) == 0)
        let elements = try BriefcaseElements.open(path, as: .dabriefcase)
        var warnings: [DecodingWarning] = []
        for stored in elements.elements { _ = try stored.readMapped(ModelReading(), warnings: &warnings) }
        let file = try #require(ElementDecodingTests.file(of: elements, at: elements.elements.count - 1), "not read from a file")
        let lastEnd = try #require(elements.elements.map(\.range.upperBound).max())
        #expect(file.size == original.count + (1 << 30))
        #expect(file.mappedCount == lastEnd)
        #expect(lastEnd < original.count, "the index follows the elements")
    }

    /// A string made from a mapping is a copy of its bytes (indices from 0: nothing holds the
    /// mapping); from an array, a view sharing it (the array's indices).
    @Test func stringsAreCopiedOutOfAMappingAndShareAnArray() throws {
        let bytes: [UInt8] = Array("0123456789abcdef".utf8)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mapped-bytes-\(UUID().uuidString)").path
        defer { unlink(path) }
        try FileIO.writeAtomically(bytes, to: path)
        let mapped = ByteSource(try #require(try MappedFile(path: path)))
        let array = ByteSource(bytes)
        #expect(mapped.isMapped && !array.isMapped)
        #expect(mapped.count == 16)
        let copied = mapped.byteString(10 ..< 13), shared = array.byteString(10 ..< 13)
        #expect(Array(copied.bytes) == Array("abc".utf8) && copied.bytes.startIndex == 0)
        #expect(Array(shared.bytes) == Array("abc".utf8) && shared.bytes.startIndex == 10)
        #expect(Array(mapped[2 ..< 5]) == Array("234".utf8) && mapped[2 ..< 5].startIndex == 0)
        #expect(mapped.withUnsafeBufferPointer { Array($0) } == bytes)
        var reader = ByteReader(source: mapped, base: 100, readerIndex: 104)
        #expect(try reader.readInteger(as: UInt32.self) == UInt32(littleEndian: 0x3736_3534))
        #expect(reader.readerIndex == 108)
    }
}
