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

    struct Nested: Codable { var id: Int64; var tags: [String] }
    struct AlwaysNil: Codable { var id: Int64; var never: String? }
    struct Numbered: Codable { var id: Int64 }
    struct Texted: Codable { var id: String }

    @Test func valuesWithNoFieldMappingAreRefused() throws {
        let nested = #expect(throws: RecordError.self) { try RecordTable(name: "T", rows: [Nested(id: 1, tags: ["a"])]) }
        #expect(nested?.kind == .unsupportedValue && nested?.field == "tags" && nested?.row == 0 && nested?.table == "T")
        let never = #expect(throws: RecordError.self) { try RecordTable(name: "T", rows: [AlwaysNil(id: 1, never: nil)]) }
        #expect(never?.field == "never")
        #expect(throws: RecordError.self) { try RecordTable(name: "T", rows: [Numbered(id: 1)], primaryKey: ["ID2"]) }
        // A table of one type, rows of another: a clear type mismatch.
        let table = try RecordTable(name: "T", rows: [Numbered(id: 1)])
        let mismatch = #expect(throws: RecordError.self) { try table.rows(as: Texted.self) }
        #expect(mismatch?.description == "T: row 0, field 'id': a datLargeInt value cannot be read as String")
    }
}
