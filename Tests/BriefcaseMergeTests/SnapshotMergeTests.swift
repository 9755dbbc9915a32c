import Testing
import BriefcaseKit
import BriefcaseTestSupport
import DatastoreKit
import JSONCore
@testable import BriefcaseMerge

/// `SnapshotMerge` against merges worked out by hand from the Datastore's resolution rules
/// (`../shared/reference/datastore-format.md` §7; Spec/merge.md §5), the published rule examples
/// among them.
struct SnapshotMergeTests {
    /// Tasks t1 (title, tags, n), t2 (title), t3 (title), at revision 5.
    static let rows = """
        {"tid":"tasks","rowid":"t1","data":{"title":"Milk","tags":["a","b","c"],"n":{"I":"10"}}},
        {"tid":"tasks","rowid":"t2","data":{"title":"Call"}},
        {"tid":"tasks","rowid":"t3","data":{"title":"Pay"}}
        """

    /// A document of `rows` at revision 5 with one pending delta of `changes` (none: no deltas).
    static func document(_ changes: String? = nil, rows: String = rows) throws -> SnapshotDocument {
        let deltas = changes.map { ", \"deltas\": [{\"rev\": 5, \"nonce\": \"n\", \"changes\": [\($0)]}]" } ?? ""
        return try SnapshotDocument(parsing: "{\"rev\": 5, \"rows\": [\(rows)]\(deltas)}")
    }

    static func merge(local: String?, remote: String?, rules: ThreeWayMerge.Rules = ThreeWayMerge.Rules(),
                      base: SnapshotDocument? = nil) throws -> SnapshotMerge.Result {
        try SnapshotMerge.merge(base: base ?? document(), local: document(local), remote: document(remote), rules: rules)
    }

    /// The merged records: the output's rows with its deltas applied.
    static func records(_ result: SnapshotMerge.Result) throws -> DatastoreSnapshot {
        var records = try result.document.appliedSnapshot()
        records.rev = 0
        return records
    }

    static func record(_ result: SnapshotMerge.Result, _ id: String) throws -> DatastoreRecord? {
        try records(result)["tasks", id]
    }

    static func rules(_ rule: MergeRule, _ field: String = "n") -> ThreeWayMerge.Rules {
        ThreeWayMerge.Rules(byField: [(ByteString(utf8: "tasks"), ByteString(utf8: field), rule)])
    }

    // MARK: the output

    @Test func theOutputIsBaseWithOneDeltaMore() throws {
        let result = try Self.merge(local: #"["U","tasks","t2",{"title":["P","Call mum"]}]"#,
                                    remote: #"["D","tasks","t3"]"#)
        #expect(result.document.snapshot == (try Self.document()).snapshot)
        let deltas = try #require(result.document.deltas)
        #expect(deltas.count == 1 && deltas[0].rev == 5)
        // REMOTE's changes first, then LOCAL's made to follow them.
        #expect(deltas[0].changes == [.delete(tableID: "tasks", recordID: "t3"),
                                      .update(tableID: "tasks", recordID: "t2", updates: [FieldUpdate("title", .put("Call mum"))])])
        // The nonce is made of the delta, so merging again gives the same bytes.
        let again = try Self.merge(local: #"["U","tasks","t2",{"title":["P","Call mum"]}]"#, remote: #"["D","tasks","t3"]"#)
        #expect(deltas[0].nonce.count == 10 && again.document.deltas?[0].nonce == deltas[0].nonce)
        #expect(result.conflicts.isEmpty)
        // Written and read back: a valid document.
        let text = try result.document.serialized()
        #expect(try SnapshotDocument(parsing: text) == result.document)
    }

