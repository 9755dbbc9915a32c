import BriefcaseKit
import BriefcaseTestSupport
import Foundation
import Testing
@testable import BriefcaseKit
@testable import BriefcaseRecords

/// Reading: names as text, values by field name as Swift types, errors naming table, row, field.
/// Expected values are those of `Fixtures/expected/all-types.json` and `nulls.json` (checked by
/// hand when they were written), transcribed here.
struct RecordReadingTests {
    /// One property per field of all-types.daBriefcase's table.
    struct AllTypes: Codable, Equatable {
        var String: String
        var DateTime: Date
        var Float: Double
        var Currency: Decimal
        var AutoInc: Int32
        var Integer: Int
        var LargeInt: Int64
        var Boolean: Bool
        var Memo: String
        var Blob: Data
        var WideString: String
        var WideMemo: String
        var LargeAutoInc: Int64
        var Byte: UInt8
        var ShortInt: Int8
        var Word: UInt16
        var SmallInt: Int16
        var Cardinal: UInt32
        var LargeUInt: UInt64
        var Guid: UUID
        var Xml: String
        var Decimal: Decimal
        var SingleFloat: Float
        var FixedChar: String
        var FixedWideChar: String
        var Cursor: Data
    }

    @Test func everyDataTypeReadsAsItsSwiftType() throws {
        let scratch = try Scratch()
        let briefcase = try RecordBriefcase(path: try scratch.copy(fixture: "all-types.daBriefcase").path)
        #expect(briefcase.tableNames == ["AllTypes"])
        #expect(briefcase.property("Title") == "Grüße – 测试 😀")
        #expect(briefcase.properties.map(\.name) == ["Title", "Version", "Empty"])
        let table = try briefcase.table("alltypes")
        #expect(table.name == "AllTypes" && table.count == 5 && table.fields.count == 26)
        #expect(table.field("WideString")?.typeName == "datWideString" && table.field("WideString")?.size == 65536)
        #expect(table.field("String")?.property("DataType") == "datString")
        let rows = try table.rows(as: AllTypes.self)
        #expect(rows.count == 5)
        let first = rows[0]
        #expect(first.String == "Grüße 😀")
        #expect(first.DateTime == ISO8601DateFormatter().date(from: "2015-06-18T08:00:00Z"))
        #expect(first.Float == .infinity)
        #expect(first.Currency == Decimal(string: "922337203685477.5807"))
        #expect(first.AutoInc == 2_147_483_647 && first.Integer == 2_147_483_647 && first.LargeInt == .max)
        #expect(first.Boolean == true && first.Memo == "line1\r\nline2 ü")
        #expect(first.Blob == Data([0x00, 0x01, 0x7F, 0x80, 0xFF]))
        #expect(first.WideString == "Wide 😀 Ω" && first.WideMemo == "multi\nline 😀")
        #expect(first.Byte == 255 && first.ShortInt == 127 && first.Word == 65535 && first.SmallInt == 32767)
        #expect(first.Cardinal == 4_294_967_295 && first.LargeUInt == .max)
        #expect(first.Guid == UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF"))
        #expect(first.Xml == "<r a=\"😀\"/>" && first.Decimal == Decimal(string: "9999999999999999999999999999"))
        #expect(first.SingleFloat == .infinity && first.FixedChar == "ABC" && first.FixedWideChar == "Ω😀")
        #expect(first.Cursor == Data([1, 2, 3]))
        // Row 3: milliseconds, −0.0, 1.50 (the scale is not the value), a lower-case GUID on row 4.
        #expect(rows[3].DateTime == Date(timeIntervalSince1970: 1_709_214_330.123))   // 2024-02-29T13:45:30.123Z
        #expect(rows[3].Float.sign == .minus && rows[3].Float == 0 && rows[3].Decimal == Decimal(string: "1.5"))
        #expect(rows[4].Guid == UUID(uuidString: "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11"))
        #expect(rows[4].Decimal == Decimal(string: "79228162514264337593543950335"))
        #expect(rows[2].Float.isNaN && rows[1].Currency == Decimal(string: "-922337203685477.5808"))
        // The same values by name.
        let record = try table.record(at: 0)
        #expect(try record.value("LargeUInt", as: UInt64.self) == .max)
        #expect(try record.value("Integer", as: Int64.self) == 2_147_483_647)
        #expect(try record.value("guid", as: String.self) == "6F9619FF-8B86-D011-B42D-00C04FC964FF")
    }

    struct Mixed: Codable, Equatable {
        var ID: Int64?
        var Name: String?
        var Score: Double?
    }

