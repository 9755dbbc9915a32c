import JSONCore
import Foundation
import Testing
import BriefcaseTestSupport
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit
@testable import BriefcaseDatastore

/// Names ↔ ids, the type mapping table, record ids, limits.
struct MappingTests {
    // MARK: ids

    @Test func namesAndIDs() {
        #expect(DatastoreNames.encode("Orders") == "Orders")
        #expect(DatastoreNames.encode(":info") == ":info")
        #expect(DatastoreNames.encode("课程名称") == "=6K--56iL5ZCN56ew")
        #expect(DatastoreNames.decode("=6K--56iL5ZCN56ew") == "课程名称")
        #expect(DatastoreNames.encode("a b") == "=YSBi")
        #expect(DatastoreNames.encode("") == "=")
        #expect(DatastoreNames.decode("=") == "")
        // A valid name that is the encoding of another name is encoded itself, so decoding is unambiguous.
        #expect(DatastoreNames.encode("=YSBi") == "=" + URLSafeBase64.encode(Array("=YSBi".utf8)))
        #expect(DatastoreNames.decode(DatastoreNames.encode("=YSBi")!) == "=YSBi")
        // An id that starts with "=" but is no encoding stands for itself.
        #expect(DatastoreNames.decode("=zz") == "=zz")
        #expect(DatastoreNames.encode("=zz") == "=zz")
        // Too long to encode: nil (the long form is used).
        #expect(DatastoreNames.encode(String(repeating: "中", count: 20)) == nil)
        #expect(DatastoreNames.longForm([1, 2, 3]).count == 18)
        // encode(decode(id)) == id for valid ids, decode(encode(name)) == name for names.
        for id in ["a", "=", "==", "=YSBi", ":acl", "x/y+z=", String(repeating: "a", count: 64), "=6K--56iL5ZCN56ew", "=AA"] {
            #expect(DatastoreNames.encode(DatastoreNames.decode(id)) == id, "\(id)")
        }
        for name in ["课程编号", "a.b", "-", "=", "😀 x", "", "Grüße"] {
            let id = try! #require(DatastoreNames.encode(name))
            #expect(DatastoreIdentifier.isValid(id))
            #expect(DatastoreNames.decode(id) == name, "\(name)")
        }
    }

    @Test(.enabled(if: SamplePaths.samplesPresent, "../shared/briefcase-samples is absent"))
    func chineseColumnNamesBecomeValidIDsAndComeBack() throws {
        let loaded = try load(SamplePaths.sample(SamplePaths.sampleNames[0])!, name: SamplePaths.sampleNames[0])
        let (export, _, back) = try roundTrip(loaded)
        let fields = Set((try export.snapshotDocument().deltas ?? []).flatMap(\.changes).flatMap { change -> [String] in
            if case .insert(_, _, let record) = change { return record.fieldNames }
            return []
        })
        #expect(fields == ["=6K--56iL5ZCN56ew", "=6K--56iL57yW5Y-3"])
        #expect(fields.allSatisfy(DatastoreIdentifier.isValid))
        #expect(Set(fields.map(DatastoreNames.decode)) == ["课程名称", "课程编号"])
        let table = try #require(back.document.file.stream.table(named: "CourseInfo"))
        #expect(table.fields.map { loaded.codePage.decodeForDisplay($0.name) } == ["课程名称", "课程编号"])
        #expect(try back.document.encode() == loaded.bytes)
    }

    // MARK: the type mapping on Fixtures/all-types.daBriefcase

