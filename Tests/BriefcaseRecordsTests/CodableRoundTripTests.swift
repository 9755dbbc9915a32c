import BriefcaseKit
import BriefcaseTestSupport
import Foundation
import Testing
@testable import BriefcaseRecords

/// A new table from `Encodable` values (schema inferred), saved and read back into the same type.
struct CodableRoundTripTests {
    enum Status: String, Codable { case open, closed }

    struct Every: Codable, Equatable {
        var id: Int64
        var int: Int
        var int32: Int32
        var int16: Int16
        var int8: Int8
        var uint64: UInt64
        var uint32: UInt32
        var uint16: UInt16
        var uint8: UInt8
        var double: Double
        var float: Float
        var decimal: Decimal
        var date: Date
        var uuid: UUID
        var data: Data
        var text: String
        var flag: Bool
        var note: String?
        var status: Status
    }

    static let values = [
        Every(id: 1, int: .max, int32: .min, int16: .max, int8: .min, uint64: .max, uint32: .max, uint16: .max, uint8: .max,
              double: -0.0, float: .greatestFiniteMagnitude, decimal: Decimal(string: "-79228162514264337593543950335")!,
              date: Date(timeIntervalSince1970: 1_700_000_000.123), uuid: UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!,
              data: Data([0, 1, 255]), text: "Grüße 😀", flag: true, note: nil, status: .open),
        Every(id: 2, int: 0, int32: 7, int16: -1, int8: 1, uint64: 0, uint32: 0, uint16: 0, uint8: 0,
              double: 1.5e300, float: 0.1, decimal: Decimal(string: "0.0000000000000000000000000001")!,
              date: Date(timeIntervalSince1970: -2_208_988_800), uuid: UUID(uuidString: "00000000-0000-0000-0000-000000000000")!,
              data: Data(), text: "", flag: false, note: "a note", status: .closed),
    ]

