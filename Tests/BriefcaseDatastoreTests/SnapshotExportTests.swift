import JSONCore
import Foundation
import Testing
import BriefcaseTestSupport
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit
@testable import BriefcaseDatastore

/// The export against expectations written by hand from Spec/datastore-mapping.md (documents,
/// changes, limit messages with sizes counted by datastore-format.md §5), and properties that need
/// no second exporter: what is exported comes back byte for byte, and the bytes do not depend on
/// how they are cut into chunks.
@Suite struct SnapshotExportTests {
    /// The document of `document`, written through a 7-byte buffer (chunk boundaries fall
    /// everywhere), with each nonce (10 URL-safe base64 characters, §2.2) replaced by `…`.
    static func export(_ document: BriefcaseDocument, codePage: CodePage = .utf8) throws -> (text: String, summary: SnapshotExportSummary) {
        let (output, summary) = try SnapshotExport.stream(document, codePage: codePage, into: ArraySink(), bufferSize: 7)
        var text = String(decoding: output.bytes, as: UTF8.self)
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var from = text.startIndex
        while let start = text.range(of: "\"nonce\":\"", range: from..<text.endIndex)?.upperBound {
            from = start
            guard let end = text.index(start, offsetBy: 10, limitedBy: text.endIndex),
                  text[start..<end].allSatisfy(alphabet.contains) else { continue }
            text.replaceSubrange(start..<end, with: "…")
            from = text.index(after: start)
        }
        return (text, summary)
    }

    static func briefcase(_ elements: [Element], container: ContainerFormat = .bin2) -> BriefcaseDocument {
        BriefcaseDocument(container: container, file: BriefcaseFile(stream: Bin2Stream(elements: elements)))
    }

