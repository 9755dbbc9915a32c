import Testing
@testable import BriefcaseKit

/// `ChangeTracker`, change by change against deltas written out by hand from
/// Spec/change-tracking.md (type, record id, status, old and new values by logged position).
struct ChangeTrackerTests {
    static func money(_ value: Int64) -> Value { .currency(Currency(scaled: value * 10_000)) }

    /// ID (key), Name, Amount, and Note, which the schema says not to log.
    static let orders: Table = {
        func field(_ name: String, _ type: DataType, key: Bool = false, logged: Bool = true) -> [SchemaProperty] {
            [SchemaProperty("Name", name), SchemaProperty("DataType", type.name), SchemaProperty("InPrimaryKey", key ? "True" : "False"),
             SchemaProperty("LogChanges", logged ? "True" : "False")]
        }
        return Table(name: "Orders",
                     schema: Schema(fields: [field("ID", .integer, key: true), field("Name", .wideString), field("Amount", .currency),
                                             field("Note", .string, logged: false)]),
                     fields: [FieldDescriptor(name: "ID", type: .integer), FieldDescriptor(name: "Name", type: .wideString, size: 100),
                              FieldDescriptor(name: "Amount", type: .currency), FieldDescriptor(name: "Note", type: .string, size: 50)],
                     rows: [[.integer(1), .wide("Ann"), money(10), nil],
                            [.integer(2), .wide("Bob"), money(20), .ansiString("vip")],
                            [.integer(3), .wide("Cy"), money(30), nil]])
    }()

    static let loggedFields = [LoggedField(name: "ID", type: .integer), LoggedField(name: "Name", type: .wideString),
                               LoggedField(name: "Amount", type: .currency)]

    static func change(_ type: ChangeType, _ id: Int32, old: [Value?], new: [Value?], status: ChangeStatus = .pending) -> DeltaChange {
        DeltaChange(type: type, recordID: id, status: status, oldValues: old, newValues: new)
    }

