import Testing
@testable import BriefcaseKit

/// `ChangeTracker.record(updates:deletes:inserts:)`, the linear batch SQLite's reader records
/// edits with, against the edits made one at a time (`update(at:to:)`, `delete(at:)`,
/// `insert(_:)`, themselves checked against deltas written by hand in ChangeTrackerTests): the same
/// delta and rows for random tables, deltas and edits.
struct ChangeTrackerBatchTests {
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// A table of `count` rows (ID, Name), keyed on ID or not, with a pending delta (full or
    /// reduced) that inserts, updates and deletes some rows.
    static func table(_ count: Int, keyed: Bool, reduced: Bool, using random: inout Generator) -> (Table, Delta) {
        let schema = Schema(fields: [[SchemaProperty("Name", "ID"), SchemaProperty("InPrimaryKey", keyed ? "True" : "False")],
                                     [SchemaProperty("Name", "Name")]])
        let rows: [Row] = (0..<count).map { [.integer(Int64($0)), .wide("n\($0 % 7)")] }
        let table = Table(name: "T", schema: schema, fields: [FieldDescriptor(name: "ID", type: .integer), FieldDescriptor(name: "Name", type: .wideString)],
                          rows: Rows(rows))
        var tracker = ChangeTracker(table: table, delta: nil, reducedDelta: reduced)
        for step in 0..<(count / 3) {
            let n = tracker.count
            switch Int.random(in: 0..<3, using: &random) {
            case 0: try? tracker.insert([.integer(Int64(count + step)), .wide("new")])
            case 1 where n > 0: try? tracker.update(at: Int.random(in: 0..<n, using: &random), setting: [1: .wide("u\(step % 5)")])
            default: if n > 0 { try? tracker.delete(at: Int.random(in: 0..<n, using: &random)) }
            }
        }
        return (table, tracker.pendingDelta ?? ChangeTracker.newDelta(for: table, reduced: reduced))
    }

    @Test func aBatchRecordsWhatTheEditsOneByOneRecord() throws {
        var random = Generator(state: 24)
        for round in 0..<200 {
            let keyed = round % 2 == 0, reduced = round % 4 >= 2
            let (table, delta) = Self.table(Int.random(in: 1..<40, using: &random), keyed: keyed, reduced: reduced, using: &random)
            var one = ChangeTracker(table: table, delta: delta)
            let count = one.count
            var positions = Array(0..<count)
            positions.shuffle(using: &random)
            let edited = positions.prefix(Int.random(in: 0...count, using: &random))
            var updates: [(position: Int, row: Row)] = [], deletes: [Int] = []
            for position in edited {
                if Bool.random(using: &random) {
                    // Sometimes back to the stored value: the pending update is dropped.
                    let name: Value = Bool.random(using: &random) ? .wide("n\(position % 7)") : .wide("b\(round)")
                    updates.append((position, [try one.row(at: position)[0], name]))
                } else {
                    deletes.append(position)
                }
            }
            updates.sort { $0.position < $1.position }
            deletes.sort()
            let inserts: [Row] = (0..<Int.random(in: 0..<4, using: &random)).map { [.integer(Int64(1000 + $0)), .wide("i\($0)")] }
            var batch = one
            for (position, row) in updates { try one.update(at: position, to: row) }
            for (done, position) in deletes.enumerated() { try one.delete(at: position - done) }
            for row in inserts { try one.insert(row) }
            try batch.record(updates: updates, deletes: deletes, inserts: inserts)
            #expect(batch.delta == one.delta, "round \(round)")
            #expect(batch.rows == one.rows, "round \(round)")
            #expect(batch.hasEdits == one.hasEdits, "round \(round)")
            for position in 0..<one.count { #expect(try batch.change(forRowAt: position) == one.change(forRowAt: position), "round \(round)") }
            try batch.verify()
        }
    }

    /// A refused edit in a batch changes nothing.
    @Test func aRefusedBatchChangesNothing() throws {
        var random = Generator(state: 1)
        let (table, delta) = Self.table(10, keyed: true, reduced: false, using: &random)
        var tracker = ChangeTracker(table: table, delta: delta)
        let before = tracker.delta
        let error = try #require(throws: ChangeTrackingError.self) {
            try tracker.record(updates: [(0, [.integer(0), .wide("x")])], deletes: [1, 1], inserts: [])
        }
        // The second delete of row 1 is the one refused.
        #expect(error.kind == .noSuchRow && error.row == 1 && error.column == nil, "\(error)")
        #expect(tracker.delta == before && !tracker.hasEdits)
    }
}