    @Test func typeMappingOnAllTypes() throws {
        let loaded = try fixture("all-types.daBriefcase")
        let export = try SnapshotExport(loaded.document, codePage: loaded.codePage)
        let document = try export.snapshotDocument()
        // Record ids come from the primary key (AutoInc, InPrimaryKey True).
        #expect(document.snapshot.rows.map(\.recordID) == ["2147483647", "-2147483648", "0", "1", "-1"])
        let max = try #require(document.snapshot["AllTypes", "2147483647"])
        let min = try #require(document.snapshot["AllTypes", "-2147483648"])
        let plain = try #require(document.snapshot["AllTypes", "0"])
        let four = try #require(document.snapshot["AllTypes", "1"])
        let five = try #require(document.snapshot["AllTypes", "-1"])

        // Integers → Int64, exactly, as {"I": …}.
        #expect(max["LargeInt"] == .int(.max))
        #expect(min["LargeInt"] == .int(.min))
        #expect(max["Byte"] == .int(255) && max["Cardinal"] == .int(4_294_967_295))
        #expect(max["LargeInt"]?.wire.description == #"{"I":"9223372036854775807"}"#)
        // LargeUInt ≤ Int64.max → Int64; above → nearest double, exact form in the briefcase member.
        #expect(five["LargeUInt"] == .int(.max))
        #expect(max["LargeUInt"] == .double(18_446_744_073_709_551_615.0))
        // Float / SingleFloat → Double; NaN, ±∞, -0.0.
        #expect(plain["Float"]?.wire.description == #"{"N":"nan"}"#)
        #expect(max["Float"] == .double(.infinity) && min["SingleFloat"] == .double(-.infinity))
        #expect(four["Float"] == .double(-0.0) && four["Float"] != .double(0.0))
        #expect(five["SingleFloat"] == .double(Double(Float(0.1))))
        // Boolean → Boolean; DateTime → Date (ms since 1970); Blob/Cursor → Bytes; text → String; GUID → String.
        #expect(max["Boolean"] == .bool(true) && min["Boolean"] == .bool(false))
        #expect(four["DateTime"] == .date(1_709_214_330_123))  // 2024-02-29T13:45:30.123
        #expect(plain["DateTime"] == .date(-62_135_596_800_000))  // 0001-01-01
        #expect(max["Blob"] == .bytes([0x00, 0x01, 0x7f, 0x80, 0xff]))
        #expect(max["Cursor"] == .bytes([1, 2, 3]))
        #expect(max["String"] == .string("Grüße 😀") && max["WideString"] == .string("Wide 😀 Ω"))
        #expect(max["Guid"] == .string("6F9619FF-8B86-D011-B42D-00C04FC964FF"))
        // Currency and Decimal → the nearest double; what a double cannot hold stays exact in the member.
        #expect(four["Currency"] == .double(2.5) && four["Decimal"] == .double(1.5))
        let meta = try #require(document.extras["briefcase"]?.objectValue)
        let table = try #require(meta["elements"]?[0]?.objectValue)
        let exact = try #require(table["exact"]?.objectValue)
        let columns = loaded.document.file.stream.tables[0].fields.map { $0.name.utf8String! }
        func exactForm(_ row: String, _ column: String) -> JSONValue? {
            exact[row]?[String(columns.firstIndex(of: column)!)]
        }
        #expect(exactForm("2147483647", "Currency") == .string("922337203685477.5807"))
        #expect(exactForm("-2147483648", "Currency") == .string("-922337203685477.5808"))
        #expect(exactForm("2147483647", "Decimal") == .string("9999999999999999999999999999"))
        #expect(exactForm("1", "Decimal") == .string("1.50"))   // 1.5 would lose the scale
        #expect(exactForm("2147483647", "LargeUInt") == .number("18446744073709551615"))
        #expect(exactForm("0", "Decimal") == nil)   // -0.001 is exact as a double and back
        #expect(exactForm("1", "Currency") == nil)
        // Everything else is exact in the datastore: no other exact forms.
        #expect(exact.members.flatMap { $0.value.objectValue?.keys ?? [] }.count == 7)
        // And it all comes back.
        #expect(try SnapshotImport(document).document.encode() == loaded.bytes)
    }

    @Test func inexactValuesKeepTheirExactForm() throws {
        let gbk = CodePage(name: "gbk")!
        let table = Table(name: "T", schema: nil, fields: [
            FieldDescriptor(name: "ID", type: .integer), FieldDescriptor(name: "When", type: .dateTime),
            FieldDescriptor(name: "Text", type: .string), FieldDescriptor(name: "Guid", type: .guid),
            FieldDescriptor(name: "Flag", type: .boolean), FieldDescriptor(name: "F", type: .float),
            FieldDescriptor(name: "W", type: .wideString),
        ], rows: [
            [.integer(1), .dateTime(OLEDateTime(45000.123456789)), .ansiString(ByteString([0xff, 0xfe])),
             .guid(ByteString(Array(repeating: 0xff, count: 36))), .boolean(7), .float(Double(bitPattern: 0x7ff8_0000_0000_0001)),
             .wideString(ByteString([0x00, 0xd8]))],
            [.integer(2), .dateTime(OLEDateTime(.nan)), .ansiString(ByteString([0xd6, 0xd0])), nil, .boolean(1), .float(1), .wide("ok")],
        ])
        let document = BriefcaseDocument(container: .dabriefcase, file: BriefcaseFile(stream: Bin2Stream(elements: [.table(table)])))
        let export = try SnapshotExport(document, codePage: gbk)
        let snapshot = try export.snapshotDocument()
        let first = try #require(snapshot.snapshot["T", "r0"])
        let second = try #require(snapshot.snapshot["T", "r1"])
        #expect(first["When"] == .date(19431 * 86_400_000 + 10_666_667))   // rounded to the millisecond
        #expect(second["When"] == nil)     // no date for NaN: left out, exact form kept
        #expect(second["Text"] == .string("中"))
        #expect(first["Flag"] == .bool(true))
        let meta = try #require(snapshot.extras["briefcase"]?.objectValue)
        let exact = try #require(meta["elements"]?[0]?["exact"]?.objectValue)
        #expect(exact["r0"]?.objectValue?.keys.sorted() == ["1", "2", "3", "4", "5", "6"])
        #expect(exact["r1"]?.objectValue?.keys == ["1"])
        #expect(exact["r0"]?["2"] == ["bytes": "//4="])
        #expect(exact["r0"]?["4"] == ["byte": 7])
        let back = try SnapshotImport(snapshot)
        #expect(back.document == document)
    }