    /// A table keyed by its delta's key field, and a reduced delta: an update (only the sent
    /// field), an insert, a delete, and an update that matches no row (no datastore change, its
    /// new value kept in the member, a warning).
    @Test func aTableAndItsPendingChanges() throws {
        let fields = [FieldDescriptor(name: "ID", type: .integer), FieldDescriptor(name: "Name", type: .wideString, size: 40),
                      FieldDescriptor(name: "Price", type: .currency)]
        let table = Table(name: "Orders", fields: fields, rows: [
            [.integer(1), .wide("Ann"), .currency(Currency("2.5")!)],
            [.integer(2), .wide("Bob"), nil],
        ])
        let delta = Delta(name: "Orders", loggedFields: fields.map { LoggedField(name: $0.name, type: $0.type) }, keyFields: ["ID"], changes: [
            DeltaChange(type: .update, recordID: 1100, oldValues: [.integer(2), nil, nil], newValues: [nil, .wide("Robert"), nil]),
            DeltaChange(type: .insert, recordID: 1101, oldValues: [nil, nil, nil], newValues: [.integer(3), .wide("Cy"), .currency(Currency("1.25")!)]),
            DeltaChange(type: .delete, recordID: 1102, oldValues: [.integer(1), .wide("Ann"), .currency(Currency("2.5")!)], newValues: [nil, nil, nil]),
            DeltaChange(type: .update, recordID: 1103, oldValues: [.integer(9), nil, nil], newValues: [nil, .wide("x"), nil]),
        ])
        let (text, summary) = try Self.export(Self.briefcase([.table(table), .delta(delta)]))
        let fieldObjects = #"[{"name":"ID","type":"datInteger","size":0,"id":"ID"},{"name":"Name","type":"datWideString","size":40,"id":"Name"},{"name":"Price","type":"datCurrency","size":0,"id":"Price"}]"#
        let logged = #"[{"name":"ID","type":"datInteger","id":"ID"},{"name":"Name","type":"datWideString","id":"Name"},{"name":"Price","type":"datCurrency","id":"Price"}]"#
        #expect(text == """
        {"rev":1,"rows":[
        {"tid":"Orders","rowid":"1","data":{"ID":{"I":"1"},"Name":"Ann","Price":2.5}},
        {"tid":"Orders","rowid":"2","data":{"ID":{"I":"2"},"Name":"Bob"}}
        ],"deltas":[
        {"rev":1,"changes":[["U","Orders","2",{"Name":["P","Robert"]}]],"nonce":"…"},
        {"rev":2,"changes":[["I","Orders","3",{"ID":{"I":"3"},"Name":"Cy","Price":1.25}]],"nonce":"…"},
        {"rev":3,"changes":[["D","Orders","1"]],"nonce":"…"}
        ],"briefcase":{"format":"briefcase-datastore","version":1,"container":"bin2","encoding":"utf-8","elements":[\
        {"kind":"table","name":"Orders","tid":"Orders","schema":null,"schemaEnd":"zero","fields":\(fieldObjects),"rows":["1","2"]},\
        {"kind":"delta","name":"Orders","tid":"Orders","loggedFields":\(logged),"keyFields":["ID"],"reducedDelta":1,"changes":[\
        {"type":"update","recordID":1100,"status":"pending","message":"","rowid":"2","rev":1,"change":0,"old":[2,null,null]},\
        {"type":"insert","recordID":1101,"status":"pending","message":"","rowid":"3","rev":2,"change":0,"old":[null,null,null]},\
        {"type":"delete","recordID":1102,"status":"pending","message":"","rowid":"1","rev":3,"change":0,"old":[1,"Ann","2.5"]},\
        {"type":"update","recordID":1103,"status":"pending","message":"","rowid":null,"old":[9,null,null],"new":{"1":"x"}}]}]}}

        """)
        #expect(summary.warnings == [#"table 'Orders': change 3 (record id 1103): update matches no row; not applied; it travels in the document's "briefcase" member only"#])
        #expect(summary.limitViolations.isEmpty)
        #expect(summary.rev == 1 && summary.rowCount == 2 && summary.deltaCount == 3)
    }

    /// A full delta (`reducedDelta` 0): every logged field counts as sent, a field that becomes
    /// NULL is `["D"]` only when the record has it; a delta without a table creates its records
    /// (no key: `c<recordID>`); the deltas follow the delta elements in stream order.
    @Test func aFullDeltaAndADeltaWithoutItsTable() throws {
        let fields = [FieldDescriptor(name: "K", type: .wideString, size: 10), FieldDescriptor(name: "A", type: .integer),
                      FieldDescriptor(name: "B", type: .boolean)]
        let logged = fields.map { LoggedField(name: $0.name, type: $0.type) }
        let schema = Schema(fields: [[SchemaProperty("Name", "K"), SchemaProperty("InPrimaryKey", "True")], [SchemaProperty("Name", "A")],
                                     [SchemaProperty("Name", "B")]])
        let table = Table(name: "T", schema: schema, fields: fields, rows: [[.wide("k 1"), .integer(5), nil]])
        let full = Delta(name: "T", loggedFields: logged, keyFields: [], reducedDeltaFlag: 0, changes: [
            DeltaChange(type: .update, recordID: 1, oldValues: [.wide("k 1"), .integer(5), nil], newValues: [.wide("k 1"), nil, .boolean(1)]),
        ])
        let orphan = Delta(name: "Log", loggedFields: [LoggedField(name: "Line", type: .wideString)], changes: [
            DeltaChange(type: .insert, recordID: 7, oldValues: [nil], newValues: [.wide("hello")]),
        ])
        let (text, summary) = try Self.export(Self.briefcase([.delta(orphan), .table(table), .delta(full)]))
        #expect(text.hasPrefix("""
        {"rev":1,"rows":[
        {"tid":"T","rowid":"=ayAx","data":{"K":"k 1","A":{"I":"5"}}}
        ],"deltas":[
        {"rev":1,"changes":[["I","Log","c7",{"Line":"hello"}]],"nonce":"…"},
        {"rev":2,"changes":[["U","T","=ayAx",{"K":["P","k 1"],"A":["D"],"B":["P",true]}]],"nonce":"…"}
        ],"briefcase":
        """))
        #expect(summary.warnings.isEmpty && summary.limitViolations.isEmpty)
    }

    /// Sizes by datastore-format.md §5 (conservative bytes: n, plus 1 when n mod 3 ≠ 0): a record
    /// 100 + Σ (100 + value size), a change 100 + Σ (100 + operand size), a delta 100 + Σ change.
    /// Here: a record that an update makes too large (120 300 bytes: 100 + 100 for the ID + 100 +
    /// 120 000), a delta of one insert over 2 MiB (100 + 100 + 100 + 100 + 2 200 001), a record a
    /// later update of another delta of the table makes small again (not reported), an insert of a
    /// delta without its table.
    @Test func limitsAfterThePendingChanges() throws {
        let big = ByteString((0..<120_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let huge = ByteString((0..<2_200_000).map { UInt8(truncatingIfNeeded: $0) })
        let fields = [FieldDescriptor(name: "ID", type: .integer), FieldDescriptor(name: "Data", type: .blob)]
        let schema = Schema(fields: [[SchemaProperty("Name", "ID"), SchemaProperty("InPrimaryKey", "True")],
                                     [SchemaProperty("Name", "Data")]])
        let table = Table(name: "Pictures", schema: schema, fields: fields,
                          rows: (0..<5).map { [.integer(Int64($0)), .blob(ByteString([UInt8($0)]))] })
        let logged = fields.map { LoggedField(name: $0.name, type: $0.type) }
        let delta = Delta(name: "Pictures", loggedFields: logged, keyFields: ["ID"], changes: [
            DeltaChange(type: .update, recordID: 1, oldValues: [.integer(1), .blob(ByteString([1]))], newValues: [.integer(1), .blob(big)]),
            DeltaChange(type: .delete, recordID: 2, oldValues: [.integer(2), .blob(ByteString([2]))], newValues: [nil, nil]),
            DeltaChange(type: .insert, recordID: 3, oldValues: [nil, nil], newValues: [.integer(9), .blob(huge)]),
            DeltaChange(type: .update, recordID: 4, oldValues: [.integer(77), nil], newValues: [nil, .blob(big)]),
        ])
        let second = Delta(name: "pictures", loggedFields: logged, keyFields: ["ID"], changes: [
            DeltaChange(type: .update, recordID: 5, oldValues: [.integer(9), nil], newValues: [nil, .blob(ByteString([5]))]),
            DeltaChange(type: .update, recordID: 6, oldValues: [.integer(3), nil], newValues: [nil, .blob(big)]),
        ])
        let orphan = Delta(name: "Lost", loggedFields: logged, changes: [
            DeltaChange(type: .insert, recordID: 7, oldValues: [nil, nil], newValues: [.integer(1), .blob(big)]),
        ])
        let document = Self.briefcase([.delta(orphan), .delta(delta), .table(table), .delta(second)])
        let summary = try SnapshotExport(document, codePage: .utf8).summary
        let after = "after the pending changes, "
        #expect(summary.limitViolations == [
            LimitViolation(message: "the delta for revision 4 has size 2200401 bytes; at most 2097152 are allowed", element: "Pictures"),
            LimitViolation(message: after + #"the record "1" of table "Pictures" has size 120300 bytes; at most 102400 are allowed"#, element: "Pictures"),
            LimitViolation(message: after + #"the record "3" of table "Pictures" has size 120300 bytes; at most 102400 are allowed"#, element: "Pictures"),
            LimitViolation(message: after + #"the record "c7" of table "Lost" has size 120300 bytes; at most 102400 are allowed"#, element: "Lost"),
        ])
        #expect(summary.warnings == [#"table 'Pictures': change 3 (record id 4): update matches no row; not applied; it travels in the document's "briefcase" member only"#])
        #expect(summary.rev == 1 && summary.deltaCount == 6)
    }

    /// Random briefcases (every type and its edge values, keys, record-id and JSON columns, deltas
    /// of every kind): the document is a valid datastore history, the same whatever the chunks,
    /// and it gives the briefcase back byte for byte.
    @Test(arguments: 0..<40)
    func randomBriefcasesComeBack(seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        let document = RandomBriefcase.make(&random)
        let codePage = seed % 5 == 4 ? CodePage(name: "gbk")! : .utf8
        let export = try SnapshotExport(document, codePage: codePage)
        let (chunked, _) = try SnapshotExport.stream(document, codePage: codePage, into: ArraySink(), bufferSize: 7)
        expectSameBytes(chunked.bytes, export.bytes, "seed \(seed) in 7-byte chunks")
        _ = try export.snapshotDocument().appliedSnapshot()
        let back = try SnapshotImport(parsing: export.bytes)
        #expect(back.restored)
        #expect(try back.document.encode() == document.encode(), "seed \(seed)")
    }

    /// Set `BRIEFCASE_STREAM_ELEMENTS` to a briefcase file to stream it from disk into a byte
    /// counter (run alone under `/usr/bin/time -v` to see the peak memory of that path).
    @Test(.enabled(if: environment("BRIEFCASE_STREAM_ELEMENTS") != nil, "BRIEFCASE_STREAM_ELEMENTS names no briefcase to stream"))
    func aLargeBriefcaseFromDisk() throws {
        let path = try #require(Self.environment("BRIEFCASE_STREAM_ELEMENTS"))
        let start = Date()
        let elements = try BriefcaseElements.open(path, as: .dabriefcase)
        let result = try SnapshotExport.stream(elements, into: CountingSink(), encoding: nil)
        print("streamed \(path): \(result.sink.count) bytes, \(result.summary.rowCount) rows in \(Date().timeIntervalSince(start)) s")
        #expect(result.sink.count > 0)
    }

    /// Set `BRIEFCASE_STREAM_COMPARE` to a briefcase file (e.g. the bench's 10MB one): streamed from
    /// disk and imported, it must give the file back byte for byte.
    @Test(.enabled(if: environment("BRIEFCASE_STREAM_COMPARE") != nil, "BRIEFCASE_STREAM_COMPARE names no briefcase to compare"))
    func aLargeBriefcaseFromTheEnvironmentComesBack() throws {
        let path = try #require(Self.environment("BRIEFCASE_STREAM_COMPARE"))
        let elements = try BriefcaseElements.open(path, as: .dabriefcase)
        let result = try SnapshotExport.stream(elements, into: ArraySink(), encoding: nil)
        let back = try SnapshotImport(parsing: result.sink.bytes)
        #expect(try back.document.encode() == FileIO.read(path))
    }

    static func environment(_ name: String) -> String? { ProcessInfo.processInfo.environment[name] }
}

/// Counts what is written, and keeps nothing.
struct CountingSink: ResettableByteSink {
    var count = 0
    mutating func write(_ bytes: UnsafeRawBufferPointer) { count += bytes.count }
    mutating func reset() { count = 0 }
}
