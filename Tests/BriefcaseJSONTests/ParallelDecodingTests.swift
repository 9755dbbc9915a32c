import JSONCore
@testable import BriefcaseJSON
import BriefcaseKit
import BriefcaseTestSupport
import Foundation
import Testing

/// `BriefcaseElements.read(into:…:jobs:)` with worker threads gives what one job gives, byte for
/// byte — JSON, binary, folder, validation — and calls its sink the same way (the elements,
/// warnings and left-out elements in the same order, a code-page restart at the same place).
/// Not only the jobs against each other: each output also against an oracle that does not come
/// from the driver (the fixtures' expected documents, the input's own bytes, the model).
@Suite struct ParallelDecodingTests {
    static let jobCounts = [1, 2, 8]

    /// What a conversion to JSON wrote, met and told its sink.
    struct Run: Equatable {
        var json: [UInt8]
        var codePage: String
        var reason: String?
        var warnings: [DecodingWarning]
        /// `NAME OFFSET: message` of each element left out.
        var skipped: [String]
        var calls: [String]
    }

    /// The calls a sink gets, in order, before they reach `sink`.
    struct Recording<Sink: BriefcaseSink>: ForwardingSink {
        var inner: Sink
        var calls: [String] = []
        mutating func begin(_ head: BriefcaseHead) throws(BriefcaseError) { calls.append("begin \(head.codePage.name)"); try inner.begin(head) }
        mutating func element(_ element: Element, at position: Int) throws(BriefcaseError) {
            calls.append("element \(position) \(element.name.bytes)")
            try inner.element(element, at: position)
        }
        mutating func abandon() { calls.append("abandon"); inner.abandon() }
    }

    static func json(_ elements: BriefcaseElements, jobs: Int, skipDamaged: Bool = false, canRestart: Bool = true) throws -> Run {
        var sink = Recording(inner: JSONDocumentEncoder(sink: ArraySink(), codePage: .utf8))
        let report = try elements.read(into: &sink, encoding: nil, skipDamaged: skipDamaged, canRestart: canRestart, jobs: jobs)
        return Run(json: sink.inner.writer.sink.bytes, codePage: report.codePage.name, reason: report.detection?.reason,
                   warnings: report.warnings,
                   skipped: report.skipped.map { "\($0.name) \($0.error.offset ?? -1): \($0.error.message)" }, calls: sink.calls)
    }

    static func binary(_ elements: BriefcaseElements, jobs: Int) throws -> [UInt8] {
        var sink = BinarySink(output: MemoryStreamOutput())
        _ = try elements.read(into: &sink, encoding: .utf8, skipDamaged: false, jobs: jobs)
        return sink.output.bytes
    }