    @Test func insertUpdateDeleteOnATableWithoutDelta() throws {
        var tracker = ChangeTracker(table: Self.orders, delta: nil)
        #expect(tracker.pendingDelta == nil, "no edit, no delta")
        try tracker.insert([.integer(4), .wide("Dee"), Self.money(40), nil])
        try tracker.update(at: 0, setting: [1: .wide("Anne")])
        try tracker.delete(at: 1)
        let expected = Delta(name: "Orders", loggedFields: Self.loggedFields, keyFields: ["ID"], reducedDeltaFlag: 0, changes: [
            Self.change(.insert, 1100, old: [nil, nil, nil], new: [.integer(4), .wide("Dee"), Self.money(40)]),
            Self.change(.update, 1101, old: [.integer(1), .wide("Ann"), Self.money(10)], new: [.integer(1), .wide("Anne"), Self.money(10)]),
            Self.change(.delete, 1102, old: [.integer(2), .wide("Bob"), Self.money(20)], new: [nil, nil, nil]),
        ])
        #expect(tracker.pendingDelta == expected)
        #expect(tracker.rows == [[.integer(1), .wide("Anne"), Self.money(10), nil],
                                 [.integer(3), .wide("Cy"), Self.money(30), nil],
                                 [.integer(4), .wide("Dee"), Self.money(40), nil]])
        #expect(tracker.table == Self.orders, "the stored rows never change")
        try tracker.verify()
        #expect(try tracker.position(ofKey: [.integer(4)]) == 2)
        #expect(try tracker.change(forRowAt: 0)?.recordID == 1101)
        #expect(try tracker.change(forRowAt: 1) == nil)
    }

    /// What `edit` of `tracker` is refused as: the kind, and the row and column the error names
    /// ("-" for none); nil when it is done.
    static func refusal(_ tracker: inout ChangeTracker, _ edit: (inout ChangeTracker) throws(ChangeTrackingError) -> Void) -> String? {
        do throws(ChangeTrackingError) { try edit(&tracker); return nil } catch {
            return "\(error.kind) row \(error.row.map(String.init) ?? "-") column \(error.column.map(String.init) ?? "-")"
        }
    }

    @Test func editsThatCannotBeLoggedAreRefusedAndChangeNothing() throws {
        var tracker = ChangeTracker(table: Self.orders, delta: nil)
        // Each refusal names its kind, its row (an insert: the row it would be, 3) and column.
        #expect(Self.refusal(&tracker) { (t) throws(ChangeTrackingError) in try t.update(at: 0, setting: [3: .ansiString("x")]) } == "notLogged row 0 column 3")
        #expect(Self.refusal(&tracker) { (t) throws(ChangeTrackingError) in try t.insert([.integer(5), nil, nil, .ansiString("x")]) } == "notLogged row 3 column 3")
        #expect(Self.refusal(&tracker) { (t) throws(ChangeTrackingError) in try t.insert([.wide("5"), nil, nil, nil]) } == "valueDoesNotFit row 3 column 0")
        #expect(Self.refusal(&tracker) { (t) throws(ChangeTrackingError) in try t.insert([.integer(1 << 40), nil, nil, nil]) } == "valueDoesNotFit row 3 column 0")
        #expect(Self.refusal(&tracker) { (t) throws(ChangeTrackingError) in try t.insert([.integer(5)]) } == "rowWidth row 3 column -")
        #expect(Self.refusal(&tracker) { (t) throws(ChangeTrackingError) in try t.update(at: 3, setting: [1: nil]) } == "noSuchRow row 3 column -")
        #expect(Self.refusal(&tracker) { (t) throws(ChangeTrackingError) in try t.delete(at: -1) } == "noSuchRow row -1 column -")
        #expect(Self.refusal(&tracker) { (t) throws(ChangeTrackingError) in _ = try t.position(ofKey: [.integer(9)]) } == "keyMatches row - column -")
        #expect(tracker.pendingDelta == nil)
        #expect(!tracker.hasEdits)
        #expect(tracker.rows == Self.orders.rows)
        // Unchanged values in an unlogged column are fine.
        try tracker.update(at: 1, to: [.integer(2), .wide("Bo"), Self.money(20), .ansiString("vip")])
        #expect(tracker.delta.changes == [Self.change(.update, 1100, old: [.integer(2), .wide("Bob"), Self.money(20)],
                                                      new: [.integer(2), .wide("Bo"), Self.money(20)])])
    }

    /// A delta that logs Name as an 8-bit string while the table's Name is wide (what the
    /// `sqlite` fuzz target made of a database): no change can carry Name's wide values, old or
    /// new, so updates, deletes and inserts of such values are refused and change nothing.
    @Test func valuesTheDeltaLogsAsAnotherTypeAreRefused() throws {
        let delta = Delta(name: "Orders", loggedFields: [LoggedField(name: "ID", type: .integer), LoggedField(name: "Name", type: .string),
                                                         LoggedField(name: "Amount", type: .currency)],
                          keyFields: ["ID"], reducedDeltaFlag: 0, changes: [])
        var tracker = ChangeTracker(table: Self.orders, delta: delta)
        // Each refusal names Name (column 1).
        #expect(Self.refusal(&tracker) { (t) throws(ChangeTrackingError) in try t.update(at: 0, setting: [2: Self.money(11)]) } == "valueDoesNotFit row 0 column 1",
                "the old Name, wide")
        #expect(Self.refusal(&tracker) { (t) throws(ChangeTrackingError) in try t.delete(at: 1) } == "valueDoesNotFit row 1 column 1")
        #expect(Self.refusal(&tracker) { (t) throws(ChangeTrackingError) in try t.insert([.integer(4), .wide("Dee"), Self.money(40), nil]) } == "valueDoesNotFit row 3 column 1")
        #expect(!tracker.hasEdits)
        #expect(tracker.rows == Self.orders.rows)
        try tracker.insert([.integer(4), nil, Self.money(40), nil])  // (a NULL Name fits any type)
        #expect(tracker.delta.changes == [Self.change(.insert, 1100, old: [nil, nil, nil], new: [.integer(4), nil, Self.money(40)])])
    }

    @Test func repeatedEditsOfOneRowKeepOneChange() throws {
        var tracker = ChangeTracker(table: Self.orders, delta: nil)
        try tracker.insert([.integer(4), .wide("Dee"), Self.money(40), nil])
        try tracker.update(at: 3, setting: [1: .wide("Di")])        // update after insert: still the insert
        #expect(tracker.delta.changes == [Self.change(.insert, 1100, old: [nil, nil, nil], new: [.integer(4), .wide("Di"), Self.money(40)])])
        try tracker.delete(at: 3)                                    // delete after insert: nothing left
        #expect(tracker.delta.changes.isEmpty)
        #expect(tracker.pendingDelta == nil)
        #expect(tracker.rows == Self.orders.rows)

        try tracker.update(at: 0, setting: [1: .wide("A1")])
        try tracker.update(at: 0, setting: [2: Self.money(11)])    // update after update: one update, old from before the first
        #expect(tracker.delta.changes == [Self.change(.update, 1101, old: [.integer(1), .wide("Ann"), Self.money(10)],
                                                      new: [.integer(1), .wide("A1"), Self.money(11)])], "record ids are not reused")
        try tracker.update(at: 0, setting: [1: .wide("Ann"), 2: Self.money(10)])  // back as stored: no change
        #expect(tracker.delta.changes.isEmpty)

        try tracker.update(at: 2, setting: [1: .wide("Cyd")])
        try tracker.delete(at: 2)                                    // delete after update: the old values from before the update
        #expect(tracker.delta.changes == [Self.change(.delete, 1102, old: [.integer(3), .wide("Cy"), Self.money(30)], new: [nil, nil, nil])])
        try tracker.verify()
    }

    /// `orders.bin2`'s delta: reduced, key ID, changes 1100–1102 (Spec/change-tracking.md §6).
    static let ordersTable = Table(name: "Orders", fields: [
        FieldDescriptor(name: "ID", type: .autoInc), FieldDescriptor(name: "Customer", type: .wideString, size: 100),
        FieldDescriptor(name: "Amount", type: .currency), FieldDescriptor(name: "Shipped", type: .dateTime),
    ], rows: [[.integer(1), .wide("Alice"), .currency(Currency(scaled: 125_000)), .dateTime(OLEDateTime(45000.5))],
              [.integer(2), .wide("Bob"), money(7), nil],
              [.integer(3), .wide("Carol"), money(100), .dateTime(OLEDateTime(45001))]])
    static let ordersLogged = [LoggedField(name: "ID", type: .autoInc), LoggedField(name: "Customer", type: .wideString),
                               LoggedField(name: "Amount", type: .currency), LoggedField(name: "Shipped", type: .dateTime)]
    static let ordersDelta = Delta(name: "Orders", loggedFields: ordersLogged, keyFields: ["ID"], reducedDeltaFlag: 1, changes: [
        change(.update, 1100, old: [.integer(2), nil, money(7), nil], new: [.integer(2), nil, money(8), .dateTime(OLEDateTime(45000.25))]),
        change(.delete, 1101, old: [.integer(3), .wide("Carol"), money(100), .dateTime(OLEDateTime(45001))], new: [nil, nil, nil, nil]),
        change(.insert, 1102, old: [nil, nil, nil, nil], new: [.integer(4), .wide("Dora"), money(5), nil]),
    ])

    @Test func editsOnTopOfAPendingReducedDelta() throws {
        var tracker = ChangeTracker(table: Self.ordersTable, delta: Self.ordersDelta)
        #expect(tracker.rows.map { $0[0] } == [.integer(1), .integer(2), .integer(4)])
        #expect(tracker.pendingDelta == Self.ordersDelta, "no edit: the delta as given")
        try tracker.update(at: 0, setting: [2: Self.money(13)])
        try tracker.update(at: 1, setting: [1: .wide("Bobby")])     // Bob's pending update 1100, brought up to date
        try tracker.update(at: 2, setting: [2: Self.money(6)])      // Dora's pending insert 1102
        try tracker.insert([.integer(5), .wide("Eve"), nil, nil])
        var expected = Self.ordersDelta
        expected.changes = [
            Self.change(.update, 1100, old: [.integer(2), .wide("Bob"), Self.money(7), nil],
                        new: [.integer(2), .wide("Bobby"), Self.money(8), .dateTime(OLEDateTime(45000.25))]),
            Self.ordersDelta.changes[1],
            Self.change(.insert, 1102, old: [nil, nil, nil, nil], new: [.integer(4), .wide("Dora"), Self.money(6), nil]),
            Self.change(.update, 1103, old: [.integer(1), nil, .currency(Currency(scaled: 125_000)), nil],
                        new: [.integer(1), nil, Self.money(13), nil]),
            Self.change(.insert, 1104, old: [nil, nil, nil, nil], new: [.integer(5), .wide("Eve"), nil, nil]),
        ]
        #expect(tracker.delta == expected)
        try tracker.verify()

        // A reduced delta cannot say "now NULL": refused, nothing changed.
        #expect(throws: ChangeTrackingError(.nullInReducedDelta, "field 'Shipped' cannot be set to NULL in a reduced delta (an absent new value means unchanged)",
                                            row: 0, column: 3)) {
            try tracker.update(at: 0, setting: [3: nil])
        }
        #expect(tracker.delta == expected)
        try tracker.delete(at: 2)                                    // Dora's pending insert goes
        #expect(tracker.delta.changes.map(\.recordID) == [1100, 1101, 1103, 1104])
        try tracker.verify()
    }

    @Test func aKeylessReducedUpdateCarriesEveryOldValue() throws {
        let table = Table(name: "T", fields: [FieldDescriptor(name: "A", type: .integer), FieldDescriptor(name: "B", type: .integer),
                                              FieldDescriptor(name: "C", type: .integer)],
                          rows: [[.integer(1), nil, .integer(3)], [.integer(1), .integer(2), .integer(4)]])
        var tracker = ChangeTracker(table: table, delta: nil, reducedDelta: true)
        try tracker.update(at: 0, setting: [1: .integer(9)])
        let logged = ["A", "B", "C"].map { LoggedField(name: ByteString(utf8: $0), type: .integer) }
        #expect(tracker.pendingDelta == Delta(name: "T", loggedFields: logged, keyFields: [], reducedDeltaFlag: 1, changes: [
            Self.change(.update, 1100, old: [.integer(1), nil, .integer(3)], new: [nil, .integer(9), nil]),
        ]))
        try tracker.verify()
    }

    @Test func recordIDsFollowTheHighestAndResolvedChangesAreNotMerged() throws {
        var delta = Self.ordersDelta
        delta.changes[0].recordID = 1500
        delta.changes[0].status = .resolved
        delta.changes[1].recordID = 1200
        var tracker = ChangeTracker(table: Self.ordersTable, delta: delta)
        try tracker.update(at: 1, setting: [1: .wide("Bobby")])     // Bob's change is resolved: a new one
        #expect(tracker.delta.changes.count == 4)
        #expect(tracker.delta.changes[3] == Self.change(.update, 1501, old: [.integer(2), .wide("Bob"), nil, nil],
                                                        new: [.integer(2), .wide("Bobby"), nil, nil]))
        try tracker.verify()

        delta.changes[1].recordID = .max
        var full = ChangeTracker(table: Self.ordersTable, delta: delta)
        let exhausted = try #require(throws: ChangeTrackingError.self) { try full.insert([.integer(9), nil, nil, nil]) }
        #expect(exhausted.kind == .recordIDsExhausted && exhausted.row == nil && exhausted.column == nil, "\(exhausted)")
        #expect(full.delta == delta)
    }

    @Test func aDeltaWithoutCountsIsWrittenInFullOnceEdited() throws {
        let empty = Delta(name: "Orders", loggedFields: Self.ordersLogged, keyFields: ["ID"], layout: .countOnly)
        var tracker = ChangeTracker(table: Self.ordersTable, delta: empty)
        #expect(tracker.pendingDelta == empty)
        try tracker.delete(at: 0)
        #expect(tracker.delta.layout == .full)
        #expect(tracker.delta.changes == [Self.change(.delete, 1100, old: Self.ordersTable.rows[0], new: [nil, nil, nil, nil])])
    }

    @Test func verifyFindsAChangeThatCannotFindItsRow() throws {
        let table = Table(name: "T", fields: [FieldDescriptor(name: "A", type: .integer)], rows: [[.integer(1)], [.integer(1)]])
        var tracker = ChangeTracker(table: table, delta: nil)
        try tracker.update(at: 1, to: [.integer(2)])
        #expect(tracker.rows == [[.integer(1)], [.integer(2)]])
        // Replayed, the update's old values (A = 1) match both rows, so it is not applied: the
        // replayed rows differ from the edited ones at row 1.
        let error = try #require(throws: ChangeTrackingError.self) { try tracker.verify() }
        #expect(error.kind == .notReplayable && error.row == 1 && error.message.contains("update matches 2 rows"), "\(error)")
        #expect((try? tracker.position(ofKey: [.integer(1)])) == nil, "no key")
    }
}
