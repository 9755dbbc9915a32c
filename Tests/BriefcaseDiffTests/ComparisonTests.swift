import Testing
import BriefcaseKit
@testable import BriefcaseDiff

/// `BriefcaseComparison` against differences written by hand (Spec/diff.md).
struct ComparisonTests {
    static let id = FieldDescriptor(name: "ID", type: .integer)
    static let name = FieldDescriptor(name: "Name", type: .wideString, size: 20)
    static let price = FieldDescriptor(name: "Price", type: .float)

    /// A schema marking `keys` (by field position) InPrimaryKey.
    static func schema(_ fields: [FieldDescriptor], keys: Set<Int>) -> Schema {
        Schema(fieldPropertyCount: 2, fields: fields.indices.map { i in
            [SchemaProperty("Name", String(decoding: fields[i].name.bytes, as: UTF8.self)),
             SchemaProperty("InPrimaryKey", keys.contains(i) ? "True" : "False")]
        })
    }

    static func orders(_ rows: [Row], fields: [FieldDescriptor] = [id, name, price], keys: Set<Int> = [0]) -> Table {
        Table(name: "Orders", schema: schema(fields, keys: keys), fields: fields, rows: rows)
    }

    static func document(_ elements: [Element], properties: [BriefcaseProperty] = []) -> BriefcaseDocument {
        BriefcaseDocument(container: .dabriefcase, file: BriefcaseFile(properties: properties, stream: Bin2Stream(elements: elements)))
    }

    static func row(_ id: Int64, _ name: String?, _ price: Double?) -> Row {
        [.integer(id), name.map(Value.wide), price.map(Value.float)]
    }

    /// The kinds and keys of the row differences, as `kind key` strings.
    static func rows(_ differences: [BriefcaseDifference]) -> [String] {
        differences.compactMap { difference in
            guard case .row(let row) = difference else { return nil }
            let key = row.key.map { value -> String in
                if case .integer(let i)? = value { return String(i) }
                return "\(String(describing: value))"
            }
            return "\(row.kind.rawValue) \(key.joined(separator: ",")) \(row.changedFields.map { String(decoding: $0.bytes, as: UTF8.self) })"
        }
    }

    @Test func aBriefcaseHasNoDifferenceWithItself() {
        let a = Self.document([.table(Self.orders([Self.row(1, "One", 1.5), Self.row(2, nil, .nan)]))],
                              properties: [BriefcaseProperty(name: "P", value: "v")])
        #expect(BriefcaseComparison.differences(a, a).isEmpty)
        #expect(BriefcaseComparison.differences(a, a, options: DiffOptions(current: true)).isEmpty)
    }

    /// Rows paired by key: 1 changed (Name), 2 removed, 3 kept, 4 added; a row whose key changed
    /// (5 → 6) is a removal and an addition.
    @Test func keyedRowsAddedRemovedChanged() throws {
        let a = Self.document([.table(Self.orders([Self.row(1, "One", 1), Self.row(2, "Two", 2), Self.row(3, "Three", 3), Self.row(5, "Five", 5)]))])
        let b = Self.document([.table(Self.orders([Self.row(3, "Three", 3), Self.row(1, "Uno", 1), Self.row(4, "Four", 4), Self.row(6, "Five", 5)]))])
        let differences = BriefcaseComparison.differences(a, b)
        #expect(Self.rows(differences) == ["changed 1 [\"Name\"]", "removed 2 []", "removed 5 []", "added 4 []", "added 6 []"])
        guard case .row(let changed)? = differences.first else { Issue.record("a row first"); return }
        #expect(changed.old?[1] == .wide("One") && changed.new?[1] == .wide("Uno"))
        #expect(changed.keyFields == ["ID"])
        try BriefcaseTablesTests.expectTheSameFromFiles(a, b)
    }

    /// Values compare bit for bit: NaN equals the same NaN, −0.0 differs from 0.0, NULL from 0.
    @Test func floatsAndNullsCompareExactly() throws {
        let a = Self.document([.table(Self.orders([Self.row(1, "a", .nan), Self.row(2, "b", 0.0), Self.row(3, "c", nil)]))])
        let b = Self.document([.table(Self.orders([Self.row(1, "a", .nan), Self.row(2, "b", -0.0), Self.row(3, "c", 0)]))])
        #expect(Self.rows(BriefcaseComparison.differences(a, b)) == ["changed 2 [\"Price\"]", "changed 3 [\"Price\"]"])
        try BriefcaseTablesTests.expectTheSameFromFiles(a, b)
    }