    /// The folder written from `elements`: every file's name and bytes.
    static func folder(_ elements: BriefcaseElements, jobs: Int) throws -> [String: [UInt8]] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jobs-folder-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try elements.writeFolder(to: dir, encoding: nil, skipDamaged: false, jobs: jobs)
        var files: [String: [UInt8]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: dir) { files[name] = try FileIO.read(dir + "/" + name) }
        return files
    }

    static func validation(_ path: String, _ container: ContainerFormat, jobs: Int) throws -> String {
        "\(try Validator.validateFile(at: path, container: container, options: ValidationOptions(jobs: jobs)))"
    }

    /// Every output of `path` with each job count: the same as with one job; the JSON and the
    /// binary output returned for the caller's oracle.
    static func sameForEveryJobCount(_ path: String, _ container: ContainerFormat, _ label: String) throws -> (json: Run, binary: [UInt8]) {
        let one = try json(BriefcaseElements.open(path, as: container), jobs: 1)
        let oneWithoutRestart = try json(BriefcaseElements.open(path, as: container), jobs: 1, canRestart: false)
        let binaryOne = try binary(BriefcaseElements.open(path, as: container), jobs: 1)
        let folderOne = try folder(BriefcaseElements.open(path, as: container), jobs: 1)
        let validationOne = try validation(path, container, jobs: 1)
        for jobs in jobCounts.dropFirst() {
            #expect(try json(BriefcaseElements.open(path, as: container), jobs: jobs) == one, "\(label), jobs \(jobs)")
            #expect(try json(BriefcaseElements(bytes: FileIO.read(path), as: container), jobs: jobs) == one, "\(label), in memory, jobs \(jobs)")
            #expect(try json(BriefcaseElements.open(path, as: container), jobs: jobs, canRestart: false) == oneWithoutRestart,
                    "\(label), no restart, jobs \(jobs)")
            #expect(try binary(BriefcaseElements.open(path, as: container), jobs: jobs) == binaryOne, "\(label), binary, jobs \(jobs)")
            #expect(try folder(BriefcaseElements.open(path, as: container), jobs: jobs) == folderOne, "\(label), folder, jobs \(jobs)")
            #expect(try validation(path, container, jobs: jobs) == validationOne, "\(label), validation, jobs \(jobs)")
        }
        #expect(oneWithoutRestart.json == one.json, "\(label): the exact detection first writes the same")
        return (one, binaryOne)
    }

    // MARK: fixtures, samples, many tables

    @Test(arguments: ExpectedFiles.validFixtures)
    func fixturesGiveTheirExpectedOutputsWithEveryJobCount(name: String) throws {
        let path = SamplePaths.fixtures.appendingPathComponent(name).path
        let (run, binary) = try Self.sameForEveryJobCount(path, ExpectedFiles.container(of: name), name)
        let expected = try ExpectedFiles.json(of: name)
        #expect(ExpectedFiles.difference(run.json, expected) == nil, "\(name): \(ExpectedFiles.difference(run.json, expected) ?? "")")
        #expect(binary == (try FileIO.read(path)), "\(name): written again byte for byte")
    }

    @Test(.enabled(if: SamplePaths.samplesPresent, "../shared/briefcase-samples is absent"), arguments: SamplePaths.sampleNames)
    func realSamplesGiveTheSameOutputsWithEveryJobCount(name: String) throws {
        let path = SamplePaths.samples.appendingPathComponent(name).path
        let (run, binary) = try Self.sameForEveryJobCount(path, .dabriefcase, name)
        let original = try FileIO.read(path)
        #expect(run.codePage == "gbk", "\(name)")
        #expect(try StreamReaderTests.convert(run.json) == original, "\(name): the JSON reads back as the file")
        #expect(binary == original, "\(name)")
    }

    /// 60 groups of random tables and deltas: more elements than jobs, of every size, with text
    /// that is not UTF-8, so the code page is detected over all of them.
    @Test(arguments: [ContainerFormat.dabriefcase, .bin2])
    func manyTablesGiveTheSameOutputsWithEveryJobCount(container: ContainerFormat) throws {
        let many = ManyTables(groups: 60, seed: 5, container: container)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("jobs-many-\(UUID().uuidString)").path
        defer { unlink(path) }
        let original = try many.document.encode()
        try FileIO.writeAtomically(original, to: path)
        let (run, binary) = try Self.sameForEveryJobCount(path, container, "many tables, \(container)")
        #expect(binary == original)
        let detection = CodePage.detect(in: many.document.file)
        #expect(run.codePage == detection.codePage.name)
        let (document, named) = try JSONDocumentDecoder().decodeNamingCodePage(run.json)
        #expect(named == detection.codePage)
        #expect(document == many.document, "the JSON reads back as the model")
    }

    // MARK: damage and code page

    /// Damaged plain tables among many, some also warning (one both): with `skipDamaged`, the
    /// same JSON, report and sink calls with every job count; the elements left out and the
    /// warnings those the damage made, in stream order; the JSON the readable elements'.
    @Test func damagedTablesAreLeftOutTheSameWayWithEveryJobCount() throws {
        let many = ManyTables(groups: 40, seed: 9)
        let (bytes, failures, warnings) = try many.damaged(broken: [3, 4, 17, 39], warning: [0, 4, 20])
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("jobs-damaged-\(UUID().uuidString)").path
        defer { unlink(path) }
        try FileIO.writeAtomically(bytes, to: path)

        let one = try Self.json(BriefcaseElements.open(path, as: .dabriefcase), jobs: 1, skipDamaged: true)
        #expect(one.skipped.map { $0.prefix { $0 != ":" } } == failures.map { "\($0.name) \($0.offset)" })
        // The report has the warnings of the elements that decode; the sink gets the others only.
        let brokenNames = Set(failures.map(\.name))
        #expect(one.warnings.map { "\($0.element ?? "") \($0.offset.map(String.init) ?? "")" }
                == warnings.filter { !brokenNames.contains($0.name) }.map { "\($0.name) \($0.offset)" })
        #expect(!one.calls.contains { call in brokenNames.contains { call.hasSuffix(" \(Array($0.utf8))") } }, "an element left out reached the sink")
        for jobs in Self.jobCounts.dropFirst() {
            #expect(try Self.json(BriefcaseElements.open(path, as: .dabriefcase), jobs: jobs, skipDamaged: true) == one, "jobs \(jobs)")
        }
        // The oracle: the readable elements' model, written whole with the code page detected in it.
        var readable = many.document
        readable.file.stream.elements.removeAll { brokenNames.contains(String(decoding: $0.name.bytes, as: UTF8.self)) }
        let detection = CodePage.detect(in: readable.file)
        var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: detection.codePage)
        try encoder.encode(readable)
        #expect(ExpectedFiles.difference(one.json, encoder.writer.sink.bytes) == nil, "\(ExpectedFiles.difference(one.json, encoder.writer.sink.bytes) ?? "")")

        // Without skipping: the first damaged table stops every job count with the same error.
        for jobs in Self.jobCounts {
            do {
                _ = try Self.json(BriefcaseElements.open(path, as: .dabriefcase), jobs: jobs)
                Issue.record("jobs \(jobs): converted")
            } catch let error as BriefcaseError {
                #expect(error.element == failures[0].name && error.offset == failures[0].offset && error.file == path, "jobs \(jobs): \(error)")
            }
        }
        let validationOne = try Self.validation(path, .dabriefcase, jobs: 1)
        for jobs in Self.jobCounts.dropFirst() { #expect(try Self.validation(path, .dabriefcase, jobs: jobs) == validationOne, "jobs \(jobs)") }
    }

    /// ASCII heads and values but one windows-1252 value in the 50th table of 60: the heads
    /// choose UTF-8, that table contradicts it, the sink is abandoned there and begun again —
    /// with every job count, at the same place, to the document written here by hand.
    @Test func aCodePageRestartHappensAtTheSamePlaceWithEveryJobCount() throws {
        var elements = (0 ..< 60).map { StreamingConversionTests.table("T\($0)", values: ["abc", "def"]) }
        elements[50] = StreamingConversionTests.table("T50", values: [ByteString([0x63, 0x61, 0x66, 0xE9])])  // café in windows-1252
        let path = try StreamingConversionTests.write(elements)
        defer { unlink(path) }
        let expected = StreamingConversionTests.document(encoding: "windows-1252", (0 ..< 60).map {
            StreamingConversionTests.plainTable("T\($0)", $0 == 50 ? ["café"] : ["abc", "def"])
        })
        let one = try Self.json(BriefcaseElements.open(path, as: .dabriefcase), jobs: 1)
        #expect(ExpectedFiles.difference(one.json, expected) == nil, "\(ExpectedFiles.difference(one.json, expected) ?? "")")
        #expect(one.calls.filter { $0.hasPrefix("begin") || $0 == "abandon" } == ["begin utf-8", "abandon", "begin windows-1252"])
        #expect(one.calls.firstIndex(of: "abandon") == 52, "begin, T0 … T50, then abandoned")
        for jobs in Self.jobCounts.dropFirst() {
            #expect(try Self.json(BriefcaseElements.open(path, as: .dabriefcase), jobs: jobs) == one, "jobs \(jobs)")
            #expect(try Self.json(BriefcaseElements.open(path, as: .dabriefcase), jobs: jobs, canRestart: false).json == expected, "jobs \(jobs)")
        }
    }

    /// A folder of more table files than `OpenDescriptors.limit`: with 8 jobs, reads through
    /// many descriptors at once while the least recently used are closed.
    @Test func aFolderOfManyTableFilesGivesTheSameJSONWithEveryJobCount() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jobs-folder-in-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = FileManager.default.temporaryDirectory.appendingPathComponent("jobs-folder-src-\(UUID().uuidString)").path
        defer { unlink(source) }
        try FileIO.writeAtomically(ManyTables(groups: 30, seed: 3).document.encode(), to: source)
        try Briefcase.open(source).write(to: dir, as: .folder)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).count > 40)
        let one = try Self.json(BriefcaseElements(try Briefcase.openFolder(dir)), jobs: 1)
        for jobs in Self.jobCounts.dropFirst() {
            #expect(try Self.json(BriefcaseElements(try Briefcase.openFolder(dir)), jobs: jobs) == one, "jobs \(jobs)")
        }
    }
}
