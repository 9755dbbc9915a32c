import Testing
@testable import BriefcaseKit

/// `ElementPairing` (Spec/bin2.md §8.10): the k-th table of a name and the k-th delta of that
/// name go together, names without ASCII case. Pairs written out by hand.
struct ElementPairingTests {
    static func pairs(_ elements: [(ElementKind, String)]) -> [Int?] {
        ElementPairing(kinds: elements.map(\.0), names: elements.map { ByteString(utf8: $0.1) }).partner
    }

    @Test func theKthTableTakesTheKthDelta() {
        // .NET's order (delta first), twice, names alike but for case.
        #expect(Self.pairs([(.delta, "Orders"), (.table, "ORDERS"), (.delta, "orders"), (.table, "Orders")]) == [1, 0, 3, 2])
        // Two tables, then their deltas: the first delta is the first table's.
        #expect(Self.pairs([(.table, "A"), (.table, "a"), (.delta, "a"), (.delta, "A")]) == [2, 3, 0, 1])
        // One delta for two tables: the first table's; the second table has none.
        #expect(Self.pairs([(.table, "T"), (.table, "t"), (.delta, "T")]) == [2, nil, 0])
        // A delta without a table of its name, a table without a delta, other names apart.
        #expect(Self.pairs([(.delta, "X"), (.table, "Y"), (.delta, "Ä"), (.table, "ä")]) == [nil, nil, nil, nil])
        #expect(Self.pairs([]) == [])
    }

    /// Element by element: `add` says which earlier element an element completes.
    @Test func addTellsThePartnerThatCameBefore() {
        var pairing = ElementPairing()
        #expect(pairing.add(.table, named: "A") == nil)
        #expect(pairing.add(.delta, named: "B") == nil)
        #expect(pairing.add(.delta, named: "a") == 0)
        #expect(pairing.add(.table, named: "b") == 1)
        #expect(pairing.add(.table, named: "A") == nil)
        #expect(pairing.partner == [2, 3, 0, 1, nil])
    }

    /// The lazy `Briefcase` groups elements into tables by the same rule.
    @Test func theLazyBriefcaseGroupsByIt() {
        let elements: [Element] = [.table(Table(name: "A", fields: [])), .table(Table(name: "a", fields: [])),
                                   .delta(Delta(name: "A", loggedFields: [], reducedDeltaFlag: 0)), .delta(Delta(name: "a", loggedFields: [], reducedDeltaFlag: 0))]
        let groups = Briefcase.Entry.group(elements)
        #expect(groups.map { $0.dataset?.name } == [ByteString(utf8: "A"), ByteString(utf8: "a")])
        #expect(groups.map { $0.delta?.name } == [ByteString(utf8: "A"), ByteString(utf8: "a")])
    }
}
