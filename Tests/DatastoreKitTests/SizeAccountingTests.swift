
import DatastoreKit
import Testing

@Suite("Size accounting and limits")
struct SizeAccountingTests {
    /// The reference's worked example (computed by hand and by the Python SDK): 708 + 345 + 301 + 1000.
    static let example = """
        {"rev":3,"rows":[
        {"tid":"people","rowid":"zoe","data":{"name":"Zoë","age":{"I":"43"},"alive":true,"born":{"T":"-86400000"},"pic":{"B":"AAEC_w"},"nan":{"N":"nan"}}},
        {"tid":"people","rowid":"bob","data":{"name":"Bob","tags":["a","z"]}},
        {"tid":":info","rowid":"info","data":{"mtime":{"T":"1376000000000"},"title":"T"}}
        ]}
        """

    @Test func referenceExample() throws {
        let snapshot = try SnapshotDocument(parsing: Self.example).snapshot
        // 100 + (100+4 "Zoë") + 100 + 100 + 100 + (100+4 bytes) + 100
        #expect(snapshot["people", "zoe"]?.size() == 708)
        // 100 + (100+3) + (100 + 2×20 + 1 + 1)
        #expect(snapshot["people", "bob"]?.size() == 345)
        // 100 + 100 + (100+1)
        #expect(snapshot[":info", "info"]?.size() == 301)
        #expect(snapshot.size() == 2354)
        #expect(snapshot.size(.exact) == 2354)
        // 4 bytes: 4 mod 3 ≠ 0, so one more under the conservative rule
        #expect(snapshot["people", "zoe"]?.size(.conservative) == 709)
        #expect(snapshot.size(.conservative) == 2355)
        #expect(snapshot.recordCount == 3)
    }

    @Test func valueSizes() {
        #expect(DatastoreValue.string("").size() == 0)
        #expect(DatastoreValue.string("héllo").size() == 6)
        #expect(DatastoreValue.string("😀").size() == 4)
        #expect(DatastoreValue.bool(true).size() == 0)
        #expect(DatastoreValue.int(.max).size() == 0)
        #expect(DatastoreValue.double(.nan).size() == 0)
        #expect(DatastoreValue.date(1).size() == 0)
        for n in 0...7 {
            let bytes = DatastoreValue.bytes(Array(repeating: 7, count: n))
            #expect(bytes.size(.exact) == n)
            #expect(bytes.size(.conservative) == (n % 3 == 0 ? n : n + 1))
        }
        #expect(DatastoreValue.list([]).size() == 0)
        // 3 × 20 + 2 + 6 + 0
        let list: DatastoreValue = [.bytes([1, 2]), "héllo", 1]
        #expect(list.size() == 68)
        #expect(list.size(.conservative) == 69)
    }

    @Test func handComputedRecords() {
        var record = DatastoreRecord()
        #expect(record.size() == 100)
        record["tags"] = [.bytes([1, 2]), "héllo", 1]
        #expect(record.size() == 100 + 100 + 68)
        record["n"] = 2.5
        #expect(record.size() == 268 + 100)
        record["n"] = "four"
        #expect(record.size() == 268 + 104)
        record["tags"] = nil
        #expect(record.size() == 100 + 104)
        record["tags"] = .list([])  // an empty list field costs 100
        #expect(record.size() == 100 + 104 + 100)
        #expect(record.fieldNames == ["n", "tags"])
        let rebuilt: DatastoreRecord = ["n": "four", "tags": []]
        #expect(rebuilt.size() == record.size())
        #expect(rebuilt == record)
    }

    @Test func snapshotSizeFollowsEdits() throws {
        var snapshot = try SnapshotDocument(parsing: Self.example).snapshot
        #expect(snapshot.size() == 2354)
        try snapshot.apply(DatastoreDelta(rev: 3, changes: [
            .update(tableID: "people", recordID: "bob", updates: [FieldUpdate("tags", .listInsert(before: 2, "éé"))]),
            .delete(tableID: ":info", recordID: "info"),
            .insert(tableID: "t", recordID: "r", fields: ["b": .bytes([1])]),
        ], nonce: "n"))
        // +20+4, −301, +(100+100+1)
        #expect(snapshot.size() == 2354 + 24 - 301 + 201)
        #expect(snapshot.size(.conservative) == 2354 + 24 - 301 + 201 + 2)
        snapshot.removeRecord(tableID: "people", recordID: "zoe")
        #expect(snapshot.size() == 2354 + 24 - 301 + 201 - 708)
        #expect(DatastoreSnapshot().size() == 1000)
    }

    @Test func deltaSizes() {
        let insert = DatastoreChange.insert(tableID: "t", recordID: "r", fields: ["a": "xyz", "b": 1])
        #expect(insert.size() == 100 + 103 + 100)
        let update = DatastoreChange.update(tableID: "t", recordID: "r", updates: [
            FieldUpdate("p", .put(["ab", .bytes([1])])),  // 100 + (20+2 + 20+1)
            FieldUpdate("d", .delete),  // 100
            FieldUpdate("lc", .listCreate),  // 100
            FieldUpdate("lp", .listPut(at: 0, "abcd")),  // 104
            FieldUpdate("li", .listInsert(before: 0, .bytes([1, 2, 3]))),  // 103
            FieldUpdate("ld", .listDelete(at: 0)),  // 100
            FieldUpdate("lm", .listMove(from: 0, to: 1)),  // 100
        ])
        #expect(update.size() == 100 + 143 + 100 + 100 + 104 + 103 + 100 + 100)
        #expect(update.size(.conservative) == update.size() + 1)
        let delete = DatastoreChange.delete(tableID: "t", recordID: "r")
        #expect(delete.size() == 100)
        let delta = DatastoreDelta(rev: 0, changes: [insert, update, delete], nonce: "a-long-nonce-costs-nothing")
        #expect(delta.size() == 100 + 303 + 850 + 100)
        #expect(DatastoreDelta(rev: 0, changes: [], nonce: "").size() == 100)
    }

