import BriefcaseKit
import BriefcaseTestSupport
import Foundation
import Testing
@testable import BriefcaseRecords

/// Edits through the records API become pending changes (by `ChangeTracker`), checked change by
/// change against deltas written out by hand from Spec/change-tracking.md; saving writes only
/// what changed.
struct RecordEditingTests {
    typealias Mixed = RecordReadingTests.Mixed
    struct Unnamed: Encodable { var ID: Int64; var Nom: String }

    /// Reading every table (and handing it back unedited) then saving gives the original bytes.
    @Test func savingWithoutEditsIsByteExact() throws {
        let scratch = try Scratch()
        var inputs = ["all-types.daBriefcase", "nulls.daBriefcase", "empty-delta.daBriefcase", "empty-table.daBriefcase",
                      "gbk.daBriefcase", "unsafe-names.daBriefcase"].map { SamplePaths.fixtures.appendingPathComponent($0).path }
        inputs += SamplePaths.sampleNames.map { SamplePaths.samples.appendingPathComponent($0).path }.filter { FileManager.default.fileExists(atPath: $0) }
        for input in inputs {
            let original = try Scratch.bytes(input)
            let path = try scratch.write(original, as: URL(fileURLWithPath: input).lastPathComponent)
            let briefcase = try RecordBriefcase(path: path)
            for name in Set(briefcase.tableNames) {
                let table = try briefcase.table(name)
                _ = table.records()
                try briefcase.setTable(table)
            }
            try briefcase.save()
            #expect(try Scratch.bytes(path) == original, "\(input)")
        }
    }

    /// A table without a delta: the first edit starts a full one (every logged value on both
    /// sides), logging the fields whose schema says LogChanges, keyed by the InPrimaryKey field.
    @Test func editsStartAFullDelta() throws {
        let scratch = try Scratch()
        let (path, original) = try scratch.copy(fixture: "nulls.daBriefcase")
        let briefcase = try RecordBriefcase(path: path)
        var mixed = try briefcase.table("Mixed")
        #expect(mixed.keyFields == ["ID"] && mixed.pendingDelta == nil)

        try mixed.update(key: ["ID": Int64(1)], setting: ["Name": "renamed"])
        var expected = [DeltaChange(type: .update, recordID: 1100, oldValues: [.integer(1), .wide("none"), .float(1.5)],
                                    newValues: [.integer(1), .wide("renamed"), .float(1.5)])]
        #expect(mixed.pendingChanges == expected)

        try mixed.update(key: ["ID": 3], to: Mixed(ID: 3, Name: "last", Score: 9.5))
        expected.append(DeltaChange(type: .update, recordID: 1101, oldValues: [.integer(3), .wide("last"), nil],
                                    newValues: [.integer(3), .wide("last"), .float(9.5)]))
        #expect(mixed.pendingChanges == expected)

        try mixed.insert(Mixed(ID: 6, Name: "six", Score: nil))
        expected.append(DeltaChange(type: .insert, recordID: 1102, oldValues: [nil, nil, nil], newValues: [.integer(6), .wide("six"), nil]))
        #expect(mixed.pendingChanges == expected)

        try mixed.delete(key: ["ID": 4])
        expected.append(DeltaChange(type: .delete, recordID: 1103, oldValues: [.integer(4), nil, .float(4.5)], newValues: [nil, nil, nil]))
        #expect(mixed.pendingChanges == expected)

        // The same changes by logged field name.
        #expect(mixed.changes.map { $0.new?.description } == ["ID=1 Name=\"renamed\" Score=1.5", "ID=3 Name=\"last\" Score=9.5", "ID=6 Name=\"six\" Score=NULL", nil])
        #expect(try mixed.changes[3].old?.value("Score", as: Double.self) == 4.5 && mixed.changes[2].old == nil)

        let current = [Mixed(ID: 1, Name: "renamed", Score: 1.5), Mixed(ID: nil, Name: "first", Score: 2.5), Mixed(ID: 3, Name: "last", Score: 9.5),
                       Mixed(ID: nil, Name: nil, Score: nil), Mixed(ID: 6, Name: "six", Score: nil)]
        #expect(try mixed.rows(as: Mixed.self) == current)
        #expect(try mixed.rows(as: Mixed.self, .stored).map(\.Name) == ["none", "first", "last", nil, nil])

        try briefcase.setTable(mixed)
        try briefcase.save()
        let delta = Delta(name: "Mixed", loggedFields: [LoggedField(name: "ID", type: .integer), LoggedField(name: "Name", type: .wideString),
                                                        LoggedField(name: "Score", type: .float)],
                          keyFields: ["ID"], reducedDeltaFlag: 0, changes: expected)
        let reopened = try RecordBriefcase(path: path)
        let table = try reopened.table("Mixed")
        #expect(table.pendingDelta == delta)
        #expect(try table.rows(as: Mixed.self) == current)
        #expect(try table.rows(as: Mixed.self, .stored).map(\.Name) == ["none", "first", "last", nil, nil])
        // The table not edited is copied byte for byte.
        #expect(try elementBytes(path, "Wide", .table) == elementBytes(scratch.write(original, as: "original.daBriefcase"), "Wide", .table))
    }

