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
        let (output, summary) = try SnapshotExport.stream(loaded.document, codePage: loaded.codePage, into: ArraySink(), bufferSize: 7)
        expectSameBytes(output.bytes, try Self.expected(name), name)
        #expect(summary.limitViolations.isEmpty)
    }

    @Test(arguments: validFixtureNames)
    func elementByElementFromTheFile(name: String) throws {
        let path = SamplePaths.fixtures.appendingPathComponent(name).path
        let elements = try BriefcaseElements.open(path, as: name.hasSuffix(".bin2") ? .bin2 : .dabriefcase)
        let result = try SnapshotExport.stream(elements, into: ArraySink(), encoding: nil)
        expectSameBytes(result.sink.bytes, try Self.expected(name), name)
        #expect(result.report.codePage == (try fixture(name)).codePage)
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
        let (output, summary) = try SnapshotExport.stream(briefcase, codePage: .utf8, into: ArraySink())
        #expect(summary.warnings.isEmpty, "\(summary.warnings)")
        let again = try SnapshotDocument(parsing: output.bytes)
        #expect(again.snapshot == plain.snapshot)
        #expect(again.deltas?.map(\.rev) == plain.deltas?.map(\.rev))
        #expect(again.deltas?.map(\.nonce) == plain.deltas?.map(\.nonce))
        #expect(try again.appliedSnapshot() == plain.appliedSnapshot())
    }
}
