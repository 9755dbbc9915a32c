import Testing
import BriefcaseKit
@testable import BriefcaseMerge

/// `BriefcaseApply` against results written by hand (Spec/fold.md §5): changes recorded after the
/// target's own, conflicts judged against the target's current rows.
struct ApplyTests {
    typealias Fold = FoldTests

    /// A briefcase of Orders (rows 1 One, 2 Two, 3 Three) with `own` as its pending delta.
    static func target(_ own: Delta?) -> BriefcaseDocument {
        let elements: [Element] = (own.map { [Element.delta($0)] } ?? []) + [.table(Fold.orders())]
        return BriefcaseDocument(container: .dabriefcase, file: BriefcaseFile(stream: Bin2Stream(elements: elements)))
    }

    static func changes(_ deltas: Delta...) -> BriefcaseDocument {
        BriefcaseDocument(container: .bin2, file: BriefcaseFile(stream: Bin2Stream(elements: deltas.map(Element.delta))))
    }

    /// The target's Orders after `result`: its stored rows, its delta, and the rows the delta leaves.
    static func orders(_ result: BriefcaseApply.Result) throws -> (stored: [Row], delta: Delta, current: [Row]) {
        let stream = result.document.file.stream
        let table = try #require(stream.tables.first), delta = try #require(stream.deltas.first)
        return (table.rows.array, delta, table.applying(delta).rows)
    }

    /// The target renamed 1 (its own change); the changes rename 3, delete 2 and insert 4: the
    /// stored rows stay, the own change comes first, and the delta leaves 1 Uno, 3 Drei, 4 Four.
    @Test func changesAreRecordedAfterTheTargetsOwn() throws {
        let own = Fold.delta([Fold.update(1, "One", "Uno")])
        let result = try BriefcaseApply.apply(Self.changes(Fold.delta([Fold.update(3, "Three", "Drei"), Fold.delete(2, "Two"), Fold.insert(4, "Four")])),
                                              to: Self.target(own))
        #expect(result.conflicts.isEmpty)
        let orders = try Self.orders(result)
        #expect(orders.stored == Fold.expected("1 One", "2 Two", "3 Three"))
        #expect(orders.current == Fold.expected("1 Uno", "3 Drei", "4 Four"))
        #expect(orders.delta.changes.first == own.changes.first)
        #expect(orders.delta.changes.count == 4)
        #expect(Set(orders.delta.changes.map(\.recordID)).count == 4)
    }

    /// Without a delta of its own, the target gets one, just before its table.
    @Test func aTableWithoutADeltaGetsOne() throws {
        let result = try BriefcaseApply.apply(Self.changes(Fold.delta([Fold.delete(2, "Two")])), to: Self.target(nil))
        #expect(result.document.file.stream.elements.map(\.kind) == [.delta, .table])
        #expect(try Self.orders(result).current == Fold.expected("1 One", "3 Three"))
    }

    /// Conflicts are judged against the current rows: 2 is deleted by the target's own change
    /// (NOTFOUND), 1 was renamed Uno (DATA for a change expecting One), 3 exists (CONFLICT); a
    /// delta of a table the target lacks is NOTFOUND throughout.
    @Test func conflictsAgainstTheCurrentRows() throws {
        let own = Fold.delta([Fold.update(1, "One", "Uno"), Fold.delete(2, "Two")])
        let archive = Delta(name: "Archive", loggedFields: Fold.logged, reducedDeltaFlag: 0, changes: [Fold.insert(1, "One")])
        let changes = Self.changes(Fold.delta([Fold.update(2, "Two", "Zwei"), Fold.update(1, "One", "Eins"), Fold.insert(3, "Trois")]), archive)
        let omitted = try BriefcaseApply.apply(changes, to: Self.target(own), onConflict: .omit)
        #expect(omitted.conflicts.map { "\($0.kind.rawValue) \($0.table) \($0.changeIndex)" }
                == ["NOTFOUND Orders 0", "DATA Orders 1", "CONFLICT Orders 2", "NOTFOUND Archive 0"])
        #expect(try Self.orders(omitted).current == Fold.expected("1 Uno", "3 Three"))
        let replaced = try BriefcaseApply.apply(changes, to: Self.target(own), onConflict: .replace)
        #expect(try Self.orders(replaced).current == Fold.expected("1 Eins", "3 Trois"))
    }

    /// A value the target's field cannot hold is an error naming the table.
    @Test func aValueThatDoesNotFitIsAnError() throws {
        let wide = DeltaChange(type: .insert, recordID: 1, oldValues: [nil, nil], newValues: [.wide("5"), .wide("Five")])
        let error = try #require(throws: BriefcaseError.self) {
            try BriefcaseApply.apply(Self.changes(Fold.delta([wide])), to: Self.target(nil))
        }
        #expect(error.kind == .invalidModel && error.message.hasPrefix("table 'Orders': "))
    }
}
