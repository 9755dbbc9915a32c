import Foundation
import Testing
@testable import BriefcaseKit

/// `BriefcaseTable` is a value; `setTable` puts an edited copy back, and `write()` encodes only
/// the tables replaced: the others are copied as their raw bytes even when they were read.
struct BriefcaseSetTableTests {
    /// Each element's bytes by kind and name, with a dataset's schema-end field (bytes 1–4 of the
    /// body, the one position inside an element, rebased on every write) zeroed.
    static func elementBytes(_ path: String) throws -> [String: [UInt8]] {
        let reader = try BriefcaseElements.open(path, as: .dabriefcase)
        let file = try FileIO.read(path)
        var result: [String: [UInt8]] = [:]
        for stored in reader.elements {
            var bytes = Array(file[stored.range])
            if stored.kind == .table { bytes.replaceSubrange(1..<5, with: [0, 0, 0, 0]) }
            result["\(stored.kind == .table ? "t" : "d") \(stored.label)"] = bytes
        }
        return result
    }

    @Test func aReadTableIsAValueAndOnlyReplacedTablesAreEncoded() throws {
        let dir = try BriefcaseTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/names.daBriefcase"
        try Data(try TestPaths.fixture("unsafe-names.daBriefcase")).write(to: URL(fileURLWithPath: path))
        let before = try Self.elementBytes(path)

        let briefcase = try Briefcase.openFile(path)
        for i in 0..<briefcase.tableCount { _ = try briefcase.table(at: i) }  // every table read
        let index = try #require(briefcase.tableIndex(named: "A/B"))
        #expect(index == 1)
        var edited = try briefcase.table(at: index)
        let fields = try #require(edited.dataset?.fields)
        edited.dataset?.rows.append(Row(repeating: nil, count: fields.count))
        #expect(try briefcase.table(at: index) != edited, "editing the copy leaves the cached table alone")
        try briefcase.setTable(edited, at: index)
        #expect(try briefcase.table(at: index) == edited)
        try briefcase.write()

        let after = try Self.elementBytes(path)
        #expect(Set(after.keys) == Set(before.keys))
        for (key, bytes) in before where key != "t a/b" {
            #expect(after[key] == bytes, "\(key) is copied as it was")
        }
        #expect(after["t a/b"] != before["t a/b"])
        let reopened = try Briefcase.openFile(path)
        #expect(try reopened.table(named: "a/b")?.dataset?.rows.count == (try BriefcaseFileCodec.decode(try TestPaths.fixture("unsafe-names.daBriefcase"))
            .stream.table(named: "a/b")?.rows.count ?? -1) + 1)
    }

    @Test func setTableKeepsTheElementOrderAndPutsANewDeltaFirst() throws {
        let dir = try BriefcaseTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/orders.daBriefcase"
        let id = FieldDescriptor(name: "ID", type: .integer)
        let stream = Bin2Stream(elements: [
            .table(Table(name: "A", fields: [id], rows: [[.integer(1)]])),
            .delta(Delta(name: "A", loggedFields: [LoggedField(name: "ID", type: .integer)])),  // dataset first
            .table(Table(name: "B", fields: [id], rows: [[.integer(2)]])),                     // no delta
        ])
        try Data(try BriefcaseFileCodec.encode(BriefcaseFile(stream: stream))).write(to: URL(fileURLWithPath: path))
        let briefcase = try Briefcase.openFile(path)
        let delta = DeltaChange(type: .insert, recordID: 1100, oldValues: [nil], newValues: [.integer(3)])
        var a = try briefcase.table(at: 0)
        a.delta?.changes = [delta]
        try briefcase.setTable(a, at: 0)
        var b = try briefcase.table(at: 1)
        b.delta = Delta(name: "B", loggedFields: [LoggedField(name: "ID", type: .integer)], changes: [delta])
        try briefcase.setTable(b, at: 1)
        let error = try #require(throws: BriefcaseError.self) { try briefcase.setTable(b, at: 2) }
        #expect(error.kind == .invalidModel && error.message.hasPrefix("no table at index 2") && error.file == path, "\(error)")
        try briefcase.write()
        let order = try BriefcaseElements.open(path, as: .dabriefcase).elements.map { "\($0.kind == .table ? "t" : "d") \($0.label)" }
        #expect(order == ["t A", "d A", "d B", "t B"])
    }
}