    /// A keyless table is a multiset of whole rows: a duplicate removed once is one removal; by
    /// position, row i with row i.
    @Test func keylessRowsAsAMultisetOrByPosition() throws {
        let a = Self.document([.table(Self.orders([Self.row(1, "x", 1), Self.row(1, "x", 1), Self.row(2, "y", 2)], keys: []))])
        let b = Self.document([.table(Self.orders([Self.row(2, "y", 2), Self.row(1, "x", 1), Self.row(3, "z", 3)], keys: []))])
        #expect(Self.rows(BriefcaseComparison.differences(a, b)) == ["removed  []", "added  []"])
        let byPosition = BriefcaseComparison.differences(a, b, options: DiffOptions(byPosition: true))
        #expect(Self.rows(byPosition) == ["changed  [\"ID\", \"Name\", \"Price\"]", "changed  [\"ID\", \"Name\", \"Price\"]"])
        #expect(byPosition.compactMap { if case .row(let r) = $0 { r.position } else { nil } } == [0, 2])
        try BriefcaseTablesTests.expectTheSameFromFiles(a, b)
        try BriefcaseTablesTests.expectTheSameFromFiles(a, b, options: DiffOptions(byPosition: true))
    }

    /// Fields added, removed, retyped and re-keyed; ignored fields are not compared.
    @Test func fieldsAndIgnoredFields() throws {
        let note = FieldDescriptor(name: "Note", type: .string, size: 10)
        let a = Self.document([.table(Self.orders([Self.row(1, "One", 1)], fields: [Self.id, Self.name, Self.price]))])
        let b = Self.document([.table(Self.orders([[.integer(1), .wide("Uno"), .integer(1), nil]],
                                                  fields: [Self.id, Self.name, FieldDescriptor(name: "price", type: .integer), note], keys: [0, 1]))])
        let differences = BriefcaseComparison.differences(a, b, options: DiffOptions(ignoredFields: ["name"]))
        let fields = differences.compactMap { difference -> String? in
            guard case .field(let f) = difference else { return nil }
            return "\(f.kind.rawValue) \(String(decoding: f.name.bytes, as: UTF8.self))"
        }
        #expect(fields == ["changed Name", "changed Price", "added Note"])
        // Name ignored, Price's value 1.0 (float) against 1 (integer): different kinds of value.
        #expect(Self.rows(differences) == ["changed 1 [\"Price\"]"])
        try BriefcaseTablesTests.expectTheSameFromFiles(a, b, options: DiffOptions(ignoredFields: ["name"]))
    }

