import Foundation
import Testing
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit
@testable import BriefcaseDatastore

/// A snapshot written by something else (no `briefcase` member) → briefcase → snapshot.
struct PlainSnapshotTests {
    /// Every value type, lists (empty, mixed), a field with mixed types, reserved tables,
    /// an encoded table id, an empty record, and deltas with I, U (P, D, LC, LP, LI, LD, LM) and D.
    static let plain = """
    {"rev":7,"rows":[
    {"tid":":info","rowid":"info","data":{"mtime":{"T":"1376000000000"},"title":"Todo"}},
    {"tid":":acl","rowid":"team","data":{"role":{"I":"2000"}}},
    {"tid":"tasks","rowid":"t1","data":{"name":"Zoë","count":{"I":"-9223372036854775808"},"done":false,"score":2.5,"due":{"T":"-86400000"},"pic":{"B":"AAEC_w"},"tags":["a",{"I":"1"},2.5,{"T":"0"},true,{"B":"AQ"}],"nan":{"N":"nan"},"inf":{"N":"-inf"},"mixed":"text"}},
    {"tid":"tasks","rowid":"t2","data":{"name":"Bob","count":{"I":"9223372036854775807"},"done":true,"score":-0.0,"tags":[],"mixed":{"I":"5"}}},
    {"tid":"=6K--56iL5ZCN56ew","rowid":"=YWJj","data":{"=6K--56iL57yW5Y-3":"2013021202","Name":"x","name":"y"}},
    {"tid":"t","rowid":"empty","data":{}},
    {"tid":"far","rowid":"f","data":{"when":{"T":"-9223372036854775808"},"big":1e300}}
    ],"deltas":[
    {"rev":7,"changes":[["I","tasks","t3",{"name":"New","tags":["x"]}],["U","tasks","t1",{"name":["P","Zoe"],"score":["D"],"tags":["LP",0,"b"]}]],"nonce":"n1"},
    {"rev":8,"changes":[["U","tasks","t2",{"tags":["LI",0,"first"],"extra":["LC"]}],["U","tasks","t1",{"tags":["LD",1]}],["U","tasks","t1",{"tags":["LM",0,2]}],["D","t","empty"],["U",":info","info",{"mtime":["P",{"T":"1376000001000"}]}]],"nonce":"n2"},
    {"rev":9,"changes":[["D","tasks","t3"],["I","tasks","t3",{"name":"again","pic":{"B":""}}],["I","fresh","r",{"v":[{"I":"1"}]}],["U","tasks","t2",{"done":["P",false],"extra":["LI",0,{"N":"+inf"}]}]],"nonce":"n3"},
    {"rev":10,"changes":[],"nonce":"n4"}
    ],"role":3000}
    """

    @Test func plainSnapshotBecomesAValidBriefcaseAndComesBack() throws {
        let original = try SnapshotDocument(parsing: Self.plain)
        let imported = try SnapshotImport(original)
        #expect(!imported.restored)

        // A valid briefcase that a Data Abstract client can read: encode, decode, validate.
        let bytes = try imported.document.encode()
        var warnings: [DecodingWarning] = []
        let decoded = try BriefcaseDocument.decode(bytes, as: .dabriefcase, warnings: &warnings)
        #expect(decoded == imported.document)
        #expect(warnings.isEmpty)
        let report = Validator.validate(bytes: bytes, container: .dabriefcase, path: "plain")
        #expect(report.errors.isEmpty, "\(report.errors)")
        #expect(report.warnings.isEmpty, "\(report.warnings)")
        for table in decoded.file.stream.tables {
            let schema = try #require(table.schema)
            #expect(schema.fields.count == table.fields.count)
            for properties in schema.fields {
                for name in ["Name", "DataType", "InPrimaryKey", "LogChanges"] {
                    #expect(properties.value(named: name) != nil, "\(name) in \(table.name)")
                }
            }
        }
        // Names: reserved tables keep their ids as names; encoded ids are decoded.
        let names = decoded.file.stream.tables.map { $0.name.utf8String ?? "?" }
        #expect(names.contains(":info") && names.contains(":acl") && names.contains("课程名称"))
        let course = try #require(decoded.file.stream.table(named: ByteString(utf8: "课程名称")))
        #expect(course.fields.map { $0.name.utf8String ?? "" }.contains("课程编号"))
        // "Name" and "name" collide for Data Abstract (case-insensitive): the second keeps its id as name.
        #expect(course.fields.map { $0.name.utf8String ?? "" } == ["rowid", "课程编号", "Name", "name~2"])

        // Back to a snapshot: the same datastore before and after every delta.
        let export = try SnapshotExport(decoded, codePage: .utf8)
        #expect(export.summary.warnings.isEmpty, "\(export.summary.warnings)")
        #expect(export.summary.limitViolations.isEmpty)
        let again = try SnapshotDocument(parsing: export.bytes)
        #expect(again.snapshot == original.snapshot)
        #expect(again.deltas?.count == original.deltas?.count)
        var left = original.snapshot, right = again.snapshot
        for (a, b) in zip(original.deltas ?? [], again.deltas ?? []) {
            #expect(a.rev == b.rev && a.nonce == b.nonce)
            try left.apply(a)
            try right.apply(b)
            #expect(left == right)
        }
        #expect(try again.appliedSnapshot() == original.appliedSnapshot())
        #expect(again.extras["role"] == original.extras["role"])

        // And that document, read again, gives the same briefcase byte for byte.
        let back = try SnapshotImport(again)
        #expect(back.restored)
        #expect(try back.document.encode() == bytes)
    }

