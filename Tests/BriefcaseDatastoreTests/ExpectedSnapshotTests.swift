import JSONCore
import Foundation
import Testing
import BriefcaseTestSupport
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit
@testable import BriefcaseDatastore

/// The snapshot document of each well-formed fixture against its file in `Fixtures/expected/`
/// (checked against Spec/datastore-mapping.md once, as `Fixtures/README.md` says), however the
/// export is fed: the decoded document, written through a 7-byte buffer (chunk boundaries fall
/// everywhere), or element by element from the file.
@Suite struct ExpectedSnapshotTests {
    /// `orders.bin2` → the bytes of `Fixtures/expected/orders.snapshot.json`.
    static func expected(_ fixture: String) throws -> [UInt8] {
        let stem = fixture.split(separator: ".").first.map(String.init) ?? fixture
        let url = SamplePaths.fixtures.appendingPathComponent("expected/\(stem).snapshot.json")
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw BriefcaseError(.io, "\(url.path) is missing")
        }
        return [UInt8](data)
    }

    @Test(arguments: validFixtureNames)
    func fromTheDecodedDocument(name: String) throws {
        let loaded = try fixture(name)
        var writer = JSONWriter(sink: ArraySink(), bufferSize: 7)
        let summary = try SnapshotExport.stream(loaded.document, codePage: loaded.codePage, to: &writer)
        try writer.flush()
        expectSameBytes(writer.sink.bytes, try Self.expected(name), name)
        #expect(summary.limitViolations.isEmpty)
    }

    @Test(arguments: validFixtureNames)
    func elementByElementFromTheFile(name: String) throws {
        let path = SamplePaths.fixtures.appendingPathComponent(name).path
        let elements = try BriefcaseElements.open(path, as: name.hasSuffix(".bin2") ? .bin2 : .dabriefcase)
        var made = 0
        let result = try SnapshotExport.stream(elements, encoding: nil, makeSink: { () -> ArraySink in made += 1; return ArraySink() },
                                               discard: { (sink: inout ArraySink) in sink.bytes = [] })
        expectSameBytes(result.sink.bytes, try Self.expected(name), name)
        #expect(result.report.codePage == (try fixture(name)).codePage)
        #expect(made >= 1)
    }

    /// Without its `briefcase` member, the document is a plain snapshot: the briefcase it becomes
    /// carries the `DatastoreSnapshot` property (rev, table ids, the grouping of changes into
    /// deltas and their nonces), and exported again (the hinted paths) it is the same datastore
    /// before and after every delta (Spec/datastore-mapping.md §6.2).
    @Test(arguments: validFixtureNames)
    func asAPlainSnapshotItComesBackAsTheSameDatastore(name: String) throws {
        var plain = try SnapshotDocument(parsing: try Self.expected(name))
        plain.extras = JSONObject()
        let briefcase = try SnapshotImport(plain).document
        var writer = JSONWriter(sink: ArraySink())
        let summary = try SnapshotExport.stream(briefcase, codePage: .utf8, to: &writer)
        try writer.flush()
        #expect(summary.warnings.isEmpty, "\(summary.warnings)")
        let again = try SnapshotDocument(parsing: writer.sink.bytes)
        #expect(again.snapshot == plain.snapshot)
        #expect(again.deltas?.map(\.rev) == plain.deltas?.map(\.rev))
        #expect(again.deltas?.map(\.nonce) == plain.deltas?.map(\.nonce))
        #expect(try again.appliedSnapshot() == plain.appliedSnapshot())
    }
}
