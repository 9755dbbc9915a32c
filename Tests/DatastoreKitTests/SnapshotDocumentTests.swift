import JSONCore

import DatastoreKit
import Testing

private func documentError(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> DatastoreError? {
    datastoreError({ () throws(DatastoreError) in try SnapshotDocument(parsing: text) }, sourceLocation: sourceLocation)
}

private func string(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

@Suite("Snapshot documents")
struct SnapshotDocumentTests {
    /// Hand-written in exactly the writer's layout.
    static let canonical = """
        {"rev":3,"rows":[
        {"tid":"people","rowid":"zoe","data":{"name":"Zoë","age":{"I":"43"},"alive":true,"born":{"T":"-86400000"},"pic":{"B":"AAEC_w"},"nan":{"N":"nan"},"w":1.5}},
        {"tid":"people","rowid":"bob","data":{"name":"Bob","tags":["a",{"I":"-9223372036854775808"},{"N":"-inf"},{"B":""}]}},
        {"tid":":info","rowid":"info","data":{"mtime":{"T":"1376000000000"},"title":"T \\"quoted\\"\\n"}},
        {"tid":"empty","rowid":"e","data":{}}
        ],"deltas":[
        {"rev":3,"changes":[["U","people","bob",{"tags":["LM",0,3],"x":["LC"]}],["D","empty","e"]],"nonce":"abcdefghij"},
        {"rev":4,"changes":[["I","people","amy",{"n":{"I":"1"}}],["U","people","amy",{"n":["P",[1.0,{"T":"0"}]],"m":["LI",0,"a"]}],["U","people","zoe",{"pic":["D"],"w":["P",-2.5e-05]}],["U","people","bob",{"tags":["LP",0,{"I":"7"}],"x":["LI",0,"y"]}],["U","people","bob",{"tags":["LD",1]}]],"nonce":"k"}
        ],"schema":{"people":["name","age"]},"decimals":[]}

        """

    @Test func writerOutputIsExactlyTheHandWrittenText() throws {
        let document = try SnapshotDocument(parsing: Self.canonical)
        let output = string(try document.serialized())
        #expect(output == Self.canonical)
        for (written, expected) in zip(output.split(separator: "\n"), Self.canonical.split(separator: "\n")) where written != expected {
            Issue.record("written:  \(written)\nexpected: \(expected)")
        }
    }

    @Test func parseWriteParseIsEqual() throws {
        let document = try SnapshotDocument(parsing: Self.canonical)
        let again = try SnapshotDocument(parsing: try document.serialized())
        #expect(again == document)
        #expect(again.snapshot.rows.map(\.recordID) == ["zoe", "bob", "info", "e"])
        #expect(again.extras.keys == ["schema", "decimals"])
        #expect(again.deltas?.count == 2)
    }

    @Test func modelContent() throws {
        let document = try SnapshotDocument(parsing: Self.canonical)
        let snapshot = document.snapshot
        #expect(snapshot.rev == 3)
        #expect(snapshot.recordCount == 4)
        #expect(snapshot.tableIDs == ["people", ":info", "empty"])
        #expect(snapshot["people", "zoe"]?["age"] == 43)
        #expect(snapshot["people", "zoe"]?["w"] == 1.5)
        #expect(snapshot["people", "zoe"]?.fieldNames == ["name", "age", "alive", "born", "pic", "nan", "w"])
        #expect(snapshot[":info", "info"]?["title"] == "T \"quoted\"\n")
        #expect(document.extras["schema"] == ["people": ["name", "age"]])
        let applied = try document.appliedSnapshot()
        #expect(applied.rev == 5)
        #expect(applied["people", "bob"]?["tags"] == [7, .bytes([]), "a"])
        #expect(applied["people", "bob"]?["x"] == ["y"])
        #expect(applied["people", "zoe"]?["w"] == -0.000025)
        #expect(applied["people", "amy"] == ["n": [1.0, .date(0)], "m": ["a"]])
        #expect(applied["people", "zoe"]?["pic"] == nil)
        #expect(!applied.contains(tableID: "empty", recordID: "e"))
        #expect(applied.tableIDs == ["people", ":info"])
    }

    @Test func inputLayoutDoesNotMatter() throws {
        let spaced = """
            {
              "decimals": [],
              "rows": [ { "data": { "a": 1 }, "rowid": "r", "tid": "t" } ],
              "rev": 2
            }
            """
        let document = try SnapshotDocument(parsing: spaced)
        #expect(document.deltas == nil)
        #expect(string(try document.serialized()) == """
            {"rev":2,"rows":[
            {"tid":"t","rowid":"r","data":{"a":1.0}}
            ],"decimals":[]}

            """)
    }

    @Test func smallestDocuments() throws {
        let empty = try SnapshotDocument(parsing: #"{"rev":0,"rows":[]}"#)
        #expect(empty.snapshot == DatastoreSnapshot())
        #expect(empty.deltas == nil)
        #expect(string(try empty.serialized()) == "{\"rev\":0,\"rows\":[]}\n")
        let emptyDeltas = try SnapshotDocument(parsing: #"{"rev":0,"rows":[],"deltas":[]}"#)
        #expect(emptyDeltas.deltas == [])
        #expect(string(try emptyDeltas.serialized()) == "{\"rev\":0,\"rows\":[],\"deltas\":[]}\n")
        let withDelta = SnapshotDocument(snapshot: DatastoreSnapshot(), deltas: [
            DatastoreDelta(rev: 0, changes: [.insert(tableID: "t", recordID: "r", fields: ["b": .bytes([0xFF])])], nonce: "n"),
        ])
        #expect(string(try withDelta.serialized()) == """
            {"rev":0,"rows":[],"deltas":[
            {"rev":0,"changes":[["I","t","r",{"b":{"B":"_w"}}]],"nonce":"n"}
            ]}

            """)
    }

    @Test func structureErrors() {
        #expect(documentError("[]")?.message == "a snapshot document must be an object, not an array")
        #expect(documentError(#"{"rows":[]}"#)?.message == #"a snapshot document has no "rev""#)
        #expect(documentError(#"{"rev":0}"#)?.message == #"a snapshot document has no "rows""#)
        #expect(documentError(#"{"rev":"1","rows":[]}"#)?.path.description == "$.rev")
        #expect(documentError(#"{"rev":1.0,"rows":[]}"#)?.message == "rev must be a non-negative integer written with digits only (got 1.0)")
        #expect(documentError(#"{"rev":-1,"rows":[]}"#)?.path.description == "$.rev")
        #expect(documentError(#"{"rev":0,"rows":{}}"#)?.path.description == "$.rows")
        // A key given twice is not JSON this tool reads (at the second one's quote); a document
        // built in code with one is refused by the structure check.
        let twice = documentError(#"{"rev":0,"rows":[],"rev":1}"#)
        #expect(twice?.kind == .malformedJSON)
        #expect(twice?.offset == 19)
        #expect(twice?.message == #"not valid JSON: duplicate key "rev" in an object"#)
        let built = datastoreError { () throws(DatastoreError) in
            try SnapshotDocument(json: .object(JSONObject([("rev", 0), ("rows", .array([])), ("x", 1), ("x", 2)])))
        }
        #expect(built?.message == #"a snapshot document has the key "x" twice"#)
        let rev0 = documentError(#"{"rev":0,"rows":[{"tid":"t","rowid":"r","data":{}}]}"#)
        #expect(rev0?.path.description == "$.rev")
        #expect(rev0?.message == "rev is 0 but there are 1 rows; a datastore with records is at revision 1 or later")
        // rows
        #expect(documentError(#"{"rev":1,"rows":[[]]}"#)?.path.description == "$.rows[0]")
        #expect(documentError(#"{"rev":1,"rows":[{"tid":"t","rowid":"r"}]}"#)?.message == #"a row has no "data""#)
        let extraKey = documentError(#"{"rev":1,"rows":[{"tid":"t","rowid":"r","data":{},"x":1}]}"#)
        #expect(extraKey?.path.description == "$.rows[0].x")
        #expect(documentError(#"{"rev":1,"rows":[{"tid":"t","rowid":"r","data":[]}]}"#)?.path.description == "$.rows[0].data")
        let duplicate = documentError("""
            {"rev":1,"rows":[{"tid":"t","rowid":"r","data":{}},{"tid":"u","rowid":"r","data":{}},{"tid":"t","rowid":"r","data":{"a":1}}]}
            """)
        #expect(duplicate?.kind == .recordExists)
        #expect(duplicate?.path.description == "$.rows[2]")
        // deltas
        #expect(documentError(#"{"rev":1,"rows":[],"deltas":{}}"#)?.path.description == "$.deltas")
        let first = documentError(#"{"rev":1,"rows":[],"deltas":[{"rev":2,"changes":[],"nonce":"n"}]}"#)
        #expect(first?.kind == .revisionMismatch)
        #expect(first?.path.description == "$.deltas[0].rev")
        #expect(first?.message == "the delta is at revision 2; the first delta must be at the snapshot's revision 1")
        let gap = documentError("""
            {"rev":1,"rows":[],"deltas":[{"rev":1,"changes":[],"nonce":"n"},{"rev":3,"changes":[],"nonce":"n"}]}
            """)
        #expect(gap?.path.description == "$.deltas[1].rev")
        #expect(gap?.message == "the delta is at revision 3; each delta follows the previous one, so this one must be at revision 2")
        #expect(documentError(#"{"rev":1,"rows":[],"deltas":[{"rev":1,"changes":[["X"]],"nonce":"n"}]}"#)?.path.description
            == "$.deltas[0].changes[0][0]")
    }

    @Test func malformedJSON() {
        let error = documentError(#"{"rev":1,"rows":[}"#)
        #expect(error?.kind == .malformedJSON)
        #expect(error?.message == "not valid JSON: unexpected '}', expected a JSON value")
        #expect(error?.offset == 17)
    }

    @Test func applyErrorsNameTheDelta() throws {
        let document = try SnapshotDocument(parsing: """
            {"rev":1,"rows":[{"tid":"t","rowid":"r","data":{"l":["a"]}}],"deltas":[
            {"rev":1,"changes":[],"nonce":"a"},
            {"rev":2,"changes":[["U","t","r",{"l":["LD",1]}]],"nonce":"b"}]}
            """)
        let error = datastoreError { () throws(DatastoreError) in try document.appliedSnapshot() }
        #expect(error?.kind == .indexOutOfRange)
        #expect(error?.path.description == "$.deltas[1].changes[0][3].l")
        #expect(error?.description == "$.deltas[1].changes[0][3].l: LD: 'at' = 1 is outside the list of 1 element (valid: 0…0)")
    }

    @Test func writerRefusesWhatCannotBeReadBack() throws {
        func writeError(_ document: SnapshotDocument) -> DatastoreError? {
            datastoreError { () throws(DatastoreError) in try document.serialized() }
        }
        var snapshot = DatastoreSnapshot(rev: 1)
        try snapshot.insert(DatastoreRow(tableID: "t", recordID: "r", record: [:]))
        // Each refusal: its kind and the JSON path of what cannot be read back.
        func expectRefused(_ document: SnapshotDocument, _ kind: DatastoreError.Kind, at path: String,
                           sourceLocation: SourceLocation = #_sourceLocation) {
            let error = writeError(document)
            #expect(error?.kind == kind && error?.path.description == path, "\(String(describing: error))", sourceLocation: sourceLocation)
        }
        expectRefused(SnapshotDocument(snapshot: snapshot, extras: ["rows": 1]), .invalidStructure, at: "$.rows")
        expectRefused(SnapshotDocument(snapshot: snapshot, extras: ["deltas": 1]), .invalidStructure, at: "$.deltas")
        expectRefused(SnapshotDocument(snapshot: snapshot, extras: ["x": 1, "x": 2]), .invalidStructure, at: "$.x")
        let badDelta = SnapshotDocument(snapshot: snapshot, deltas: [
            DatastoreDelta(rev: 1, changes: [], nonce: "n"),
            DatastoreDelta(rev: 2, changes: [.delete(tableID: "t", recordID: "bad id")], nonce: "n"),
        ])
        expectRefused(badDelta, .invalidIdentifier, at: "$.deltas[1].changes[0][2]")
        let badSequence = SnapshotDocument(snapshot: snapshot, deltas: [DatastoreDelta(rev: 0, changes: [], nonce: "n")])
        expectRefused(badSequence, .revisionMismatch, at: "$.deltas[0].rev")
        snapshot.rev = 0
        expectRefused(SnapshotDocument(snapshot: snapshot), .invalidStructure, at: "$.rev")
        let twice = datastoreError { () throws(DatastoreError) in try snapshot.insert(DatastoreRow(tableID: "t", recordID: "r", record: [:])) }
        #expect(twice?.kind == .recordExists && twice?.path == .root, "\(String(describing: twice))")
        var other = DatastoreSnapshot(rev: 1)
        let badName = datastoreError { () throws(DatastoreError) in
            try other.insert(DatastoreRow(tableID: "t", recordID: "r", record: ["ok": 1, "bad name": 1]))
        }
        #expect(badName?.path.description == #"$.data["bad name"]"#)
        #expect(other.isEmpty)
    }

    @Test func streamingWriter() throws {
        var writer = JSONWriter(sink: ArraySink(), bufferSize: 16)
        var document = SnapshotDocumentWriter(rev: 9)
        try document.writeRow(tableID: "t", recordID: "1", record: ["a": "x"], to: &writer)
        try document.writeRow(DatastoreRow(tableID: "t", recordID: "2", record: ["b": .bytes([1, 2])]), to: &writer)
        // refused pieces leave the output untouched; each error names its kind and its place
        func expectRefused(_ kind: DatastoreError.Kind, at path: String, sourceLocation: SourceLocation = #_sourceLocation,
                           _ body: (inout SnapshotDocumentWriter, inout JSONWriter<ArraySink>) throws(DatastoreError) -> Void) {
            let error = datastoreError({ () throws(DatastoreError) in try body(&document, &writer) }, sourceLocation: sourceLocation)
            #expect(error?.kind == kind && error?.path.description == path, "\(String(describing: error))", sourceLocation: sourceLocation)
        }
        expectRefused(.recordExists, at: "$.rows[2]") { (d, w) throws(DatastoreError) in try d.writeRow(tableID: "t", recordID: "1", record: [:], to: &w) }
        expectRefused(.invalidIdentifier, at: "$.rows[2].rowid") { (d, w) throws(DatastoreError) in try d.writeRow(tableID: "t", recordID: "", record: [:], to: &w) }
        #expect(document.rowCount == 2)
        #expect(document.size() == 1000 + 201 + 202)
        #expect(document.size(.conservative) == 1000 + 201 + 203)
        try document.writeDelta(DatastoreDelta(rev: 9, changes: [], nonce: "n"), to: &writer)
        expectRefused(.revisionMismatch, at: "$.deltas[1].rev") { (d, w) throws(DatastoreError) in try d.writeDelta(DatastoreDelta(rev: 9, changes: [], nonce: "n"), to: &w) }
        expectRefused(.invalidStructure, at: "$.rows[2]") { (d, w) throws(DatastoreError) in try d.writeRow(tableID: "t", recordID: "3", record: [:], to: &w) }
        try document.writeExtra(key: "note", value: "hi", to: &writer)
        expectRefused(.invalidStructure, at: "$.deltas[1]") { (d, w) throws(DatastoreError) in try d.writeDelta(DatastoreDelta(rev: 10, changes: [], nonce: "n"), to: &w) }
        try document.finish(to: &writer)
        expectRefused(.invalidStructure, at: "$") { (d, w) throws(DatastoreError) in try d.finish(to: &w) }
        try writer.flush()
        let text = string(writer.sink.bytes)
        #expect(text == """
            {"rev":9,"rows":[
            {"tid":"t","rowid":"1","data":{"a":"x"}},
            {"tid":"t","rowid":"2","data":{"b":{"B":"AQI"}}}
            ],"deltas":[
            {"rev":9,"changes":[],"nonce":"n"}
            ],"note":"hi"}

            """)
        #expect(try SnapshotDocument(parsing: text).snapshot.recordCount == 2)
    }

    @Test func largeRoundTrip() throws {
        var snapshot = DatastoreSnapshot(rev: 1)
        for i in 0..<2000 {
            try snapshot.insert(DatastoreRow(tableID: "t\(i % 7)", recordID: "r\(i)", record: [
                "i": .int(Int64(i) * 1_000_003), "d": .double(Double(i) / 3), "s": .string(String(repeating: "é", count: i % 13)),
                "l": .list((0..<(i % 5)).map { .int(Int64($0)) }), "b": .bytes(Array(repeating: UInt8(i % 256), count: i % 4)),
            ]))
        }
        let document = SnapshotDocument(snapshot: snapshot, extras: ["meta": ["n": 2000]])
        let bytes = try document.serialized()
        let again = try SnapshotDocument(parsing: bytes)
        #expect(again == document)
        #expect(try again.serialized() == bytes)
        #expect(again.snapshot.size() == snapshot.size())
    }
}
