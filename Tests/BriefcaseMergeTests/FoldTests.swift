import Testing
import BriefcaseKit
@testable import BriefcaseMerge

/// `BriefcaseFold` against results written by hand (Spec/fold.md): the rows each change leaves,
/// each conflict class, and what each resolution does with it.
struct FoldTests {
    static let id = FieldDescriptor(name: "ID", type: .integer)
    static let name = FieldDescriptor(name: "Name", type: .wideString, size: 20)
    static let logged = [LoggedField(name: "ID", type: .integer), LoggedField(name: "Name", type: .wideString)]

    /// Orders (ID key, Name): rows 1 One, 2 Two, 3 Three.
    static func orders(keyed: Bool = true, rows: [Row]? = nil) -> Table {
        let schema = Schema(fieldPropertyCount: 2, fields: [[SchemaProperty("Name", "ID"), SchemaProperty("InPrimaryKey", keyed ? "True" : "False")],
                                                            [SchemaProperty("Name", "Name"), SchemaProperty("InPrimaryKey", "False")]])
        return Table(name: "Orders", schema: schema, fields: [id, name],
                     rows: rows ?? [[.integer(1), .wide("One")], [.integer(2), .wide("Two")], [.integer(3), .wide("Three")]])
    }

    static func delta(_ changes: [DeltaChange], reduced: Bool = false) -> Delta {
        Delta(name: "Orders", loggedFields: logged, keyFields: ["ID"], reducedDeltaFlag: reduced ? 1 : 0, changes: changes)
    }

    static func update(_ id: Int64, _ old: String?, _ new: String?) -> DeltaChange {
        DeltaChange(type: .update, recordID: Int32(id), oldValues: [.integer(id), old.map(Value.wide)], newValues: [.integer(id), new.map(Value.wide)])
    }

    static func insert(_ id: Int64, _ name: String) -> DeltaChange {
        DeltaChange(type: .insert, recordID: Int32(100 + id), oldValues: [nil, nil], newValues: [.integer(id), .wide(name)])
    }

    static func delete(_ id: Int64, _ name: String?) -> DeltaChange {
        DeltaChange(type: .delete, recordID: Int32(200 + id), oldValues: [.integer(id), name.map(Value.wide)], newValues: [nil, nil])
    }

    /// A document of Orders with `delta` (before it, as .NET writes), a table without one, and a
    /// property.
    static func document(_ delta: Delta, table: Table = orders()) -> BriefcaseDocument {
        let plain = Table(name: "Plain", fields: [id], rows: [[.integer(7)]])
        return BriefcaseDocument(container: .dabriefcase, file: BriefcaseFile(properties: [BriefcaseProperty(name: "P", value: "v")],
                                                                                stream: Bin2Stream(elements: [.delta(delta), .table(table), .table(plain)])))
    }

    /// The rows of the folded Orders.
    static func rows(_ result: BriefcaseFold.Result) throws -> [Row] {
        try #require(result.document.file.stream.tables.first { $0.name == "Orders" }).rows.array
    }

    /// Rows written as `"1 One"`: an ID and a Name.
    static func expected(_ rows: String...) -> [Row] {
        rows.map { row in
            let parts = row.split(separator: " ")
            return [.integer(Int64(parts[0])!), .wide(String(parts[1]))]
        }
    }

    static func kinds(_ result: BriefcaseFold.Result) -> [String] {
        result.conflicts.map { "\($0.kind.rawValue) \($0.changeIndex)" }
    }

    /// Changes that fit: 1 renamed, 2 deleted, 4 inserted; the delta is gone, the rest is as it was.
    @Test func changesThatFitBecomeTheStoredRows() throws {
        let document = Self.document(Self.delta([Self.update(1, "One", "Uno"), Self.delete(2, "Two"), Self.insert(4, "Four")]))
        let result = BriefcaseFold.fold(document)
        #expect(result.conflicts.isEmpty && result.notes.isEmpty)
        #expect(try Self.rows(result) == Self.expected("1 Uno", "3 Three", "4 Four"))
        #expect(result.document.file.stream.deltas.isEmpty)
        #expect(result.document.file.stream.elements.count == 2)
        #expect(result.document.file.stream.tables.last == document.file.stream.tables.last)
        #expect(result.document.file.properties == document.file.properties)
        // A briefcase without pending changes folds to itself.
        var plain = document
        plain.file.stream.elements.removeFirst()
        #expect(BriefcaseFold.fold(plain).document == plain)
    }