    @Test func nullIsNilOfAnOptional() throws {
        let scratch = try Scratch()
        let briefcase = try RecordBriefcase(url: URL(fileURLWithPath: try scratch.copy(fixture: "nulls.daBriefcase").path))
        let rows = try briefcase.table("Mixed").rows(as: Mixed.self)
        #expect(rows == [Mixed(ID: 1, Name: "none", Score: 1.5), Mixed(ID: nil, Name: "first", Score: 2.5), Mixed(ID: 3, Name: "last", Score: nil),
                         Mixed(ID: 4, Name: nil, Score: 4.5), Mixed(ID: nil, Name: nil, Score: nil)])
        let record = try briefcase.table("Mixed").record(at: 1)
        #expect(try record.value("ID", as: Int64.self) == nil)
        #expect(try record.isNull("ID") && !(try record.isNull("Name")))
    }

    struct Strict: Decodable { var ID: Int64; var Name: String }
    struct WrongType: Decodable { var ID: Int64; var Name: Int64? }
    struct Unknown: Decodable { var ID: Int64?; var Nom: String }

    @Test func errorsNameTableRowAndField() throws {
        let scratch = try Scratch()
        let briefcase = try RecordBriefcase(path: try scratch.copy(fixture: "nulls.daBriefcase").path)
        let table = try briefcase.table("Mixed")
        let null = #expect(throws: RecordError.self) { try table.rows(as: Strict.self) }
        #expect(null?.kind == .null && null?.table == "Mixed" && null?.row == 1 && null?.field == "ID")
        #expect(null?.description == "Mixed: row 1, field 'ID': is NULL, which only an Optional property can take")
        let wrong = #expect(throws: RecordError.self) { try table.rows(as: WrongType.self) }
        #expect(wrong?.kind == .typeMismatch && wrong?.row == 0 && wrong?.field == "Name")
        #expect(wrong?.description == "Mixed: row 0, field 'Name': a datWideString value cannot be read as Int64")
        let unknown = #expect(throws: RecordError.self) { try table.rows(as: Unknown.self) }
        #expect(unknown?.kind == .unknownField && unknown?.field == "Nom" && unknown?.row == 0)
        let record = try table.record(at: 0)
        #expect(throws: RecordError(.typeMismatch, "a datFloat value cannot be read as Int64", table: "Mixed", row: 0, field: "Score")) {
            try record.value("Score", as: Int64.self)
        }
        #expect(throws: RecordError(.unknownField, "no field named 'Nope' (the fields are ID, Name, Score)", table: "Mixed", row: 0, field: "Nope")) {
            try record.value("Nope", as: String.self)
        }
        let wide = try briefcase.table("Wide").record(at: 0)
        // An integer out of the asked type's range is refused, never cut.
        #expect(try wide.value("C2", as: Int16.self) == -2)
        let cut = try #require(throws: RecordError.self) { try wide.value("C2", as: UInt8.self) }
        #expect(cut.kind == .typeMismatch && cut.table == "Wide" && cut.row == 0 && cut.field == "C2", "\(cut)")
        let missing = try #require(throws: RecordError.self) { try briefcase.table("Missing") }
        #expect(missing.kind == .unknownTable && missing.table == "Missing" && missing.row == nil && missing.field == nil, "\(missing)")
        let noRow = try #require(throws: RecordError.self) { try table.record(at: 5) }  // Mixed has rows 0 to 4
        #expect(noRow.kind == .noSuchRow && noRow.table == "Mixed" && noRow.row == 5 && noRow.field == nil, "\(noRow)")
    }

    /// A folder briefcase opens the same way, from its path or URL.
    @Test func aFolderBriefcase() throws {
        let scratch = try Scratch()
        let file = try RecordBriefcase(path: try scratch.copy(fixture: "nulls.daBriefcase").path)
        try file.save(to: scratch.path + "/nulls.briefcase", as: .folder)
        let folder = try RecordBriefcase(url: URL(fileURLWithPath: scratch.path + "/nulls.briefcase"))
        #expect(folder.briefcase.kind == .folder)
        #expect(Set(folder.tableNames) == ["Mixed", "Wide"])
        #expect(try folder.table("Mixed").rows(as: Mixed.self).map(\.Name) == ["none", "first", "last", nil, nil])
    }

    /// The stored rows one at a time equal the table's stored rows, for every fixture and sample.
    @Test func storedRecordsEqualTheWholeTable() throws {
        let scratch = try Scratch()
        var inputs = ["all-types.daBriefcase", "nulls.daBriefcase", "empty-delta.daBriefcase", "empty-table.daBriefcase", "gbk.daBriefcase"]
            .map { SamplePaths.fixtures.appendingPathComponent($0).path }
        inputs += SamplePaths.sampleNames.map { SamplePaths.samples.appendingPathComponent($0).path }.filter { FileManager.default.fileExists(atPath: $0) }
        var tables = 0
        for input in inputs {
            let briefcase = try RecordBriefcase(path: try scratch.write(Scratch.bytes(input), as: URL(fileURLWithPath: input).lastPathComponent))
            for name in briefcase.tableNames {
                let whole = try briefcase.table(name).records(.stored).map(\.values)
                let stored = try briefcase.storedRecords(of: name)
                #expect(stored.count == whole.count)
                let oneByOne = try stored.map { try $0.get() }
                #expect(oneByOne.map(\.values) == whole, "\(input) \(name)")
                #expect(oneByOne.map(\.position) == Array(whole.indices))
                tables += 1
            }
        }
        #expect(tables >= 10)
    }

    /// Reading the stored rows one at a time never decodes the table whole.
    @Test func storedRecordsDecodeNoTableWhole() throws {
        let scratch = try Scratch()
        let briefcase = try RecordBriefcase(path: try scratch.copy(fixture: "all-types.daBriefcase").path)
        let rows = try briefcase.storedRecords(of: "AllTypes").map { try $0.get().decode(as: AllTypes.self) }
        #expect(rows.map(\.LargeInt) == [.max, .min, 0, 1, -1])
        #expect(briefcase.briefcase.tableDecodeCount == 0)
    }
}