    @Test func limitConstants() {
        #expect(DatastoreLimits.recordSize == 102_400)
        #expect(DatastoreLimits.datastoreSize == 10_485_760)
        #expect(DatastoreLimits.recordCount == 100_000)
        #expect(DatastoreLimits.deltaSize == 2_097_152)
        #expect(DatastoreSize.baseDatastore == 1000)
        #expect(DatastoreSize.baseRecord == 100)
        #expect(DatastoreSize.baseField == 100)
        #expect(DatastoreSize.baseListItem == 20)
        #expect(DatastoreSize.baseDelta == 100)
        #expect(DatastoreSize.baseChange == 100)
    }

    @Test func recordLimitIsInclusive() throws {
        // 100 + 100 + n == 102_400 exactly at n = 102_200
        let atLimit: DatastoreRecord = ["s": .string(String(repeating: "x", count: 102_200))]
        #expect(atLimit.size() == DatastoreLimits.recordSize)
        #expect(DatastoreLimits.violation(ofRecord: atLimit, tableID: "t", recordID: "r") == nil)
        let over: DatastoreRecord = ["s": .string(String(repeating: "x", count: 102_201))]
        let error = DatastoreLimits.violation(ofRecord: over, tableID: "t", recordID: "r")
        #expect(error?.kind == .limitExceeded)
        #expect(error?.message == #"the record "r" of table "t" has size 102401 bytes; at most 102400 are allowed"#)
        // bytes: exact fits, conservative does not
        let bytes: DatastoreRecord = ["b": .bytes(Array(repeating: 0, count: 102_200))]
        #expect(bytes.size(.exact) == 102_400)
        #expect(DatastoreLimits.violation(ofRecord: bytes, tableID: "t", recordID: "r", accounting: .exact) == nil)
        #expect(DatastoreLimits.violation(ofRecord: bytes, tableID: "t", recordID: "r") != nil)
    }

    @Test func snapshotViolations() throws {
        var snapshot = DatastoreSnapshot(rev: 1)
        try snapshot.insert(DatastoreRow(tableID: "t", recordID: "small", record: ["a": 1]))
        try snapshot.insert(DatastoreRow(tableID: "t", recordID: "big",
            record: ["s": .string(String(repeating: "x", count: 200_000))]))
        let errors = DatastoreLimits.violations(in: snapshot)
        #expect(errors.count == 1)
        #expect(errors.first?.path.description == "$.rows[1]")
        #expect(DatastoreLimits.violations(in: DatastoreSnapshot()).isEmpty)

        // 103 records of 102_400 bytes: 1000 + 103 × 102_400 > 10 MiB
        var large = DatastoreSnapshot(rev: 1)
        for i in 0..<103 {
            try large.insert(DatastoreRow(tableID: "t", recordID: "r\(i)",
                record: ["s": .string(String(repeating: "x", count: 102_200))]))
        }
        let sizeErrors = DatastoreLimits.violations(in: large)
        #expect(sizeErrors.count == 1)
        #expect(sizeErrors.first?.path == .root)
        #expect(sizeErrors.first?.message == "the datastore size is 10548200 bytes; at most 10485760 are allowed")
    }

    @Test func recordCountLimit() throws {
        var snapshot = DatastoreSnapshot(rev: 1)
        for i in 0..<100_000 { try snapshot.insert(DatastoreRow(tableID: "t", recordID: "\(i)", record: [:])) }
        #expect(DatastoreLimits.violations(in: snapshot).isEmpty)
        try snapshot.insert(DatastoreRow(tableID: "t", recordID: "one-more", record: [:]))
        let errors = DatastoreLimits.violations(in: snapshot)
        #expect(errors.map(\.path.description) == ["$.rows"])
        #expect(errors.first?.message == "the datastore has 100001 records; at most 100000 are allowed")
    }

    @Test func deltaLimit() {
        let small = DatastoreDelta(rev: 0, changes: [.delete(tableID: "t", recordID: "r")], nonce: "n")
        #expect(DatastoreLimits.violation(ofDelta: small) == nil)
        // 100 + (100 + 100 + n) == 2 MiB + 1
        let n = DatastoreLimits.deltaSize - 300 + 1
        let big = DatastoreDelta(rev: 7, changes: [
            .insert(tableID: "t", recordID: "r", fields: ["s": .string(String(repeating: "x", count: n))]),
        ], nonce: "n")
        #expect(big.size() == DatastoreLimits.deltaSize + 1)
        #expect(DatastoreLimits.violation(ofDelta: big)?.message
            == "the delta for revision 7 has size 2097153 bytes; at most 2097152 are allowed")
    }
}
