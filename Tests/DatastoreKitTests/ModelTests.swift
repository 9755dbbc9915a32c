import JSONCore

import DatastoreKit
import Testing

@Suite("Model details")
struct ModelTests {
    @Test func paths() {
        let path = JSONPath.root.appending(key: "rows").appending(index: 3).appending(key: "data").appending(key: "price")
        #expect(path.description == "$.rows[3].data.price")
        #expect(JSONPath.root.description == "$")
        #expect(JSONPath([.key("a.b"), .key("_x9"), .key("9x"), .key("q\"\n\u{1}")]).description
            == #"$["a.b"]._x9["9x"]["q\"\n\u0001"]"#)
        let error = DatastoreError(.invalidValue, "m", at: JSONPath([.index(1)]))
        #expect(error.prefixed(by: JSONPath([.key("deltas")])).description == "$.deltas[1]: m")
    }

    @Test func recordOrderAndEquality() {
        var record: DatastoreRecord = ["b": 1, "a": 2]
        #expect(record.fieldNames == ["b", "a"])
        record["c"] = 3
        record["b"] = 4
        #expect(record.fieldNames == ["b", "a", "c"])
        #expect(record.removeField("a") == 2)
        #expect(record.removeField("zz") == nil)
        #expect(record.fields.map(\.name) == ["b", "c"])
        let other: DatastoreRecord = ["c": 3, "b": 4]
        #expect(record == other)
        #expect(record.hashValue == other.hashValue)
        #expect(record.description == #"{"b":{"I":"4"},"c":{"I":"3"}}"#)
        let duplicate = DatastoreRecord([("x", 1), ("y", 2), ("x", 3)])
        #expect(duplicate.fieldNames == ["x", "y"])
        #expect(duplicate["x"] == 3)
        #expect(duplicate.size() == 300)
    }

    @Test func snapshotEditing() throws {
        var snapshot = DatastoreSnapshot(rev: 2)
        try snapshot.setRecord(["a": 1], tableID: "t", recordID: "1")
        try snapshot.setRecord(["b": "xy"], tableID: "u", recordID: "1")
        try snapshot.setRecord(["a": "changed"], tableID: "t", recordID: "1")
        #expect(snapshot.rows.map(\.tableID) == ["t", "u"])
        #expect(snapshot["t", "1"] == ["a": "changed"])
        #expect(snapshot.size() == 1000 + 207 + 202)
        #expect(snapshot.rows(inTable: "u").map(\.recordID) == ["1"])
        let badTable = datastoreError { () throws(DatastoreError) in try snapshot.setRecord([:], tableID: ":", recordID: "1") }
        #expect(badTable?.kind == .invalidIdentifier && badTable?.path.description == "$.tid", "\(String(describing: badTable))")
        #expect(snapshot.removeRecord(tableID: "t", recordID: "1") == ["a": "changed"])
        #expect(snapshot.removeRecord(tableID: "t", recordID: "1") == nil)
        #expect(snapshot.tableIDs == ["u"])
        var other = DatastoreSnapshot(rev: 2)
        try other.insert(DatastoreRow(tableID: "u", recordID: "1", record: ["b": "xy"]))
        #expect(snapshot == other)
        other.rev = 3
        #expect(snapshot != other)
        let duplicate = datastoreError { () throws(DatastoreError) in
            try DatastoreSnapshot(rev: 1, rows: [
                DatastoreRow(tableID: "t", recordID: "r", record: [:]), DatastoreRow(tableID: "t", recordID: "r", record: [:]),
            ])
        }
        #expect(duplicate?.kind == .recordExists)
        #expect(duplicate?.path.description == "$.rows[1]")
    }

    @Test func specDeltaExample() {
        let delta = DatastoreDelta(rev: 0, changes: [
            .insert(tableID: "t", recordID: "r", fields: ["a": "xyz", "b": 1]),
            .delete(tableID: "t", recordID: "r"),
        ], nonce: "n")
        #expect(delta.changes[0].size() == 303)
        #expect(delta.size() == 503)
    }

    @Test func rowWire() throws {
        let row = try DatastoreRow(wire: json(#"{"rowid":"r","data":{"x":[]},"tid":"t"}"#))
        #expect(row == DatastoreRow(tableID: "t", recordID: "r", record: ["x": []]))
        #expect(row.wire.description == #"{"tid":"t","rowid":"r","data":{"x":[]}}"#)
        let error = datastoreError { () throws(DatastoreError) in try DatastoreRow(wire: json(#"{"tid":"t","rowid":5,"data":{}}"#)) }
        #expect(error?.description == "$.rowid: rowid must be a string, not a number")
    }
}
