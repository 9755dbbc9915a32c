
import DatastoreKit
import Testing

/// A snapshot at rev 5 with one record `t/r` = {s: "x", n: 1, l: ["a","b","c"]}.
private func base() throws -> DatastoreSnapshot {
    try DatastoreSnapshot(rev: 5, rows: [
        DatastoreRow(tableID: "t", recordID: "r", record: ["s": "x", "n": 1, "l": ["a", "b", "c"]]),
    ])
}

private func update(_ field: String, _ operation: FieldOperation) -> DatastoreDelta {
    DatastoreDelta(rev: 5, changes: [.update(tableID: "t", recordID: "r", updates: [FieldUpdate(field, operation)])],
                   nonce: "n")
}

/// The snapshot after applying one field operation to `t/r`.
private func after(_ field: String, _ operation: FieldOperation) throws -> DatastoreRecord? {
    try base().applying(update(field, operation))["t", "r"]
}

/// The error of applying one field operation to `t/r`; also checks the snapshot is untouched.
private func failure(_ field: String, _ operation: FieldOperation, sourceLocation: SourceLocation = #_sourceLocation)
    -> DatastoreError?
{
    var snapshot = try! base()
    let error = datastoreError({ () throws(DatastoreError) in try snapshot.apply(update(field, operation)) },
                               sourceLocation: sourceLocation)
    #expect(snapshot == (try! base()), sourceLocation: sourceLocation)
    #expect(snapshot.rev == 5, sourceLocation: sourceLocation)
    return error
}

@Suite("Applying deltas")
struct ApplyTests {
    // MARK: revisions

    @Test func revisionAdvances() throws {
        var snapshot = try base()
        try snapshot.apply(DatastoreDelta(rev: 5, changes: [], nonce: "a"))
        #expect(snapshot.rev == 6)
        try snapshot.apply([DatastoreDelta(rev: 6, changes: [], nonce: "b"), DatastoreDelta(rev: 7, changes: [], nonce: "c")])
        #expect(snapshot.rev == 8)
    }

    @Test func revisionMustMatch() throws {
        var snapshot = try base()
        for rev in [4, 6, 0] {
            let error = datastoreError { () throws(DatastoreError) in
                try snapshot.apply(DatastoreDelta(rev: rev, changes: [], nonce: "a"))
            }
            #expect(error?.kind == .revisionMismatch)
            #expect(error?.path.description == "$.rev")
            #expect(error?.message.hasPrefix("the delta is for revision \(rev), but the datastore is at revision 5") == true)
        }
        #expect(snapshot.rev == 5)
        // a sequence is all or nothing
        let error = datastoreError { () throws(DatastoreError) in
            try snapshot.apply([
                DatastoreDelta(rev: 5, changes: [.delete(tableID: "t", recordID: "r")], nonce: "a"),
                DatastoreDelta(rev: 7, changes: [], nonce: "b"),
            ])
        }
        #expect(error?.path.description == "$[1].rev")
        #expect(snapshot == (try base()))
    }

    // MARK: record changes

    @Test func insertUpdateDelete() throws {
        var snapshot = DatastoreSnapshot()
        try snapshot.apply(DatastoreDelta(rev: 0, changes: [
            .insert(tableID: "t", recordID: "a", fields: ["x": 1]),
            .insert(tableID: "u", recordID: "a", fields: [:]),
            .update(tableID: "t", recordID: "a", updates: [FieldUpdate("y", .put("z"))]),
        ], nonce: "n"))
        #expect(snapshot.rev == 1)
        #expect(snapshot["t", "a"] == ["x": 1, "y": "z"])
        #expect(snapshot["u", "a"] == [:])
        #expect(snapshot.tableIDs == ["t", "u"])
        try snapshot.apply(DatastoreDelta(rev: 1, changes: [
            .update(tableID: "t", recordID: "a", updates: [FieldUpdate("x", .delete), FieldUpdate("y", .delete)]),
            .delete(tableID: "u", recordID: "a"),
        ], nonce: "n"))
        // a record emptied by U still exists; a table exists while it has records
        #expect(snapshot["t", "a"] == [:])
        #expect(snapshot.contains(tableID: "t", recordID: "a"))
        #expect(!snapshot.contains(tableID: "u", recordID: "a"))
        #expect(snapshot.tableIDs == ["t"])
        // delete then insert again in one delta
        try snapshot.apply(DatastoreDelta(rev: 2, changes: [
            .delete(tableID: "t", recordID: "a"),
            .insert(tableID: "t", recordID: "a", fields: ["again": true]),
        ], nonce: "n"))
        #expect(snapshot["t", "a"] == ["again": true])
        #expect(snapshot.rev == 3)
    }

    @Test func insertingAnExistingRecordFails() throws {
        var snapshot = try base()
        let error = datastoreError { () throws(DatastoreError) in
            try snapshot.apply(DatastoreDelta(rev: 5, changes: [
                .insert(tableID: "t", recordID: "new", fields: [:]),
                .insert(tableID: "t", recordID: "r", fields: ["x": 1]),
            ], nonce: "n"))
        }
        #expect(error?.kind == .recordExists)
        #expect(error?.path.description == "$.changes[1]")
        #expect(error?.message == #"I: the record "r" of table "t" already exists"#)
        #expect(snapshot == (try base()))
        #expect(!snapshot.contains(tableID: "t", recordID: "new"))
    }

    @Test func updatingOrDeletingAMissingRecordFails() throws {
        var snapshot = try base()
        let updateError = datastoreError { () throws(DatastoreError) in
            try snapshot.apply(DatastoreDelta(rev: 5, changes: [
                .update(tableID: "t", recordID: "missing", updates: [FieldUpdate("a", .put(1))]),
            ], nonce: "n"))
        }
        #expect(updateError?.kind == .recordNotFound)
        #expect(updateError?.path.description == "$.changes[0]")
        #expect(updateError?.message == #"U: there is no record "missing" of table "t""#)
        let deleteError = datastoreError { () throws(DatastoreError) in
            try snapshot.apply(DatastoreDelta(rev: 5, changes: [
                .delete(tableID: "t", recordID: "r"),
                .delete(tableID: "t", recordID: "r"),
            ], nonce: "n"))
        }
        #expect(deleteError?.kind == .recordNotFound)
        #expect(deleteError?.path.description == "$.changes[1]")
        #expect(deleteError?.message == #"D: there is no record "r" of table "t""#)
        #expect(snapshot == (try base()))
        // same record id in another table is another record
        let otherTable = datastoreError { () throws(DatastoreError) in
            try snapshot.apply(DatastoreDelta(rev: 5, changes: [.delete(tableID: "t2", recordID: "r")], nonce: "n"))
        }
        #expect(otherTable?.kind == .recordNotFound)
    }

    @Test func invalidHandBuiltChangesFail() throws {
        var snapshot = try base()
        let badID = datastoreError { () throws(DatastoreError) in
            try snapshot.apply(DatastoreDelta(rev: 5, changes: [.insert(tableID: "t t", recordID: "r", fields: [:])], nonce: "n"))
        }
        #expect(badID?.kind == .invalidIdentifier)
        #expect(badID?.path.description == "$.changes[0][1]")
        let twice = datastoreError { () throws(DatastoreError) in
            try snapshot.apply(.update(tableID: "t", recordID: "r", updates: [FieldUpdate("a", .delete), FieldUpdate("a", .delete)]))
        }
        #expect(twice?.kind == .invalidStructure)
        #expect(twice?.path.description == "$[3].a")
        let negative = datastoreError { () throws(DatastoreError) in
            try snapshot.apply(.update(tableID: "t", recordID: "r", updates: [FieldUpdate("l", .listMove(from: 0, to: -1))]))
        }
        #expect(negative?.path.description == "$[3].l[2]")
        #expect(snapshot == (try base()))
    }

    // MARK: field operations

    @Test func put() throws {
        #expect(try after("s", .put("y"))?["s"] == "y")
        #expect(try after("new", .put(.date(3)))?["new"] == .date(3))
        #expect(try after("s", .put(["p", 2]))?["s"] == ["p", 2])  // P may carry a whole list
        #expect(try after("l", .put(7))?["l"] == 7)
        #expect(try after("new", .put(1))?.fieldNames == ["s", "n", "l", "new"])
        #expect(try after("s", .put(9))?.fieldNames == ["s", "n", "l"])  // replacing keeps the place
    }

    @Test func delete() throws {
        #expect(try after("s", .delete)?["s"] == nil)
        #expect(try after("l", .delete)?.fieldNames == ["s", "n"])
        // deleting an absent field changes nothing
        #expect(try after("absent", .delete) == (try base())["t", "r"])
    }

    @Test func listCreate() throws {
        #expect(try after("new", .listCreate)?["new"] == .list([]))
        for field in ["s", "n", "l"] {
            let error = failure(field, .listCreate)
            #expect(error?.kind == .fieldExists)
            #expect(error?.path.description == "$.changes[0][3].\(field)")
        }
        #expect(failure("s", .listCreate)?.message == #"LC: the field "s" already exists (holding a string)"#)
        #expect(failure("l", .listCreate)?.message == #"LC: the field "l" already exists (holding a list)"#)
    }

    @Test func listPut() throws {
        #expect(try after("l", .listPut(at: 0, "A"))?["l"] == ["A", "b", "c"])
        #expect(try after("l", .listPut(at: 2, 3))?["l"] == ["a", "b", 3])
        let error = failure("l", .listPut(at: 3, "x"))
        #expect(error?.kind == .indexOutOfRange)
        #expect(error?.path.description == "$.changes[0][3].l")
        #expect(error?.message == "LP: 'at' = 3 is outside the list of 3 elements (valid: 0…2)")
        #expect(failure("s", .listPut(at: 0, "x"))?.kind == .notAList)
        #expect(failure("absent", .listPut(at: 0, "x"))?.kind == .fieldNotFound)
    }

    @Test func listInsert() throws {
        #expect(try after("l", .listInsert(before: 0, "z"))?["l"] == ["z", "a", "b", "c"])
        #expect(try after("l", .listInsert(before: 1, "z"))?["l"] == ["a", "z", "b", "c"])
        #expect(try after("l", .listInsert(before: 3, "z"))?["l"] == ["a", "b", "c", "z"])  // append
        // on an absent field, index 0 creates the list
        #expect(try after("absent", .listInsert(before: 0, 1))?["absent"] == [1])
        let absent = failure("absent", .listInsert(before: 1, 1))
        #expect(absent?.kind == .fieldNotFound)
        #expect(absent?.message == #"LI: the record has no field "absent"; only index 0 creates a list (got 1)"#)
        let range = failure("l", .listInsert(before: 4, "z"))
        #expect(range?.kind == .indexOutOfRange)
        #expect(range?.message == "LI: 'before' = 4 is outside the list of 3 elements (valid: 0…3)")
        let atom = failure("n", .listInsert(before: 0, "z"))
        #expect(atom?.kind == .notAList)
        #expect(atom?.message == #"LI: the field "n" holds an integer, not a list"#)
    }

    @Test func listDelete() throws {
        #expect(try after("l", .listDelete(at: 0))?["l"] == ["b", "c"])
        #expect(try after("l", .listDelete(at: 2))?["l"] == ["a", "b"])
        #expect(failure("l", .listDelete(at: 3))?.kind == .indexOutOfRange)
        #expect(failure("s", .listDelete(at: 0))?.kind == .notAList)
        #expect(failure("absent", .listDelete(at: 0))?.message == #"LD: the record has no field "absent""#)
        // emptying a list keeps the field
        var snapshot = try base()
        try snapshot.apply(.update(tableID: "t", recordID: "r", updates: [FieldUpdate("e", .listCreate)]))
        let empty = datastoreError { () throws(DatastoreError) in
            try snapshot.apply(.update(tableID: "t", recordID: "r", updates: [FieldUpdate("e", .listDelete(at: 0))]))
        }
        #expect(empty?.message == "LD: 'at' = 0 is outside the list of 0 elements (no index is valid)")
    }

    @Test func listMove() throws {
        #expect(try after("l", .listMove(from: 0, to: 2))?["l"] == ["b", "c", "a"])
        #expect(try after("l", .listMove(from: 2, to: 0))?["l"] == ["c", "a", "b"])
        #expect(try after("l", .listMove(from: 0, to: 1))?["l"] == ["b", "a", "c"])
        #expect(try after("l", .listMove(from: 1, to: 1))?["l"] == ["a", "b", "c"])
        let from = failure("l", .listMove(from: 3, to: 0))
        #expect(from?.kind == .indexOutOfRange)
        #expect(from?.message == "LM: 'from' = 3 is outside the list of 3 elements (valid: 0…2)")
        let to = failure("l", .listMove(from: 0, to: 3))
        #expect(to?.message == "LM: 'to' = 3 is outside the list of 3 elements (valid: 0…2)")
        #expect(failure("s", .listMove(from: 0, to: 0))?.kind == .notAList)
        #expect(failure("absent", .listMove(from: 0, to: 0))?.kind == .fieldNotFound)
    }

    @Test func listOperationsOnEveryAtomType() {
        var snapshot = DatastoreSnapshot(rev: 1)
        let atoms: [String: DatastoreValue] = [
            "s": "x", "b": true, "i": 1, "d": 1.5, "t": .date(0), "y": .bytes([1]),
        ]
        try! snapshot.insert(DatastoreRow(tableID: "t", recordID: "r", record: DatastoreRecord(atoms.map { ($0.key, $0.value) })))
        let names = ["s": "a string", "b": "a boolean", "i": "an integer", "d": "a double", "t": "a date", "y": "bytes"]
        for (field, name) in names {
            let error = datastoreError { () throws(DatastoreError) in
                try snapshot.apply(.update(tableID: "t", recordID: "r", updates: [FieldUpdate(field, .listDelete(at: 0))]))
            }
            #expect(error?.message == "LD: the field \"\(field)\" holds \(name), not a list")
        }
    }

    @Test func severalOperationsInOrderAndAtomicity() throws {
        var snapshot = try base()
        try snapshot.apply(DatastoreDelta(rev: 5, changes: [
            .update(tableID: "t", recordID: "r", updates: [FieldUpdate("m", .listCreate)]),
            .update(tableID: "t", recordID: "r", updates: [FieldUpdate("m", .listInsert(before: 0, "p"))]),
            .update(tableID: "t", recordID: "r", updates: [FieldUpdate("m", .listInsert(before: 1, "q"))]),
            .update(tableID: "t", recordID: "r", updates: [FieldUpdate("m", .listMove(from: 1, to: 0)),
                                                            FieldUpdate("l", .listDelete(at: 1))]),
        ], nonce: "n"))
        #expect(snapshot["t", "r"]?["m"] == ["q", "p"])
        #expect(snapshot["t", "r"]?["l"] == ["a", "c"])
        #expect(snapshot.rev == 6)

        // a later failing operation undoes everything before it, inserts and deletes included
        let before = snapshot
        let error = datastoreError { () throws(DatastoreError) in
            try snapshot.apply(DatastoreDelta(rev: 6, changes: [
                .insert(tableID: "x", recordID: "1", fields: ["a": 1]),
                .delete(tableID: "t", recordID: "r"),
                .insert(tableID: "t", recordID: "r", fields: [:]),
                .update(tableID: "x", recordID: "1", updates: [FieldUpdate("a", .put(2)), FieldUpdate("b", .listDelete(at: 0))]),
            ], nonce: "n"))
        }
        #expect(error?.path.description == "$.changes[3][3].b")
        #expect(snapshot == before)
        #expect(snapshot.rows.map(\.recordID) == ["r"])
        #expect(snapshot.size() == before.size())
        #expect(snapshot.size(.conservative) == before.size(.conservative))
    }

    @Test func wireDeltasApply() throws {
        var snapshot = try base()
        let delta = try DatastoreDelta(wire: json("""
            {"rev":5,"changes":[["U","t","r",{"l":["LM",0,2],"n":["P",{"I":"2"}],"s":["D"]}],["I","t","q",{"v":[1.5]}]],"nonce":"abc"}
            """))
        try snapshot.apply(delta)
        #expect(snapshot["t", "r"] == ["n": 2, "l": ["b", "c", "a"]])
        #expect(snapshot["t", "q"] == ["v": [1.5]])
    }

    @Test func manyDeletesKeepOrderAndLookups() throws {
        var snapshot = DatastoreSnapshot(rev: 1)
        for i in 0..<200 { try snapshot.insert(DatastoreRow(tableID: "t", recordID: "\(i)", record: ["i": .int(Int64(i))])) }
        try snapshot.apply(DatastoreDelta(rev: 1, changes: (0..<200).filter { $0 % 4 != 0 }.map {
            .delete(tableID: "t", recordID: "\($0)")
        }, nonce: "n"))
        #expect(snapshot.recordCount == 50)
        #expect(snapshot.rows.map(\.recordID) == (0..<200).filter { $0 % 4 == 0 }.map { "\($0)" })
        #expect(snapshot["t", "196"] == ["i": 196])
        #expect(snapshot.size() == 1000 + 50 * 200)
    }
}