    /// A table with a (reduced) delta: edits extend it — the key and the changed fields, fresh
    /// ids after the highest — and a row's own pending change is brought up to date.
    @Test func editsExtendAReducedDelta() throws {
        let scratch = try Scratch()
        let (path, original) = try scratch.copy(fixture: "empty-delta.daBriefcase")
        let briefcase = try RecordBriefcase(path: path)
        var orders = try briefcase.table("Orders")
        #expect(orders.pendingDelta?.isReduced == true && orders.pendingChanges.isEmpty)

        try orders.update(key: ["id": 1], setting: ["Name": "second"])
        #expect(orders.pendingChanges == [DeltaChange(type: .update, recordID: 1100, oldValues: [.integer(1), .wide("first")],
                                                      newValues: [.integer(1), .wide("second")])])
        try orders.insert(["ID": Int32(2), "Name": "two"])
        try orders.update(at: 1, setting: ["Name": "deux"])
        try orders.delete(key: ["ID": 1])
        let expected = [DeltaChange(type: .delete, recordID: 1100, oldValues: [.integer(1), .wide("first")], newValues: [nil, nil]),
                        DeltaChange(type: .insert, recordID: 1101, oldValues: [nil, nil], newValues: [.integer(2), .wide("deux")])]
        #expect(orders.pendingChanges == expected)
        try briefcase.setTable(orders)
        try briefcase.save()

        let reopened = try RecordBriefcase(path: path).table("Orders")
        #expect(reopened.pendingChanges == expected)
        #expect(reopened.pendingDelta?.keyFields == ["ID"] && reopened.pendingDelta?.reducedDeltaFlag == 1)
        #expect(reopened.records(.stored).map(\.values) == [[.integer(1), .wide("first")]])
        #expect(reopened.records().map(\.values) == [[.integer(2), .wide("deux")]])
        let before = try scratch.write(original, as: "original.daBriefcase")
        #expect(try elementBytes(path, "Archive", .delta) == elementBytes(before, "Archive", .delta))
    }

    /// Writing back exactly what was read records nothing; edits that are refused change nothing.
    @Test func noChangeAndRefusedEdits() throws {
        let scratch = try Scratch()
        let briefcase = try RecordBriefcase(path: try scratch.copy(fixture: "all-types.daBriefcase").path)
        var table = try briefcase.table("AllTypes")
        for position in 0..<table.count {
            let row = try table.record(at: position).decode(as: RecordReadingTests.AllTypes.self)
            try table.update(at: position, to: row)
        }
        #expect(table.hasEdits == false && table.pendingChanges.isEmpty)

        // Each refusal names its kind, the table and the field (Spec/records-api.md §5).
        let refusals: [(setting: [String: (any FieldValue)?], kind: RecordError.Kind, field: String)] = [
            (["Byte": 300], .cannotStore, "Byte"),                       // beyond a datByte
            (["Byte": "x"], .cannotStore, "Byte"),                       // text in a datByte
            (["SingleFloat": 0.1], .cannotStore, "SingleFloat"),         // not a Float exactly
            (["Currency": Decimal(string: "0.00001")!], .cannotStore, "Currency"),  // below 1/10 000
            (["Nope": 1], .unknownField, "Nope"),
        ]
        for refusal in refusals {
            let error = try #require(throws: RecordError.self, "\(refusal.setting)") { try table.update(at: 0, setting: refusal.setting) }
            #expect(error.kind == refusal.kind && error.table == "AllTypes" && error.field == refusal.field, "\(error)")
            // The spec's "errors carry the table, the row's position and the field": row 0 here.
            #expect(error.row == 0, "\(error)")
        }
        let noRow = try #require(throws: RecordError.self) { try table.update(at: 9, setting: ["Byte": 1]) }
        #expect(noRow.kind == .noSuchRow && noRow.table == "AllTypes" && noRow.row == 9 && noRow.field == nil, "\(noRow)")
        #expect(table.hasEdits == false)

        let nulls = try RecordBriefcase(path: try scratch.copy(fixture: "nulls.daBriefcase").path)
        var wide = try nulls.table("Wide")   // no schema, no delta: no key
        let noKey = #expect(throws: RecordError.self) { try wide.delete(key: ["C1": 1]) }
        #expect(noKey?.kind == .changeTracking(.noKey) && noKey?.table == "Wide" && wide.hasEdits == false)
        var mixed = try nulls.table("Mixed")
        let twoRows = #expect(throws: RecordError.self) { try mixed.update(key: ["ID": 5], setting: ["Name": "x"]) }
        #expect(twoRows?.kind == .noSuchRow && twoRows?.table == "Mixed")
        let unknown = #expect(throws: RecordError.self) { try mixed.insert(Unnamed(ID: 9, Nom: "x")) }
        #expect(unknown?.kind == .unknownField && unknown?.field == "Nom" && unknown?.table == "Mixed")
        #expect(mixed.hasEdits == false && mixed.count == 5)
        try mixed.update(at: 0, setting: ["Score": Float(0.5)])   // a Float fits a datFloat exactly
        #expect(try mixed.record(at: 0).value("Score", as: Double.self) == 0.5)
    }

    /// The bytes of the element `name` of `kind` in the single file at `path`.
    func elementBytes(_ path: String, _ name: ByteString, _ kind: ElementKind) throws -> [UInt8] {
        let elements = try BriefcaseElements.open(path, as: .dabriefcase)
        let element = try #require(elements.elements.first { $0.name == name && $0.kind == kind })
        return Array(try Scratch.bytes(path)[element.range])
    }
}