    /// DATA: the row holds "Eins", not the change's old "One"; a delete whose old Name differs.
    @Test func dataConflicts() throws {
        let document = Self.document(Self.delta([Self.update(1, "Eins", "Uno"), Self.delete(2, "Zwei")]))
        let omitted = BriefcaseFold.fold(document, onConflict: .omit)
        #expect(Self.kinds(omitted) == ["DATA 0", "DATA 1"])
        #expect(omitted.conflicts.first?.row == [.integer(1), .wide("One")])
        #expect(try Self.rows(omitted) == Self.expected("1 One", "2 Two", "3 Three"))
        #expect(Self.kinds(BriefcaseFold.fold(document, onConflict: .abort)) == ["DATA 0", "DATA 1"])
        let replaced = BriefcaseFold.fold(document, onConflict: .replace)
        #expect(Self.kinds(replaced) == ["DATA 0", "DATA 1"])
        #expect(try Self.rows(replaced) == Self.expected("1 Uno", "3 Three"))
        // A field the update leaves as it was is not compared: old "Eins" = new "Eins".
        #expect(BriefcaseFold.fold(Self.document(Self.delta([Self.update(1, "Eins", "Eins")]))).conflicts.isEmpty)
    }

    /// NOTFOUND: no row 9 to update or delete; replace has nothing to replace either.
    @Test func notFoundConflicts() throws {
        let document = Self.document(Self.delta([Self.update(9, "Nine", "Neun"), Self.delete(9, "Nine"), Self.update(1, "One", "Uno")]))
        for resolution in [ConflictResolution.omit, .replace] {
            let result = BriefcaseFold.fold(document, onConflict: resolution)
            #expect(Self.kinds(result) == ["NOTFOUND 0", "NOTFOUND 1"])
            #expect(try Self.rows(result) == Self.expected("1 Uno", "2 Two", "3 Three"))
        }
    }

    /// CONFLICT: row 2 exists; omitted, it stays; replaced, the insert takes its place at the end.
    @Test func insertConflicts() throws {
        let document = Self.document(Self.delta([Self.insert(2, "Deux")]))
        let omitted = BriefcaseFold.fold(document, onConflict: .omit)
        #expect(Self.kinds(omitted) == ["CONFLICT 0"])
        #expect(omitted.conflicts.first?.row == [.integer(2), .wide("Two")])
        #expect(try Self.rows(omitted) == Self.expected("1 One", "2 Two", "3 Three"))
        #expect(try Self.rows(BriefcaseFold.fold(document, onConflict: .replace)) == Self.expected("1 One", "3 Three", "2 Deux"))
    }

    /// Without a key, a change finds its row by its old values: two equal rows are no single row.
    @Test func keylessTwinsAreNotFound() throws {
        let twins = Self.orders(keyed: false, rows: [[.integer(1), .wide("One")], [.integer(1), .wide("One")]])
        let delta = Delta(name: "Orders", loggedFields: Self.logged, reducedDeltaFlag: 0, changes: [Self.delete(1, "One")])
        let result = BriefcaseFold.fold(Self.document(delta, table: twins), onConflict: .omit)
        #expect(Self.kinds(result) == ["NOTFOUND 0"])
        #expect(try Self.rows(result) == Self.expected("1 One", "1 One"))
    }

    /// A delta without a table: each change is NOTFOUND; with omit the delta is gone.
    @Test func aDeltaWithoutATable() {
        let archive = Delta(name: "Archive", loggedFields: Self.logged, reducedDeltaFlag: 0, changes: [Self.insert(1, "One")])
        let document = BriefcaseDocument(container: .dabriefcase, file: BriefcaseFile(stream: Bin2Stream(elements: [.delta(archive)])))
        let result = BriefcaseFold.fold(document, onConflict: .omit)
        #expect(Self.kinds(result) == ["NOTFOUND 0"])
        #expect(result.conflicts.first?.table == "Archive")
        #expect(result.document.file.stream.elements.isEmpty)
    }
}