    @Test func inferredTypes() throws {
        let imported = try SnapshotImport(try SnapshotDocument(parsing: Self.plain))
        let tasks = try #require(imported.document.file.stream.table(named: "tasks"))
        func type(_ name: String) -> String? {
            tasks.fields.first { $0.name.utf8String == name }?.type.name
        }
        #expect(type("rowid") == "datWideString")
        #expect(type("name") == "datWideString")
        #expect(type("count") == "datLargeInt")
        #expect(type("done") == "datBoolean")
        #expect(type("score") == "datFloat")
        #expect(type("due") == "datDateTime")
        #expect(type("pic") == "datBlob")
        #expect(type("tags") == "datWideMemo")    // lists: JSON text
        #expect(type("mixed") == "datWideMemo")   // a string and an integer: JSON text
        #expect(type("nan") == "datFloat")
        let far = try #require(imported.document.file.stream.table(named: "far"))
        #expect(far.fields.first { $0.name.utf8String == "when" }?.type == .wideMemo)  // beyond year 1–9999
        // The list column is marked so the way back reads JSON.
        let tags = try #require(tasks.fields.firstIndex { $0.name.utf8String == "tags" })
        #expect(tasks.schema?.fields[tags].value(named: "CustomAttributes") == "Datastore.Field=tags;Datastore.JSON")
        // A field removed by ["D"] needs a full delta (NULL and "not sent" look the same in a reduced one).
        #expect(imported.document.file.stream.delta(named: "tasks")?.reducedDeltaFlag == 0)
        #expect(imported.document.file.stream.delta(named: ":info")?.reducedDeltaFlag == 1)
    }

    @Test(arguments: [
        #"{"rev":9223372036854775807,"rows":[{"tid":"t","rowid":"r","data":{"a":"x"}}]}"#,
        #"{"rev":9223372036854775806,"rows":[{"tid":"t","rowid":"r","data":{"a":"x"}}],"deltas":[{"rev":9223372036854775806,"changes":[["D","t","r"]],"nonce":"n"}]}"#,
        #"{"rev":0,"rows":[],"deltas":[{"rev":0,"changes":[],"nonce":""},{"rev":1,"changes":[["I","t","r",{}]],"nonce":"x"}]}"#,
    ])
    func extremeRevisionsComeBack(text: String) throws {
        let original = try SnapshotDocument(parsing: text)
        let briefcase = try SnapshotImport(original).document
        let again = try SnapshotDocument(parsing: try SnapshotExport(briefcase, codePage: .utf8).bytes)
        #expect(again.snapshot == original.snapshot)
        #expect(again.deltas?.map(\.rev) == original.deltas?.map(\.rev) ?? [])
        #expect(try again.appliedSnapshot() == original.appliedSnapshot())
    }
}