    // MARK: record ids

    @Test func recordIDsFromKeysOrRowIdentity() throws {
        let schema = Schema(fields: [
            [SchemaProperty("Name", "A"), SchemaProperty("InPrimaryKey", "True")],
            [SchemaProperty("Name", "B"), SchemaProperty("InPrimaryKey", "True")],
            [SchemaProperty("Name", "C"), SchemaProperty("InPrimaryKey", "False")],
        ])
        let keyed = Table(name: "K", schema: schema, fields: [
            FieldDescriptor(name: "A", type: .wideString), FieldDescriptor(name: "B", type: .integer),
            FieldDescriptor(name: "C", type: .integer),
        ], rows: [
            [.wide("x"), .integer(1), .integer(0)],
            [.wide("a b"), .integer(-2), nil],
            [nil, .integer(3), nil],                    // NULL in the key: row identity
            [.wide("x"), .integer(1), .integer(9)],     // duplicate key: made unique
        ])
        let unkeyed = Table(name: "U", fields: [FieldDescriptor(name: "V", type: .integer)], rows: [[.integer(5)], [.integer(5)]])
        let delta = Delta(name: "U", loggedFields: [LoggedField(name: "V", type: .integer)], changes: [
            DeltaChange(type: .insert, recordID: 1100, oldValues: [nil], newValues: [.integer(6)]),
            DeltaChange(type: .update, recordID: 1101, oldValues: [.integer(6)], newValues: [.integer(7)]),
            DeltaChange(type: .delete, recordID: 1102, oldValues: [.integer(5)], newValues: [nil]),   // two rows match
        ])
        let document = BriefcaseDocument(container: .dabriefcase, file: BriefcaseFile(
            stream: Bin2Stream(elements: [.table(keyed), .table(unkeyed), .delta(delta)])))
        let export = try SnapshotExport(document, codePage: .utf8)
        let snapshot = try export.snapshotDocument()
        #expect(snapshot.snapshot.rows.map(\.recordID) == ["x.1", "=YSBi.-2", "r2", "r3", "r0", "r1"])
        #expect(snapshot.deltas?.map { $0.changes.map(\.wire.description) } == [
            [#"["I","U","c1100",{"V":{"I":"6"}}]"#],
            [#"["U","U","c1100",{"V":["P",{"I":"7"}]}]"#],
        ])
        #expect(export.summary.warnings.count == 1 && export.summary.warnings[0].contains("matches 2 rows"))
        #expect(try SnapshotImport(snapshot).document == document)
    }

    // MARK: limits

    static func bigBlob() -> BriefcaseDocument {
        let blob = ByteString((0..<150_000).map { UInt8(truncatingIfNeeded: $0) })
        let table = Table(name: "Pictures", schema: nil, fields: [
            FieldDescriptor(name: "ID", type: .integer), FieldDescriptor(name: "Data", type: .blob),
        ], rows: [[.integer(1), .blob(ByteString([1, 2, 3]))], [.integer(2), .blob(blob)]])
        return BriefcaseDocument(container: .dabriefcase, file: BriefcaseFile(stream: Bin2Stream(elements: [.table(table)])))
    }

    @Test func aRecordOver100KiBIsAViolation() throws {
        let export = try SnapshotExport(Self.bigBlob(), codePage: .utf8)
        #expect(export.summary.limitViolations.count == 1)
        let violation = try #require(export.summary.limitViolations.first)
        #expect(violation.element == "Pictures")
        #expect(violation.message == #"the record "r1" of table "Pictures" has size 150300 bytes; at most 102400 are allowed"#)
        // Written anyway, it is a valid document that comes back whole.
        let back = try SnapshotImport(parsing: export.bytes)
        #expect(back.document == Self.bigBlob())
    }
}