    @Test func everyTypeRoundTripsThroughANewTable() throws {
        let scratch = try Scratch()
        let table = try RecordTable(name: "Every", rows: Self.values, primaryKey: ["id"])
        // The inferred schema (Spec/records-api.md §4).
        #expect(table.fields.map(\.typeName) == ["datLargeInt", "datLargeInt", "datInteger", "datSmallInt", "datShortInt", "datLargeUInt",
                                                 "datCardinal", "datWord", "datByte", "datFloat", "datSingleFloat", "datDecimal", "datDateTime",
                                                 "datGuid", "datBlob", "datWideString", "datBoolean", "datWideString", "datWideString"])
        #expect(table.fields.map(\.name) == ["id", "int", "int32", "int16", "int8", "uint64", "uint32", "uint16", "uint8", "double", "float",
                                             "decimal", "date", "uuid", "data", "text", "flag", "note", "status"])
        #expect(table.keyFields == ["id"] && table.field("id")?.isPrimaryKey == true)
        #expect(table.pendingDelta == nil)
        for kind in [Briefcase.Kind.file, .folder] {
            let path = scratch.path + (kind == .file ? "/every.daBriefcase" : "/every.briefcase")
            let briefcase = RecordBriefcase(newAt: path, kind: kind)
            try briefcase.setTable(table)
            try briefcase.save()
            let reopened = try RecordBriefcase(path: path)
            #expect(reopened.tableNames == ["Every"])
            let read = try reopened.table("Every")
            #expect(try read.rows(as: Every.self) == Self.values)
            #expect(read.fields == table.fields)
        }
    }

    /// Every Data Abstract type written from its Swift type: a row of all-types.daBriefcase
    /// changed in every logged field (Cursor is not logged there), saved, read back.
    @Test func everyDataTypeIsWrittenFromItsSwiftType() throws {
        let scratch = try Scratch()
        let path = try scratch.copy(fixture: "all-types.daBriefcase").path
        let briefcase = try RecordBriefcase(path: path)
        var table = try briefcase.table("AllTypes")
        var row = try table.record(at: 4).decode(as: RecordReadingTests.AllTypes.self)
        row.String = "Straße"; row.DateTime = Date(timeIntervalSince1970: 86_400.5); row.Float = -2.25
        row.Currency = Decimal(string: "-12.3456")!; row.AutoInc = 77; row.Integer = -5; row.LargeInt = 1 << 40
        row.Boolean = false; row.Memo = "memo 2"; row.Blob = Data([9, 8]); row.WideString = "Ω 2"; row.WideMemo = "😀 2"
        row.LargeAutoInc = -(1 << 40); row.Byte = 200; row.ShortInt = -100; row.Word = 40_000; row.SmallInt = -30_000
        row.Cardinal = 3_000_000_000; row.LargeUInt = 1 << 63; row.Guid = UUID(uuidString: "12345678-1234-1234-1234-123456789ABC")!
        row.Xml = "<y/>"; row.Decimal = Decimal(string: "-123456789.123456789")!; row.SingleFloat = 0.25
        row.FixedChar = "fix"; row.FixedWideChar = "wíde"
        try table.update(at: 4, to: row)
        let change = try #require(table.pendingChanges.first)
        #expect(table.pendingChanges.count == 1 && change.type == .update && change.recordID == 1100)
        try briefcase.setTable(table)
        try briefcase.save()
        let read = try RecordBriefcase(path: path).table("AllTypes")
        #expect(try read.rows(as: RecordReadingTests.AllTypes.self)[4] == row)
        // As stored: the types' own encodings (hand-written).
        let values = try read.record(at: 4)
        #expect(values["String"] == .ansiString(ByteString(utf8: "Straße")))
        // 1970-01-02T00:00:00.500Z: OLE day 25 570 and 500 ms, the nearest double to that many days.
        #expect(values["DateTime"] == .dateTime(OLEDateTime(Double(25_570 * 86_400_000 + 500) / 86_400_000)))
        #expect(values["Currency"] == .currency(Currency(scaled: -123_456)))
        #expect(values["Decimal"] == .decimal(Decimal96("-123456789.123456789")!))
        #expect(values["Guid"] == .guid(ByteString(utf8: "12345678-1234-1234-1234-123456789ABC")))
        #expect(values["Boolean"] == .boolean(0) && values["Byte"] == .integer(200) && values["LargeUInt"] == .largeUInt(1 << 63))
        #expect(values["SingleFloat"] == .singleFloat(0.25) && values["FixedWideChar"] == .wide("wíde"))
    }

    struct Nested: Codable { var id: Int64; var tags: [String] }
    struct AlwaysNil: Codable { var id: Int64; var never: String? }
    struct Numbered: Codable { var id: Int64 }
    struct Texted: Codable { var id: String }

    @Test func valuesWithNoFieldMappingAreRefused() throws {
        let nested = #expect(throws: RecordError.self) { try RecordTable(name: "T", rows: [Nested(id: 1, tags: ["a"])]) }
        #expect(nested?.kind == .unsupportedValue && nested?.field == "tags" && nested?.row == 0 && nested?.table == "T")
        let never = #expect(throws: RecordError.self) { try RecordTable(name: "T", rows: [AlwaysNil(id: 1, never: nil)]) }
        #expect(never?.kind == .unsupportedValue && never?.table == "T" && never?.field == "never")
        let key = try #require(throws: RecordError.self) { try RecordTable(name: "T", rows: [Numbered(id: 1)], primaryKey: ["ID2"]) }
        #expect(key.kind == .unknownField && key.table == "T" && key.field == "ID2", "\(key)")
        // A table of one type, rows of another: a clear type mismatch.
        let table = try RecordTable(name: "T", rows: [Numbered(id: 1)])
        let mismatch = #expect(throws: RecordError.self) { try table.rows(as: Texted.self) }
        #expect(mismatch?.description == "T: row 0, field 'id': a datLargeInt value cannot be read as String")
    }
}