    @Test func propertiesAndTables() throws {
        let customers = Table(name: "Customers", fields: [Self.id], rows: [[.integer(1)]])
        let a = Self.document([.table(Self.orders([]))], properties: [BriefcaseProperty(name: "Kept", value: "1"),
                                                                      BriefcaseProperty(name: "Changed", value: "a"),
                                                                      BriefcaseProperty(name: "Gone", value: "x")])
        let b = Self.document([.table(customers), .table(Table(name: "ORDERS", schema: Self.schema([Self.id, Self.name, Self.price], keys: [0]),
                                                               fields: [Self.id, Self.name, Self.price]))],
                              properties: [BriefcaseProperty(name: "Changed", value: "b"), BriefcaseProperty(name: "Kept", value: "1"),
                                           BriefcaseProperty(name: "New", value: "n")])
        #expect(BriefcaseComparison.differences(a, b) == [
            .property(name: "Changed", old: "a", new: "b"),
            .property(name: "Gone", old: "x", new: nil),
            .property(name: "New", old: nil, new: "n"),
            .table(name: "Customers", kind: .added),
        ])
        #expect(BriefcaseComparison.differences(a, b, options: DiffOptions(tables: ["orders"], ignoredProperties: ["Changed", "Gone", "New"])).isEmpty)
        try BriefcaseTablesTests.expectTheSameFromFiles(a, b)
        try BriefcaseTablesTests.expectTheSameFromFiles(a, b, options: DiffOptions(tables: ["orders"], ignoredProperties: ["Changed", "Gone", "New"]))
    }

    /// Pending changes paired by record id: 1101 changed (new value), 1102 removed, 1103 added.
    /// With `current`, the rows with the changes applied are compared instead.
    @Test func pendingChangesByRecordID() throws {
        let logged = [LoggedField(name: "ID", type: .integer), LoggedField(name: "Name", type: .wideString)]
        func delta(_ changes: [DeltaChange]) -> Element {
            .delta(Delta(name: "Orders", loggedFields: logged, keyFields: ["ID"], reducedDeltaFlag: 0, changes: changes))
        }
        let table = Element.table(Self.orders([Self.row(1, "One", 1), Self.row(2, "Two", 2)]))
        let update = { (name: String) in DeltaChange(type: .update, recordID: 1101, oldValues: [.integer(1), .wide("One")], newValues: [.integer(1), .wide(name)]) }
        let delete = DeltaChange(type: .delete, recordID: 1102, oldValues: [.integer(2), .wide("Two")], newValues: [nil, nil])
        let insert = DeltaChange(type: .insert, recordID: 1103, oldValues: [nil, nil], newValues: [.integer(3), .wide("Three")])
        let a = Self.document([table, delta([update("Uno"), delete])])
        let b = Self.document([table, delta([update("Eins"), insert])])
        let changes = BriefcaseComparison.differences(a, b).compactMap { difference -> String? in
            guard case .change(let c) = difference else { return nil }
            return "\(c.kind.rawValue) \(c.recordID)"
        }
        #expect(changes == ["changed 1101", "removed 1102", "added 1103"])
        // Current rows: A has 1 Uno (2 deleted), B has 1 Eins, 2 Two, 3 Three.
        #expect(Self.rows(BriefcaseComparison.differences(a, b, options: DiffOptions(current: true)))
                == ["changed 1 [\"Name\"]", "added 2 []", "added 3 []"])
        try BriefcaseTablesTests.expectTheSameFromFiles(a, b)
        try BriefcaseTablesTests.expectTheSameFromFiles(a, b, options: DiffOptions(current: true))
    }

    /// Blobs and 8-bit text compare their bytes, whatever the code page would show: GBK's 你 in
    /// both is the same, a blob's last byte changed is a change, an empty blob is not NULL.
    @Test func blobsAndEightBitTextCompareTheirBytes() throws {
        let fields = [Self.id, FieldDescriptor(name: "Data", type: .blob), FieldDescriptor(name: "Text", type: .string, size: 10)]
        func row(_ id: Int64, _ data: [UInt8]?, _ text: [UInt8]) -> Row {
            [.integer(id), data.map { .blob(ByteString($0)) }, .ansiString(ByteString(text))]
        }
        let a = Self.document([.table(Self.orders([row(1, [0, 1, 2], [0xC4, 0xE3]), row(2, [], [0x78]), row(3, nil, [0x78])], fields: fields))])
        let b = Self.document([.table(Self.orders([row(1, [0, 1, 3], [0xC4, 0xE3]), row(2, [], [0x78]), row(3, [], [0x78])], fields: fields))])
        #expect(Self.rows(BriefcaseComparison.differences(a, b)) == ["changed 1 [\"Data\"]", "changed 3 [\"Data\"]"])
        try BriefcaseTablesTests.expectTheSameFromFiles(a, b)
    }

    /// Two fields of one name (found by fuzzing: `Fixtures/regressions/diff/`): the k-th of a
    /// name is compared with the k-th, so a table equals itself and a change in the second field
    /// of the name is told as that field's.
    @Test func fieldsOfOneNamePairInOrder() {
        let fields = [Self.id, FieldDescriptor(name: "C", type: .integer), FieldDescriptor(name: "C", type: .integer)]
        let keyless = Self.document([.table(Self.orders([[.integer(1), .integer(2), .integer(3)]], fields: fields, keys: []))])
        #expect(BriefcaseComparison.differences(keyless, keyless).isEmpty)
        let a = Self.document([.table(Self.orders([[.integer(1), .integer(2), .integer(3)]], fields: fields))])
        let b = Self.document([.table(Self.orders([[.integer(1), .integer(2), .integer(4)]], fields: fields))])
        let differences = BriefcaseComparison.differences(a, b)
        guard case .row(let row)? = differences.first, differences.count == 1 else { Issue.record("one row: \(differences)"); return }
        #expect(row.changedColumns == [ColumnPair(old: 2, new: 2)])
    }
}