    @Test func asStoredHoldsTheMergedRecordsOneRevisionOn() throws {
        let merged = try Self.merge(local: #"["U","tasks","t2",{"title":["P","Call mum"]}]"#, remote: #"["D","tasks","t3"]"#)
        let stored = try SnapshotMerge.merge(base: Self.document(), local: Self.document(#"["U","tasks","t2",{"title":["P","Call mum"]}]"#),
                                             remote: Self.document(#"["D","tasks","t3"]"#), asStored: true)
        #expect(stored.document.deltas == nil)
        #expect(stored.document.snapshot.rev == 6)
        #expect(stored.document.snapshot == (try merged.document.appliedSnapshot()))
        #expect(stored.document.snapshot["tasks", "t2"] == ["title": "Call mum"])
        #expect(!stored.document.snapshot.contains(tableID: "tasks", recordID: "t3"))
    }

    @Test func nothingChangedAddsNoDelta() throws {
        let result = try Self.merge(local: nil, remote: nil)
        #expect(result.document == (try Self.document()))
    }

    // MARK: record level

    @Test func aRemoteDeleteBeatsALocalUpdate() throws {
        let result = try Self.merge(local: #"["U","tasks","t2",{"title":["P","Call mum"]}]"#, remote: #"["D","tasks","t2"]"#)
        #expect(try Self.record(result, "t2") == nil)
        #expect(result.conflicts == [SnapshotMerge.Conflict(tableID: "tasks", recordID: "t2", field: nil, base: nil, local: nil,
                                                            remote: nil, rule: nil, outcome: "deleted")])
    }

    @Test func aLocalDeleteIsKeptAgainstARemoteUpdate() throws {
        let result = try Self.merge(local: #"["D","tasks","t2"]"#, remote: #"["U","tasks","t2",{"title":["P","Call mum"]}]"#)
        #expect(try Self.record(result, "t2") == nil)
        #expect(result.conflicts.map(\.outcome) == ["deleted"])
    }

    @Test func twoDeletesDelete() throws {
        let result = try Self.merge(local: #"["D","tasks","t2"]"#, remote: #"["D","tasks","t2"]"#)
        #expect(try Self.record(result, "t2") == nil)
        #expect(result.conflicts.isEmpty)
        #expect(result.document.deltas![0].changes == [.delete(tableID: "tasks", recordID: "t2")])
    }

    @Test func twoInsertsOfOneRecordMergeFieldByField() throws {
        let local = #"["I","tasks","t9",{"title":"Mine","n":{"I":"2"},"only":"L"}]"#
        let remote = #"["I","tasks","t9",{"title":"Theirs","n":{"I":"-3"}}]"#
        let byDefault = try Self.merge(local: local, remote: remote)
        #expect(try Self.record(byDefault, "t9") == ["title": "Theirs", "n": .int(-3), "only": "L"])
        // sum over an absent BASE: −3 + (2 − 0) (§7's first example).
        let summed = try Self.merge(local: local, remote: remote, rules: Self.rules(.sum))
        #expect(try Self.record(summed, "t9") == ["title": "Theirs", "n": .int(-1), "only": "L"])
        #expect(summed.conflicts.map(\.field) == ["title", "n"])
        #expect(summed.conflicts.map(\.outcome) == ["remote", "sum"])
    }

    @Test func changesToDifferentRecordsBothStand() throws {
        let result = try Self.merge(local: #"["U","tasks","t2",{"title":["P","A"]}]"#, remote: #"["U","tasks","t3",{"title":["P","B"]}]"#)
        #expect(try Self.record(result, "t2") == ["title": "A"])
        #expect(try Self.record(result, "t3") == ["title": "B"])
        #expect(result.conflicts.isEmpty)
    }

    // MARK: field level

    @Test func fieldsOneSideTouchedPass() throws {
        let result = try Self.merge(local: #"["U","tasks","t1",{"title":["P","Oat milk"]}]"#,
                                    remote: #"["U","tasks","t1",{"n":["D"]}]"#)
        #expect(try Self.record(result, "t1") == ["title": "Oat milk", "tags": ["a", "b", "c"]])
        #expect(result.conflicts.isEmpty)
    }

    @Test func eachRuleDecidesAFieldBothPut() throws {
        let local = #"["U","tasks","t1",{"n":["P",{"I":"12"}]}]"#, remote = #"["U","tasks","t1",{"n":["P",{"I":"15"}]}]"#
        let expected: [(MergeRule, Int64, String)] = [(.remote, 15, "remote"), (.local, 12, "local"), (.max, 15, "remote"),
                                                      (.min, 12, "local"), (.sum, 17, "sum")]
        for (rule, value, outcome) in expected {
            let result = try Self.merge(local: local, remote: remote, rules: Self.rules(rule))
            #expect(try Self.record(result, "t1")?["n"] == .int(value), "\(rule)")
            #expect(result.conflicts == [SnapshotMerge.Conflict(tableID: "tasks", recordID: "t1", field: "n", base: .int(10), local: .int(12),
                                                                remote: .int(15), rule: rule, outcome: outcome)], "\(rule)")
        }
    }

    @Test func aDeleteIsNullInTheOrder() throws {
        let local = #"["U","tasks","t1",{"n":["D"]}]"#, remote = #"["U","tasks","t1",{"n":["P",{"I":"15"}]}]"#
        #expect(try Self.record(Self.merge(local: local, remote: remote, rules: Self.rules(.min)), "t1")?["n"] == nil)
        #expect(try Self.record(Self.merge(local: local, remote: remote, rules: Self.rules(.max)), "t1")?["n"] == .int(15))
        // sum needs three numbers: a delete falls back to remote.
        #expect(try Self.record(Self.merge(local: local, remote: remote, rules: Self.rules(.sum)), "t1")?["n"] == .int(15))
    }

    @Test func maxGivesATieToLocal() throws {
        // Equal in the order (1 and 1.0), different values: max keeps LOCAL's, min REMOTE's.
        let local = #"["U","tasks","t1",{"n":["P",1.0]}]"#, remote = #"["U","tasks","t1",{"n":["P",{"I":"1"}]}]"#
        #expect(try Self.record(Self.merge(local: local, remote: remote, rules: Self.rules(.max)), "t1")?["n"] == .double(1))
        #expect(try Self.record(Self.merge(local: local, remote: remote, rules: Self.rules(.min)), "t1")?["n"] == .int(1))
    }

    /// §7's second example: LOCAL put 2, 'a', 3, 4 and REMOTE put 5, 6 on an absent field; sum gives 9.
    @Test func sumFollowsSuccessivePuts() throws {
        func puts(_ values: [String]) -> String {
            values.map { #"["U","tasks","t2",{"k":["P",\#($0)]}]"# }.joined(separator: ",")
        }
        let result = try Self.merge(local: puts([#"{"I":"2"}"#, #""a""#, #"{"I":"3"}"#, #"{"I":"4"}"#]),
                                    remote: puts([#"{"I":"5"}"#, #"{"I":"6"}"#]), rules: Self.rules(.sum, "k"))
        #expect(try Self.record(result, "t2")?["k"] == .int(9))
    }

    @Test func mtimeOfInfoDefaultsToMax() throws {
        let rows = #"{"tid":":info","rowid":"info","data":{"mtime":{"T":"1000"}}}"#
        let base = try Self.document(rows: rows)
        let local = try Self.document(#"["U",":info","info",{"mtime":["P",{"T":"3000"}]}]"#, rows: rows)
        let remote = try Self.document(#"["U",":info","info",{"mtime":["P",{"T":"2000"}]}]"#, rows: rows)
        let result = try SnapshotMerge.merge(base: base, local: local, remote: remote)
        #expect(try Self.records(result)[":info", "info"]?["mtime"] == .date(3000))
        #expect(result.conflicts.first?.rule == .max)
    }

    // MARK: lists

    @Test func listEditsOfBothSidesMergeByTransform() throws {
        // [a b c]: LOCAL inserts x at 0, REMOTE deletes c (index 2) → [x a b].
        let result = try Self.merge(local: #"["U","tasks","t1",{"tags":["LI",0,"x"]}]"#, remote: #"["U","tasks","t1",{"tags":["LD",2]}]"#)
        #expect(try Self.record(result, "t1")?["tags"] == ["x", "a", "b"])
        #expect(result.conflicts.isEmpty)
        // The delta keeps list operations: LOCAL's insert unchanged (before the deleted element).
        #expect(result.document.deltas![0].changes.last == .update(tableID: "tasks", recordID: "t1", updates: [FieldUpdate("tags", .listInsert(before: 0, "x"))]))
    }

    @Test func twoInsertsAtOneIndexPutRemotesFirst() throws {
        let result = try Self.merge(local: #"["U","tasks","t1",{"tags":["LI",1,"L"]}]"#, remote: #"["U","tasks","t1",{"tags":["LI",1,"R"]}]"#)
        #expect(try Self.record(result, "t1")?["tags"] == ["a", "R", "L", "b", "c"])
    }

    @Test func twoPutsOfOneElementFollowTheRule() throws {
        let local = #"["U","tasks","t1",{"tags":["LP",1,"L"]}]"#, remote = #"["U","tasks","t1",{"tags":["LP",1,"R"]}]"#
        #expect(try Self.record(Self.merge(local: local, remote: remote), "t1")?["tags"] == ["a", "R", "c"])
        let local2 = try Self.merge(local: local, remote: remote, rules: Self.rules(.local, "tags"))
        #expect(try Self.record(local2, "t1")?["tags"] == ["a", "L", "c"])
        #expect(local2.conflicts.map(\.rule) == [.local] && local2.conflicts.map(\.outcome) == ["local"])
        // "L" < "R": min keeps LOCAL's, max REMOTE's.
        #expect(try Self.record(Self.merge(local: local, remote: remote, rules: Self.rules(.min, "tags")), "t1")?["tags"] == ["a", "L", "c"])
        #expect(try Self.record(Self.merge(local: local, remote: remote, rules: Self.rules(.max, "tags")), "t1")?["tags"] == ["a", "R", "c"])
    }

    @Test func aDeleteOfAnElementBeatsAPutOfIt() throws {
        let result = try Self.merge(local: #"["U","tasks","t1",{"tags":["LP",1,"L"]}]"#, remote: #"["U","tasks","t1",{"tags":["LD",1]}]"#)
        #expect(try Self.record(result, "t1")?["tags"] == ["a", "c"])
        #expect(result.conflicts.map(\.field) == ["tags"] && result.conflicts.map(\.rule) == [nil])
    }

    @Test func aPutOrDeleteBeatsListOperationsWhateverTheRule() throws {
        let put = #"["U","tasks","t1",{"tags":["P","flat"]}]"#, insert = #"["U","tasks","t1",{"tags":["LI",0,"x"]}]"#
        #expect(try Self.record(Self.merge(local: put, remote: insert), "t1")?["tags"] == "flat")
        #expect(try Self.record(Self.merge(local: insert, remote: put, rules: Self.rules(.local, "tags")), "t1")?["tags"] == "flat")
        #expect(try Self.record(Self.merge(local: insert, remote: #"["U","tasks","t1",{"tags":["D"]}]"#), "t1")?["tags"] == nil)
    }

    @Test func aListCreationGivesWayToTheOtherSidesListOperations() throws {
        // Both create the list; REMOTE also inserts: its element stays, LOCAL's creation is dropped.
        let local = #"["U","tasks","t2",{"l":["LC"]}]"#
        let remote = #"["U","tasks","t2",{"l":["LC"]}],["U","tasks","t2",{"l":["LI",0,"r"]}]"#
        #expect(try Self.record(Self.merge(local: local, remote: remote), "t2")?["l"] == ["r"])
        let local2 = #"["U","tasks","t2",{"l":["LC"]}],["U","tasks","t2",{"l":["LI",0,"l"]}]"#
        #expect(try Self.record(Self.merge(local: local2, remote: remote), "t2")?["l"] == ["r", "l"])
    }

    // MARK: sides whose changes are in their records

    @Test func aSideThatEditedItsRecordsIsDiffedAgainstBase() throws {
        // LOCAL's records edited in place (no deltas): x inserted at the front of tags, t3 gone,
        // t4 new. REMOTE deleted c by a delta.
        let edited = """
            {"tid":"tasks","rowid":"t1","data":{"title":"Milk","tags":["x","a","b","c"],"n":{"I":"10"}}},
            {"tid":"tasks","rowid":"t2","data":{"title":"Call"}},
            {"tid":"tasks","rowid":"t4","data":{"title":"New"}}
            """
        let result = try SnapshotMerge.merge(base: Self.document(), local: Self.document(rows: edited),
                                             remote: Self.document(#"["U","tasks","t1",{"tags":["LD",2]}]"#))
        #expect(try Self.record(result, "t1")?["tags"] == ["x", "a", "b"])
        #expect(try Self.record(result, "t3") == nil)
        #expect(try Self.record(result, "t4") == ["title": "New"])
    }

    @Test func listEditsKeepTheCommonEnds() {
        #expect(SideChanges.listEdits(from: ["a", "b", "c"], to: ["a", "y", "c"]) == [.listPut(at: 1, "y")])
        #expect(SideChanges.listEdits(from: ["a", "b", "c"], to: ["a", "c"]) == [.listDelete(at: 1)])
        #expect(SideChanges.listEdits(from: ["a", "b"], to: ["a", "b", "c", "d"]) == [.listInsert(before: 2, "c"), .listInsert(before: 3, "d")])
        #expect(SideChanges.listEdits(from: ["a", "b", "c", "d"], to: ["a", "x"]) == [.listPut(at: 1, "x"), .listDelete(at: 2), .listDelete(at: 2)])
        #expect(SideChanges.listEdits(from: ["a"], to: ["a"]) == [])
    }

    @Test func aSideThatSyncedBasesDeltasKeepsItsOwnOperations() throws {
        // BASE has a pending delta; LOCAL folded it (the records one revision on) and then moved
        // an element; REMOTE deleted one. The move is kept as a move and transformed.
        let base = try Self.document(#"["U","tasks","t2",{"title":["P","Call mum"]}]"#)
        var synced = try base.appliedSnapshot()
        synced.rev = 6
        let local = SnapshotDocument(snapshot: synced, deltas: [DatastoreDelta(rev: 6, changes: [
            .update(tableID: "tasks", recordID: "t1", updates: [FieldUpdate("tags", .listMove(from: 0, to: 2))])], nonce: "m")])
        let remote = SnapshotDocument(snapshot: base.snapshot, deltas: base.deltas! + [DatastoreDelta(rev: 6, changes: [
            .update(tableID: "tasks", recordID: "t1", updates: [FieldUpdate("tags", .listDelete(at: 1))])], nonce: "r")])
        let result = try SnapshotMerge.merge(base: base, local: local, remote: remote)
        // [a b c]: move a to the end → [b c a]; delete b → [a c]; both → [c a].
        #expect(try Self.record(result, "t1")?["tags"] == ["c", "a"])
        #expect(try Self.record(result, "t2") == ["title": "Call mum"])
        #expect(result.document.deltas!.count == 2)
    }

    // MARK: properties

    static let sides = [nil, #"["U","tasks","t1",{"tags":["LI",3,"z"],"title":["P","T"]}]"#, #"["D","tasks","t2"]"#,
                        #"["I","tasks","t7",{"title":"Seven"}],["U","tasks","t3",{"title":["D"]}]"#,
                        #"["U","tasks","t1",{"n":["P",{"I":"1"}],"tags":["LM",0,2]}]"#]

    @Test func mergingWithAnUnchangedSideGivesTheOtherSide() throws {
        for side in Self.sides {
            let expected = try Self.document(side).appliedSnapshot()
            #expect(try Self.merge(local: side, remote: nil).document.appliedSnapshot() == expected)
            #expect(try Self.merge(local: nil, remote: side).document.appliedSnapshot() == expected)
        }
    }

    @Test func swappingSidesAndRulesGivesTheSameRecords() throws {
        for first in Self.sides {
            for second in Self.sides {
                for (rule, swapped) in [(MergeRule.remote, MergeRule.local), (.local, .remote)] {
                    let one = try Self.records(Self.merge(local: first, remote: second, rules: ThreeWayMerge.Rules(defaultRule: rule)))
                    let other = try Self.records(Self.merge(local: second, remote: first, rules: ThreeWayMerge.Rules(defaultRule: swapped)))
                    #expect(one == other, "\(first ?? "-") / \(second ?? "-") under \(rule)")
                }
            }
        }
    }

    // MARK: the order of values

    @Test func theDatastoreOrderOfValues() {
        // §7's in-order case: null, false, 0, {I:'1'}, 'a', {B:'F'}, {T:'123456'}, [].
        let ordered: [DatastoreValue?] = [nil, .bool(false), .double(0), .int(1), .string("a"), .bytes([0x14]), .date(123_456), .list([])]
        for (i, a) in ordered.enumerated() {
            for (j, b) in ordered.enumerated() {
                #expect(MergeRule.isLess(a, b) == (i < j), "\(String(describing: a)) < \(String(describing: b))")
            }
        }
        // Strings by UTF-16 code units: U+FF5E (one unit) after U+1F600 (a surrogate pair, D83D…).
        #expect(MergeRule.isLess(.string("\u{1F600}"), .string("\u{FF5E}")))
        // Bytes by their base64 text: [0xF8] is "-A", [0x00] is "AA", and '-' < 'A'.
        #expect(MergeRule.isLess(.bytes([0xF8]), .bytes([0x00])))
        // Negative integers by value (JavaScript's sign test was wrong); integers against doubles exactly.
        #expect(MergeRule.isLess(.int(-5), .int(-2)))
        #expect(MergeRule.isLess(.int(9_007_199_254_740_993), .double(9_007_199_254_740_994)))
        #expect(!MergeRule.isLess(.double(9_007_199_254_740_992), .int(9_007_199_254_740_992)))
        #expect(MergeRule.isLess(.list(["a"]), .list(["a", "b"])) && MergeRule.isLess(.list([.int(1)]), .list(["a"])))
    }
}

/// Random list edits on both sides: the merged delta always applies (every transformed
/// operation lands inside its list), and a side merged with an unchanged one gives that side.
struct SnapshotMergeRandomTests {
    /// 1–4 changes of t1, each a list operation valid on the list as it then is, or a put.
    static func changes(_ generator: inout SplitMix64, side: String) -> [DatastoreChange] {
        var count = 5
        var result: [DatastoreChange] = []
        for step in 0 ..< Int.random(in: 1...4, using: &generator) {
            let atom = DatastoreAtom.string("\(side)\(step)")
            let operation: FieldOperation
            switch Int.random(in: 0..<5, using: &generator) {
            case 0 where count > 0: operation = .listPut(at: Int.random(in: 0..<count, using: &generator), atom)
            case 1 where count > 0:
                operation = .listDelete(at: Int.random(in: 0..<count, using: &generator))
                count -= 1
            case 2 where count > 0:
                operation = .listMove(from: Int.random(in: 0..<count, using: &generator), to: Int.random(in: 0..<count, using: &generator))
            case 3:
                result.append(.update(tableID: "t", recordID: "r", updates: [FieldUpdate("n", .put(.int(Int64(step))))]))
                continue
            default:
                operation = .listInsert(before: Int.random(in: 0...count, using: &generator), atom)
                count += 1
            }
            result.append(.update(tableID: "t", recordID: "r", updates: [FieldUpdate("l", operation)]))
        }
        return result
    }

    @Test func mergedDeltasApply() throws {
        let base = try SnapshotDocument(parsing: #"{"rev": 1, "rows": [{"tid":"t","rowid":"r","data":{"l":["a","b","c","d","e"],"n":{"I":"0"}}}]}"#)
        var generator = SplitMix64(state: 27)  // (seeded: a failure names its round)
        for round in 0 ..< 2000 {
            let mine = Self.changes(&generator, side: "L"), theirs = Self.changes(&generator, side: "R")
            let local = SnapshotDocument(snapshot: base.snapshot, deltas: [DatastoreDelta(rev: 1, changes: mine, nonce: "l")])
            let remote = SnapshotDocument(snapshot: base.snapshot, deltas: [DatastoreDelta(rev: 1, changes: theirs, nonce: "r")])
            let rule: MergeRule = round % 2 == 0 ? .remote : .local
            #expect(throws: Never.self, "round \(round): \(mine) against \(theirs)") {
                _ = try SnapshotMerge.merge(base: base, local: local, remote: remote, rules: ThreeWayMerge.Rules(defaultRule: rule))
            }
            let alone = try SnapshotMerge.merge(base: base, local: local, remote: base)
            #expect(try alone.document.appliedSnapshot() == local.appliedSnapshot(), "round \(round)")
        }
    }
}
