import JSONCore
import Foundation
import Testing
import BriefcaseTestSupport
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit
@testable import BriefcaseDatastore

/// The streamed export (`SnapshotExport.stream`) against the model-based one (`SnapshotExport`,
/// kept as the reference): the same bytes, warnings and limit violations.
@Suite struct StreamingExportTests {
    /// Streams `document` in small chunks (a 7-byte writer buffer, so chunk boundaries fall
    /// everywhere) and compares everything with the reference.
    @discardableResult
    static func expectSameAsReference(_ document: BriefcaseDocument, codePage: CodePage,
                                      sourceLocation: SourceLocation = #_sourceLocation) throws -> [UInt8]
    {
        let reference = try SnapshotExport(document, codePage: codePage)
        let expected = try reference.serialized()
        var writer = JSONWriter(sink: ArraySink(), bufferSize: 7)
        let summary = try SnapshotExport.stream(document, codePage: codePage, to: &writer)
        try writer.flush()
        let actual = writer.sink.bytes
        #expect(actual.count == expected.count, sourceLocation: sourceLocation)
        if actual != expected {
            let at = zip(actual, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(actual.count, expected.count)
            let context = { (bytes: [UInt8]) in String(decoding: bytes[max(0, at - 80)..<min(bytes.count, at + 80)], as: UTF8.self) }
            Issue.record("first difference at byte \(at):\n  streamed:  \(context(actual))\n  reference: \(context(expected))",
                         sourceLocation: sourceLocation)
        }
        #expect(summary.warnings == reference.warnings, sourceLocation: sourceLocation)
        #expect(summary.limitViolations == reference.limitViolations, sourceLocation: sourceLocation)
        #expect(summary.rev == reference.rev && summary.rowCount == reference.rows.count
                    && summary.deltaCount == reference.deltas.count, sourceLocation: sourceLocation)
        return actual
    }

    @Test(arguments: validFixtureNames)
    func fixturesStreamTheSameBytes(name: String) throws {
        let loaded = try fixture(name)
        let bytes = try Self.expectSameAsReference(loaded.document, codePage: loaded.codePage)
        // What the import gives back carries the `DatastoreSnapshot` property (rev, table ids,
        // delta grouping): exported again, it takes the hinted paths.
        let back = try SnapshotImport(parsing: bytes)
        try Self.expectSameAsReference(back.document, codePage: back.codePage)
    }

    @Test func realSamplesStreamTheSameBytes() throws {
        for name in SamplePaths.sampleNames {
            guard let bytes = SamplePaths.sample(name) else { continue }
            let loaded = try load(bytes, name: name)
            try Self.expectSameAsReference(loaded.document, codePage: loaded.codePage)
        }
    }

    @Test func recordLimitsAreFoundWhileStreaming() throws {
        try Self.expectSameAsReference(MappingTests.bigBlob(), codePage: .utf8)
        var writer = JSONWriter(sink: ArraySink())
        #expect(try SnapshotExport.stream(MappingTests.bigBlob(), codePage: .utf8, to: &writer).limitViolations.count == 1)
    }

    /// A record that grows past 100 KiB by a pending update, a delta over 2 MiB, more records
    /// than allowed after the inserts, a delta without its table, a second delta of a table.
    @Test func limitsAfterThePendingChanges() throws {
        let big = ByteString((0..<120_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let huge = ByteString((0..<2_200_000).map { UInt8(truncatingIfNeeded: $0) })
        let fields = [FieldDescriptor(name: "ID", type: .integer), FieldDescriptor(name: "Data", type: .blob)]
        let schema = Schema(fields: [[SchemaProperty("Name", "ID"), SchemaProperty("InPrimaryKey", "True")],
                                     [SchemaProperty("Name", "Data")]])
        let table = Table(name: "Pictures", schema: schema, fields: fields,
                          rows: (0..<5).map { [.integer(Int64($0)), .blob(ByteString([UInt8($0)]))] })
        let logged = fields.map { LoggedField(name: $0.name, type: $0.type) }
        let delta = Delta(name: "Pictures", loggedFields: logged, keyFields: ["ID"], changes: [
            DeltaChange(type: .update, recordID: 1, oldValues: [.integer(1), .blob(ByteString([1]))], newValues: [.integer(1), .blob(big)]),
            DeltaChange(type: .delete, recordID: 2, oldValues: [.integer(2), .blob(ByteString([2]))], newValues: [nil, nil]),
            DeltaChange(type: .insert, recordID: 3, oldValues: [nil, nil], newValues: [.integer(9), .blob(huge)]),
            DeltaChange(type: .update, recordID: 4, oldValues: [.integer(77), nil], newValues: [nil, .blob(big)]),
        ])
        let second = Delta(name: "pictures", loggedFields: logged, keyFields: ["ID"], changes: [
            DeltaChange(type: .update, recordID: 5, oldValues: [.integer(9), nil], newValues: [nil, .blob(ByteString([5]))]),
            DeltaChange(type: .update, recordID: 6, oldValues: [.integer(3), nil], newValues: [nil, .blob(big)]),
        ])
        let orphan = Delta(name: "Lost", loggedFields: logged, changes: [
            DeltaChange(type: .insert, recordID: 7, oldValues: [nil, nil], newValues: [.integer(1), .blob(big)]),
        ])
        let document = BriefcaseDocument(container: .dabriefcase, file: BriefcaseFile(
            stream: Bin2Stream(elements: [.delta(orphan), .delta(delta), .table(table), .delta(second)])))
        try Self.expectSameAsReference(document, codePage: .utf8)
        let reference = try SnapshotExport(document, codePage: .utf8)
        #expect(reference.limitViolations.contains { $0.message.hasPrefix("after the pending changes") })
        #expect(reference.limitViolations.contains { $0.message.hasPrefix("the delta for revision") })
    }

    @Test(arguments: 0..<40)
    func randomBriefcasesStreamTheSameBytes(seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        let document = RandomBriefcase.make(&random)
        try Self.expectSameAsReference(document, codePage: seed % 5 == 4 ? CodePage(name: "gbk")! : .utf8)
    }

    /// Element by element from the file (`BriefcaseElements`): the bytes of the document path.
    @Test(arguments: validFixtureNames)
    func fixturesStreamTheSameBytesFromDisk(name: String) throws {
        let loaded = try fixture(name)
        var writer = JSONWriter(sink: ArraySink())
        _ = try SnapshotExport.stream(loaded.document, codePage: loaded.codePage, to: &writer)
        try writer.flush()
        let path = SamplePaths.fixtures.appendingPathComponent(name).path
        let elements = try BriefcaseElements.open(path, as: loaded.document.container)
        var made = 0
        let result = try SnapshotExport.stream(elements, encoding: nil, makeSink: { () -> ArraySink in made += 1; return ArraySink() },
                                               discard: { (sink: inout ArraySink) in sink.bytes = [] })
        #expect(result.sink.bytes == writer.sink.bytes)
        #expect(result.report.codePage == loaded.codePage)
        #expect(made >= 1)
    }

    @Test func realSamplesStreamTheSameBytesFromDisk() throws {
        for name in SamplePaths.sampleNames {
            guard let bytes = SamplePaths.sample(name) else { continue }
            let loaded = try load(bytes, name: name)
            var writer = JSONWriter(sink: ArraySink())
            _ = try SnapshotExport.stream(loaded.document, codePage: loaded.codePage, to: &writer)
            try writer.flush()
            let elements = try BriefcaseElements.open(SamplePaths.samples.appendingPathComponent(name).path, as: .dabriefcase)
            let result = try SnapshotExport.stream(elements, encoding: nil, makeSink: { ArraySink() },
                                                   discard: { (sink: inout ArraySink) in sink.bytes = [] })
            #expect(result.sink.bytes == writer.sink.bytes)
        }
    }

    /// Set `BRIEFCASE_STREAM_ELEMENTS` to a briefcase file to stream it from disk into a byte
    /// counter (run alone under `/usr/bin/time -v` to see the peak memory of that path).
    @Test func aLargeBriefcaseFromDisk() throws {
        guard let path = ProcessInfo.processInfo.environment["BRIEFCASE_STREAM_ELEMENTS"] else { return }
        let start = Date()
        let elements = try BriefcaseElements.open(path, as: .dabriefcase)
        let result = try SnapshotExport.stream(elements, encoding: nil, makeSink: { CountingSink() },
                                               discard: { (sink: inout CountingSink) in sink = CountingSink() })
        print("streamed \(path): \(result.sink.count) bytes (the briefcase member \(result.sink.memberCount)), "
                + "\(result.summary.rowCount) rows in \(Date().timeIntervalSince(start)) s")
        #expect(result.sink.count > 0)
    }

    /// Set `BRIEFCASE_STREAM_DISK_COMPARE` to a briefcase file to compare its streamed document
    /// read element by element from disk with the one streamed from the decoded document.
    @Test func aLargeBriefcaseFromDiskAgainstTheDocument() throws {
        guard let path = ProcessInfo.processInfo.environment["BRIEFCASE_STREAM_DISK_COMPARE"] else { return }
        let loaded = try load(try FileIO.read(path), name: path)
        var writer = JSONWriter(sink: CountingSink())
        let summary = try SnapshotExport.stream(loaded.document, codePage: loaded.codePage, to: &writer)
        try writer.flush()
        let elements = try BriefcaseElements.open(path, as: .dabriefcase)
        let result = try SnapshotExport.stream(elements, encoding: nil, makeSink: { CountingSink() },
                                               discard: { (sink: inout CountingSink) in sink = CountingSink() })
        #expect(result.sink.count == writer.sink.count && result.sink.hash == writer.sink.hash)
        #expect(result.summary.warnings == summary.warnings && result.summary.limitViolations == summary.limitViolations)
    }

    /// Set `BRIEFCASE_STREAM_COMPARE` to a briefcase file (e.g. the bench's 10MB one) to compare it.
    @Test func aLargeBriefcaseFromTheEnvironment() throws {
        guard let path = ProcessInfo.processInfo.environment["BRIEFCASE_STREAM_COMPARE"] else { return }
        let loaded = try load(try FileIO.read(path), name: path)
        try Self.expectSameAsReference(loaded.document, codePage: loaded.codePage)
    }
}

/// Counts what is written (and keeps an FNV-1a hash of it).
struct CountingSink: ByteSink {
    var count = 0
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    /// Bytes from the `briefcase` member on (the last top-level member).
    var memberCount = 0
    private var tail: [UInt8] = []
    mutating func write(_ bytes: UnsafeRawBufferPointer) {
        count += bytes.count
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let marker = Array(",\"briefcase\":{\"format\"".utf8)
        if memberCount > 0 { memberCount += bytes.count; return }
        tail = Array((tail + bytes).suffix(bytes.count + marker.count))
        if let at = (0...(max(0, tail.count - marker.count))).first(where: { tail[$0..<min(tail.count, $0 + marker.count)].elementsEqual(marker) }) {
            memberCount = tail.count - at
        }
    }
}
