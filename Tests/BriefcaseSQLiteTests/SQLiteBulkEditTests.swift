import Foundation
import Testing
import BriefcaseKit
import BriefcaseSQLite
import BriefcaseTestSupport

/// Bulk edits made with SQL are read back in time linear in the rows (Spec/sqlite-mapping.md §5):
/// each delete moved every later row, and each pending insert it undid moved every later change,
/// so deleting the rows of a table of 10⁵ rows took hours; now seconds (debug build).
@Suite(.enabled(if: SQLiteTesting.sqlite3Present, "sqlite3 is not installed (apt-get install sqlite3)"))
struct SQLiteBulkEditTests {
    @Test(.timeLimit(.minutes(2))) func deletingEveryRowOfALargeTable() throws {
        let dir = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stored = 150_000, inserted = 50_000
        let fields = [FieldDescriptor(name: "N", type: .integer), FieldDescriptor(name: "S", type: .wideString)]
        let table = Table(name: "Big", fields: fields, rows: Rows((0..<stored).map { [.integer(Int64($0)), .wide("s\($0)")] }))
        let inserts = (0..<inserted).map { i in
            DeltaChange(type: .insert, recordID: Int32(1100 + i), oldValues: [nil, nil], newValues: [.integer(Int64(stored + i)), .wide("i\(i)")])
        }
        let delta = Delta(name: "Big", loggedFields: fields.map { LoggedField(name: $0.name, type: $0.type) }, reducedDeltaFlag: 0, changes: inserts)
        let document = BriefcaseDocument(container: .bin2, file: BriefcaseFile(stream: Bin2Stream(elements: [.delta(delta), .table(table)])))
        let db = dir.appendingPathComponent("big.sqlite").path
        try SQLiteTesting.export(document, to: db)
        try SQLiteTesting.sqlite3(db, "DELETE FROM Big")
        let (back, edits) = try SQLiteTesting.read(db)
        #expect(edits == [SQLiteSource.TableEdits(table: "Big", inserts: 0, updates: 0, deletes: stored + inserted)])
        let edited = try #require(back.file.stream.elements[0].asDelta, "no delta first")
        // The pending inserts are gone (they never reached a server); each stored row has a delete
        // with its values, record ids from 1100 + inserted on.
        #expect(edited.changes.count == stored)
        #expect(edited.changes.first == DeltaChange(type: .delete, recordID: Int32(1100 + inserted), oldValues: [.integer(0), .wide("s0")], newValues: [nil, nil]))
        #expect(edited.changes.last?.oldValues == [.integer(Int64(stored - 1)), .wide("s\(stored - 1)")])
        #expect(table.applying(edited).rows.isEmpty)
    }
}
