import JSONCore

import DatastoreKit
import Testing

private func change(_ text: String) throws(DatastoreError) -> DatastoreChange {
    try DatastoreChange(wire: json(text))
}

private func changeError(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> DatastoreError? {
    datastoreError({ () throws(DatastoreError) in try change(text) }, sourceLocation: sourceLocation)
}

private func op(_ text: String) throws(DatastoreError) -> FieldOperation {
    try FieldOperation(wire: json(text))
}

private func opError(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> DatastoreError? {
    datastoreError({ () throws(DatastoreError) in try op(text) }, sourceLocation: sourceLocation)
}

private func written(_ operation: FieldOperation) -> String {
    var writer = JSONWriter(sink: ArraySink())
    operation.write(to: &writer)
    try! writer.flush()
    return String(decoding: writer.sink.bytes, as: UTF8.self)
}

private func written(_ change: DatastoreChange) -> String {
    var writer = JSONWriter(sink: ArraySink())
    change.write(to: &writer)
    try! writer.flush()
    return String(decoding: writer.sink.bytes, as: UTF8.self)
}

@Suite("Change and field operation wire format")
struct ChangeWireTests {
    @Test func everyFieldOperation() throws {
        let cases: [(String, FieldOperation)] = [
            (#"["P","x"]"#, .put("x")),
            (#"["P",[{"I":"1"},"a"]]"#, .put([1, "a"])),
            (#"["P",{"N":"+inf"}]"#, .put(.double(.infinity))),
            (#"["D"]"#, .delete),
            (#"["LC"]"#, .listCreate),
            (#"["LP",2,{"B":"AQ"}]"#, .listPut(at: 2, .bytes([1]))),
            (#"["LI",0,1.5]"#, .listInsert(before: 0, 1.5)),
            (#"["LD",3]"#, .listDelete(at: 3)),
            (#"["LM",4,0]"#, .listMove(from: 4, to: 0)),
        ]
        for (text, operation) in cases {
            #expect(try op(text) == operation, "\(text)")
            #expect(written(operation) == text)
            #expect(operation.wire.description == text)
        }
    }

    @Test func fieldOperationErrors() {
        #expect(opError("[]")?.message == "a field operation is an array starting with its tag; this one is empty")
        #expect(opError(#"{"P":1}"#)?.message == "a field operation must be an array, not an object")
        let unknown = opError(#"["X",1]"#)
        #expect(unknown?.message == #"unknown field operation "X"; expected P, D, LC, LP, LI, LD or LM"#)
        #expect(unknown?.path.description == "$[0]")
        #expect(opError("[1]")?.path.description == "$[0]")
        #expect(opError(#"["P"]"#)?.message == #"a P operation has 1 operand (["P", value]), not 0"#)
        #expect(opError(#"["D",1]"#)?.message == #"a D operation has 0 operands (["D"]), not 1"#)
        #expect(opError(#"["LC",[]]"#)?.kind == .invalidStructure)
        #expect(opError(#"["LP",1]"#)?.message == #"an LP operation has 2 operands (["LP", at, atom]), not 1"#)
        #expect(opError(#"["LM",1,2,3]"#)?.kind == .invalidStructure)
        // indices: non-negative integers written with digits only
        for bad in ["-1", "1.0", "1e1", "-0", "\"1\"", "null", "99999999999999999999"] {
            let error = opError(#"["LD",\#(bad)]"#)
            #expect(error?.kind == .invalidStructure, "\(bad)")
            #expect(error?.path.description == "$[1]", "\(bad)")
        }
        #expect(opError(#"["LM",0,-2]"#)?.path.description == "$[2]")
        // list operations take atoms only
        let list = opError(#"["LI",0,[1]]"#)
        #expect(list?.kind == .invalidValue)
        #expect(list?.path.description == "$[2]")
        #expect(list?.message == "LI takes a single value, not a list (only P puts a whole list)")
        #expect(opError(#"["LP",0,[]]"#)?.message == "LP takes a single value, not a list (only P puts a whole list)")
        // operand values follow the value rules
        #expect(opError(#"["P",null]"#)?.path.description == "$[1]")
        #expect(opError(#"["P",[[1]]]"#)?.path.description == "$[1][0]")
        #expect(opError(#"["LI",0,{"I":"+1"}]"#)?.path.description == "$[2].I")
    }

    @Test func everyChange() throws {
        let insert = #"["I","t","r",{"a":1.0,"b":{"I":"2"},"c":[]}]"#
        #expect(try change(insert) == .insert(tableID: "t", recordID: "r", fields: ["a": 1.0, "b": 2, "c": []]))
        let update = #"["U",":info","info",{"mtime":["P",{"T":"5"}],"title":["D"],"l":["LI",0,"x"]}]"#
        let updateChange = DatastoreChange.update(tableID: ":info", recordID: "info", updates: [
            FieldUpdate("mtime", .put(.date(5))), FieldUpdate("title", .delete), FieldUpdate("l", .listInsert(before: 0, "x")),
        ])
        #expect(try change(update) == updateChange)
        let delete = #"["D","t","r"]"#
        #expect(try change(delete) == .delete(tableID: "t", recordID: "r"))
        #expect(try change(#"["U","t","r",{}]"#) == .update(tableID: "t", recordID: "r", updates: []))
        for text in [insert, update, delete] {
            let parsed = try change(text)
            #expect(written(parsed) == text)
            #expect(parsed.wire.description == text)
        }
    }

    @Test func changeErrors() {
        #expect(changeError("[]")?.message == "a change is an array starting with its tag; this one is empty")
        #expect(changeError(#"{"I":1}"#)?.kind == .invalidStructure)
        #expect(changeError(#"["X","t","r"]"#)?.message == #"unknown change "X"; expected I, U or D"#)
        #expect(changeError(#"["I","t","r"]"#)?.message == #"an I change is ["I", tid, rowid, {fields}]: 4 elements, not 3"#)
        #expect(changeError(#"["D","t","r",{}]"#)?.message == #"a D change is ["D", tid, rowid]: 3 elements, not 4"#)
        #expect(changeError(#"["D",1,"r"]"#)?.path.description == "$[1]")
        #expect(changeError(#"["D","t",""]"#)?.path.description == "$[2]")
        #expect(changeError(#"["D","t",""]"#)?.kind == .invalidIdentifier)
        #expect(changeError(#"["I","t","r",[]]"#)?.path.description == "$[3]")
        #expect(changeError(#"["I","t","r",{"a":null}]"#)?.path.description == "$[3].a")
        #expect(changeError(#"["I","t","r",{"a b":1}]"#)?.kind == .invalidIdentifier)
        // Objects with a key twice, built in code (the parser refuses them in text).
        let fields = JSONValue.object(JSONObject([("a", 1), ("a", 2)]))
        let duplicate = datastoreError { () throws(DatastoreError) in try DatastoreChange(wire: .array(["I", "t", "r", fields])) }
        #expect(duplicate?.message == #"a record's fields has the key "a" twice"#)
        #expect(duplicate?.path.description == "$[3]")
        let operations = JSONValue.object(JSONObject([("a", .array(["D"])), ("a", .array(["LC"]))]))
        let duplicateOp = datastoreError { () throws(DatastoreError) in try DatastoreChange(wire: .array(["U", "t", "r", operations])) }
        #expect(duplicateOp?.kind == .invalidStructure)
        #expect(duplicateOp?.path.description == "$[3]")
        #expect(changeError(#"["U","t","r",{"a":["LD","0"]}]"#)?.path.description == "$[3].a[1]")
        #expect(changeError(#"["U","t","r",{"a":"P"}]"#)?.path.description == "$[3].a")
    }

    @Test func deltas() throws {
        let text = #"{"rev":12,"changes":[["D","t","r"],["I","t","r",{}]],"nonce":"AbCdEfGhIj"}"#
        let delta = try DatastoreDelta(wire: json(text))
        #expect(delta == DatastoreDelta(rev: 12, changes: [.delete(tableID: "t", recordID: "r"),
                                                           .insert(tableID: "t", recordID: "r", fields: [:])],
                                        nonce: "AbCdEfGhIj"))
        var writer = JSONWriter(sink: ArraySink())
        delta.write(to: &writer)
        try writer.flush()
        #expect(String(decoding: writer.sink.bytes, as: UTF8.self) == text)
        #expect(delta.wire.description == text)

        func deltaError(_ text: String) -> DatastoreError? {
            datastoreError { () throws(DatastoreError) in try DatastoreDelta(wire: json(text)) }
        }
        #expect(deltaError(#"{"rev":1,"changes":[]}"#)?.message == #"a delta has no "nonce""#)
        #expect(deltaError(#"{"rev":1,"changes":[],"nonce":"n","role":1}"#)?.path.description == "$.role")
        #expect(deltaError(#"{"rev":-1,"changes":[],"nonce":"n"}"#)?.path.description == "$.rev")
        #expect(deltaError(#"{"rev":1,"changes":{},"nonce":"n"}"#)?.path.description == "$.changes")
        #expect(deltaError(#"{"rev":1,"changes":[],"nonce":5}"#)?.path.description == "$.nonce")
        #expect(deltaError(#"{"rev":1,"changes":[["D","t"]],"nonce":"n"}"#)?.path.description == "$.changes[0]")
        let twice = JSONValue.object(JSONObject([("rev", 1), ("rev", 1), ("changes", .array([])), ("nonce", "n")]))
        #expect(datastoreError { () throws(DatastoreError) in try DatastoreDelta(wire: twice) }?.kind == .invalidStructure)
    }

    @Test func nonces() {
        let nonce = DatastoreDelta.makeNonce()
        #expect(nonce.count == 10)
        #expect(nonce.utf8.allSatisfy { DatastoreIdentifier.isAllowedCharacter($0) && $0 != UInt8(ascii: "+") })
        #expect(DatastoreDelta.makeNonce() != nonce)
    }
}
