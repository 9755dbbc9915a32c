import Testing
import BriefcaseKit
@testable import BriefcaseMerge

/// `ThreeWayMerge` against merges written by hand (Spec/merge.md §1–3) and the Datastore's
/// published rule examples (`../shared/reference/datastore-format.md` §7).
struct MergeTests {
    static let qty = FieldDescriptor(name: "Qty", type: .integer)
    static let fields = [FoldTests.id, FoldTests.name, qty]

    /// Orders (ID key, Name, Qty) holding `rows` as stored rows, no delta.
    static func document(_ rows: [Row]) -> BriefcaseDocument {
        let schema = Schema(fieldPropertyCount: 2, fields: [[SchemaProperty("Name", "ID"), SchemaProperty("InPrimaryKey", "True")],
                                                            [SchemaProperty("Name", "Name"), SchemaProperty("InPrimaryKey", "False")],
                                                            [SchemaProperty("Name", "Qty"), SchemaProperty("InPrimaryKey", "False")]])
        let table = Table(name: "Orders", schema: schema, fields: fields, rows: rows)
        return BriefcaseDocument(container: .dabriefcase, file: BriefcaseFile(stream: Bin2Stream(elements: [.table(table)])))
    }

    static func row(_ id: Int64, _ name: String, _ qty: Int64?) -> Row { [.integer(id), .wide(name), qty.map(Value.integer)] }

    static let base = document([row(1, "One", 1), row(2, "Two", 2), row(3, "Three", 3), row(4, "Four", 4)])

    /// The merged Orders' current rows (stored rows with the merged pending changes).
    static func current(_ result: ThreeWayMerge.Result) throws -> [Row] {
        let stream = result.document.file.stream
        let table = try #require(stream.tables.first)
        return stream.deltas.first.map { table.applying($0).rows } ?? table.rows.array
    }

    /// `document` encoded and decoded again: its rows kept as bytes, as read from a file.
    static func stored(_ document: BriefcaseDocument) throws -> BriefcaseDocument {
        var warnings: [DecodingWarning] = []
        return try BriefcaseDocument.decode(try document.encode(), as: .dabriefcase, warnings: &warnings)
    }

    /// The merge of rows kept as bytes (only the rows that can differ made into values) gives
    /// the merge of rows as values: the same pending changes, current rows and conflicts.
    static func expectTheSameFromBytes(_ base: BriefcaseDocument, _ local: BriefcaseDocument, _ remote: BriefcaseDocument,
                                       rules: ThreeWayMerge.Rules = .init(), sourceLocation: SourceLocation = #_sourceLocation) throws {
        let values = try ThreeWayMerge.merge(base: base, local: local, remote: remote, rules: rules)
        let bytes = try ThreeWayMerge.merge(base: try stored(base), local: try stored(local), remote: try stored(remote), rules: rules)
        #expect(bytes.document.file.stream.deltas == values.document.file.stream.deltas, sourceLocation: sourceLocation)
        #expect(try current(bytes) == current(values), sourceLocation: sourceLocation)
        #expect(bytes.conflicts == values.conflicts, sourceLocation: sourceLocation)
        // On two threads, table by table: the same.
        let twoJobs = try ThreeWayMerge.merge(base: try stored(base), local: try stored(local), remote: try stored(remote), rules: rules, jobs: 2)
        #expect(twoJobs.document == bytes.document && twoJobs.conflicts == bytes.conflicts, sourceLocation: sourceLocation)
        let storedBytes = try ThreeWayMerge.merge(base: try stored(base), local: try stored(local), remote: try stored(remote), rules: rules, asStored: true)
        #expect(storedBytes.document.file.stream.tables.first?.rows.array == (try current(values)), sourceLocation: sourceLocation)
    }

    /// LOCAL renames 1, deletes 2, updates 3, inserts 5; REMOTE changes 1's Qty, updates 2,
    /// deletes 3, deletes 4 as LOCAL does not, inserts 6: each one-sided change passes, a delete
    /// beats an update either way, and BASE's stored rows stay.
    @Test func rowCases() throws {
        let local = Self.document([Self.row(1, "Uno", 1), Self.row(3, "Drei", 3), Self.row(4, "Four", 4), Self.row(5, "Five", 5)])
        let remote = Self.document([Self.row(1, "One", 10), Self.row(2, "Deux", 2), Self.row(6, "Six", 6)])
        let result = try ThreeWayMerge.merge(base: Self.base, local: local, remote: remote)
        #expect(try Self.current(result) == [Self.row(1, "Uno", 10), Self.row(5, "Five", 5), Self.row(6, "Six", 6)])
        #expect(result.document.file.stream.tables.first?.rows.array == Self.base.file.stream.tables.first?.rows.array)
        #expect(result.conflicts.map { "\($0.key) \($0.outcome)" } == ["[Optional(BriefcaseKit.Value.integer(2))] deleted",
                                                                       "[Optional(BriefcaseKit.Value.integer(3))] deleted"])
        try Self.expectTheSameFromBytes(Self.base, local, remote)
        let stored = try ThreeWayMerge.merge(base: Self.base, local: local, remote: remote, asStored: true)
        #expect(stored.document.file.stream.deltas.isEmpty)
        #expect(stored.document.file.stream.tables.first?.rows.array == (try Self.current(result)))
    }

    /// Several tables merged on two threads give what one thread gives, and the first table's
    /// error comes first.
    @Test func tablesOnTwoJobs() throws {
        func twice(_ document: BriefcaseDocument) -> BriefcaseDocument {
            var document = document
            var other = document.file.stream.tables[0]
            other.name = "Orders2"
            document.file.stream.elements.append(.table(other))
            return document
        }
        let local = twice(Self.document([Self.row(1, "Uno", 1), Self.row(2, "Two", 2), Self.row(3, "Three", 3)]))
        let remote = twice(Self.document([Self.row(1, "One", 10), Self.row(2, "Two", 2), Self.row(4, "Four", 40)]))
        let base = twice(Self.base)
        let one = try ThreeWayMerge.merge(base: try Self.stored(base), local: try Self.stored(local), remote: try Self.stored(remote))
        let two = try ThreeWayMerge.merge(base: try Self.stored(base), local: try Self.stored(local), remote: try Self.stored(remote), jobs: 2)
        #expect(two.document == one.document && two.conflicts == one.conflicts)
        #expect(one.document.file.stream.deltas.count == 2)
    }

    /// A field both changed, by each rule; two inserts of one key merged field by field.
    @Test func fieldRules() throws {
        let local = Self.document([Self.row(1, "One", 2), Self.row(2, "Two", 7), Self.row(9, "Nine", 3)])
        let remote = Self.document([Self.row(1, "One", -3), Self.row(2, "Two", 5), Self.row(9, "Neun", 4)])
        let base = Self.document([Self.row(1, "One", 0), Self.row(2, "Two", 6)])
        func qty(_ rule: MergeRule) throws -> [Int64?] {
            try Self.current(try ThreeWayMerge.merge(base: base, local: local, remote: remote, rules: .init(defaultRule: rule))).map {
                if case .integer(let q)? = $0[2] { q } else { nil }
            }
        }
        // sum: the reference's example, local 2 and remote −3 over 0 → −1; 5 + (7 − 6) = 6; 4 + (3 − 0) = 7.
        #expect(try qty(.sum) == [-1, 6, 7])
        #expect(try qty(.remote) == [-3, 5, 4])
        #expect(try qty(.local) == [2, 7, 3])
        #expect(try qty(.max) == [2, 7, 4])
        #expect(try qty(.min) == [-3, 5, 3])
        for rule in MergeRule.allCases { try Self.expectTheSameFromBytes(base, local, remote, rules: .init(defaultRule: rule)) }
        let result = try ThreeWayMerge.merge(base: base, local: local, remote: remote,
                                             rules: .init(byField: [(table: "orders", field: "QTY", rule: .local)]))
        #expect(result.conflicts.map { "\($0.field.map { String(decoding: $0.name.bytes, as: UTF8.self) } ?? "-") \($0.rule!) \($0.outcome)" }
                == ["Qty local local", "Qty local local", "Name remote remote", "Qty local local"])
    }

    /// The Datastore's order for max and min: NULL < boolean < number < text < bytes < date.
    @Test func valueOrder() {
        let ordered: [Value?] = [nil, .boolean(0), .boolean(1), .integer(0), .float(0.5), .integer(1), .ansiString("a"), .wide("b"),
                                 .blob(ByteString([0x46])), .dateTime(OLEDateTime(1))]
        for (i, a) in ordered.enumerated() {
            for (j, b) in ordered.enumerated() {
                #expect(MergeRule.isLess(a, b) == (i < j), "\(String(describing: a)) < \(String(describing: b))")
            }
        }
    }

    /// merge(B, X, B) is X, merge(B, B, Y) is Y, and swapping sides with the rules swapped gives
    /// the same rows.
    @Test func properties() throws {
        let x = Self.document([Self.row(1, "Uno", 1), Self.row(3, "Three", 30), Self.row(7, "Seven", 7)])
        let y = Self.document([Self.row(2, "Zwei", 2), Self.row(3, "Three", 31), Self.row(4, "Four", 4)])
        #expect(try Self.current(try ThreeWayMerge.merge(base: Self.base, local: x, remote: Self.base)) == x.file.stream.tables[0].rows.array)
        #expect(try Self.current(try ThreeWayMerge.merge(base: Self.base, local: Self.base, remote: y)) == y.file.stream.tables[0].rows.array)
        try Self.expectTheSameFromBytes(Self.base, x, y)
        for (rule, swapped) in [(MergeRule.remote, MergeRule.local), (.max, .max), (.sum, .sum)] {
            let one = try Self.current(try ThreeWayMerge.merge(base: Self.base, local: x, remote: y, rules: .init(defaultRule: rule)))
            let other = try Self.current(try ThreeWayMerge.merge(base: Self.base, local: y, remote: x, rules: .init(defaultRule: swapped)))
            #expect(Set(one.map { "\($0)" }) == Set(other.map { "\($0)" }), "\(rule)")
        }
    }

    /// What merge cannot pair is refused, naming the table.
    @Test func refusals() throws {
        let keyless = BriefcaseDocument(container: .dabriefcase, file: BriefcaseFile(stream: Bin2Stream(elements: [
            .table(Table(name: "Log", fields: [FoldTests.id], rows: [[.integer(1)]]))])))
        let twice = Self.document([Self.row(1, "One", 1), Self.row(1, "Uno", 1)])
        let empty = BriefcaseDocument(container: .dabriefcase, file: BriefcaseFile())
        for (base, local, expected) in [(keyless, keyless, "table 'Log': it has no key"), (Self.base, twice, "table 'Orders': two rows of LOCAL hold one key"),
                                        (Self.base, empty, "table 'Orders': LOCAL and REMOTE must both have it")] {
            let error = try #require(throws: BriefcaseError.self) { try ThreeWayMerge.merge(base: base, local: local, remote: base) }
            #expect(error.kind == .invalidModel && error.message.hasPrefix(expected), "\(error.message)")
        }
    }

    /// Pending changes on every side, over rows kept as bytes: BASE's own change (1 renamed)
    /// stays first, LOCAL's and REMOTE's pending changes count as their changes, and rows no one
    /// touched are not made into values — the result is the one of rows as values.
    @Test func pendingChangesOverStoredRows() throws {
        func with(_ document: BriefcaseDocument, _ changes: [DeltaChange]) -> BriefcaseDocument {
            let logged = [LoggedField(name: "ID", type: .integer), LoggedField(name: "Name", type: .wideString), LoggedField(name: "Qty", type: .integer)]
            var document = document
            document.file.stream.elements.insert(.delta(Delta(name: "Orders", loggedFields: logged, keyFields: ["ID"], reducedDeltaFlag: 0,
                                                              changes: changes)), at: 0)
            return document
        }
        let rename = DeltaChange(type: .update, recordID: 1100, oldValues: [.integer(1), .wide("One"), .integer(1)],
                                 newValues: [.integer(1), .wide("Uno"), .integer(1)])
        let base = with(Self.base, [rename])
        let local = with(Self.document([Self.row(1, "One", 1), Self.row(2, "Two", 20), Self.row(3, "Three", 3), Self.row(4, "Four", 4)]),
                         [rename, DeltaChange(type: .delete, recordID: 1101, oldValues: [.integer(4), .wide("Four"), .integer(4)], newValues: [nil, nil, nil])])
        let remote = with(Self.base, [rename, DeltaChange(type: .insert, recordID: 1101, oldValues: [nil, nil, nil], newValues: [.integer(9), .wide("Nine"), .integer(9)])])
        let result = try ThreeWayMerge.merge(base: try Self.stored(base), local: try Self.stored(local), remote: try Self.stored(remote))
        #expect(try Self.current(result) == [Self.row(1, "Uno", 1), Self.row(2, "Two", 20), Self.row(3, "Three", 3), Self.row(9, "Nine", 9)])
        #expect(result.document.file.stream.deltas.first?.changes.first == rename)
        try Self.expectTheSameFromBytes(base, local, remote)
    }
}
