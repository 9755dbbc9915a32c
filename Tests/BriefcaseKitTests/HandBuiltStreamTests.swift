import BriefcaseTestSupport
import Testing
@testable import BriefcaseKit

/// Bin2 streams assembled byte by byte, decoded and re-encoded.
@Suite struct HandBuiltStreamTests {
    /// The annotated example of bin2-format.md §2 (written by the JS client): one update of three
    /// logged fields in a delta "Customers".
    static let customersExample: [UInt8] = Bytes.build { b in
        b.hex("44 41 42 49 4e 32 30 30")                 // "DABIN200"
        b.hex("69 00 00 00")                             // InfoPos = 105
        // -- delta element @12 --
        b.hex("01 00 00 00")                             // change count = 1
        b.hex("03 00 00 00")                             // logged field count = 3
        b.hex("02 00 00 00 49 44 06")                    // "ID", datInteger(6)
        b.hex("04 00 00 00 4e 61 6d 65 01")              // "Name", datString(1)
        b.hex("04 00 00 00 4d 65 6d 6f 0b")              // "Memo", datWideString(11)
        b.hex("01 00 00 00 02 00 00 00 49 44")           // key field count = 1, "ID"
        b.hex("00")                                      // reduced-delta flag = 0
        b.hex("01 00 00 00")                             // change count (again) = 1
        b.hex("01 00 00 00")                             // change type 1 = update
        b.hex("07 00 00 00")                             // RecID = 7
        b.hex("00 00 00 00")                             // status 0 = pending
        b.hex("00 00 00 00")                             // message ""
        b.hex("03")                                      // old-value mask: ID, Name
        b.hex("05 00 00 00 02 00 00 00 61 62")           // old ID = 5, old Name = "ab"
        b.hex("07")                                      // new-value mask: all three
        b.hex("05 00 00 00 03 00 00 00 78 79 7a 02 00 00 00 57 00") // 5, "xyz", "W"
        // -- index @105 --
        b.hex("01 00 00 00 01 00 00 00 09 00 00 00")     // 1 element: delta, name length 9
        b.ascii("Customers")
        b.hex("0c 00 00 00")                             // @12
    }

    @Test func annotatedDeltaExample() throws {
        let bytes = Self.customersExample
        #expect(bytes.count == 105 + 25)
        let (stream, warnings) = try decodeBin2(bytes)
        #expect(warnings.isEmpty)
        #expect(stream.elements.count == 1)
        let delta = try #require(stream.elements[0].asDelta)
        #expect(delta.name == "Customers")
        #expect(delta.loggedFields == [
            LoggedField(name: "ID", type: .integer), LoggedField(name: "Name", type: .string), LoggedField(name: "Memo", type: .wideString),
        ])
        #expect(delta.keyFields == ["ID"])
        #expect(delta.reducedDeltaFlag == 0)
        #expect(!delta.isReduced)
        #expect(delta.layout == .full)
        #expect(delta.changes.count == 1)
        let change = delta.changes[0]
        #expect(change.type == .update)
        #expect(change.recordID == 7)
        #expect(change.status == .pending)
        #expect(change.message.isEmpty)
        #expect(change.oldValues == [.integer(5), .ansiString("ab"), nil])
        #expect(change.newValues == [.integer(5), .ansiString("xyz"), .wideString(ByteString([0x57, 0x00]))])
        #expect(try Bin2Encoder.encode(stream) == bytes)

        // The index says the same.
        let index = try ElementIndex.read(bytes)
        #expect(index.indexPosition == 105)
        #expect(index.entries.map(\.range) == [12 ..< 105])
        #expect(index.entries.map(\.kind) == [.delta])
    }

    /// A table without a schema block: flag 0, schema end 0 (or the position of the row count).
    static func noSchemaStream(schemaEnd: Int32) -> [UInt8] {
        Bytes.build { b in
            b.ascii("DABIN200"); b.i32(42)
            b.u8(0); b.i32(schemaEnd)                    // @12: no schema
            b.i32(2); b.i32(1)                           // @17: 2 rows, 1 field
            b.str("ID"); b.u8(6); b.i32(0)
            b.u8(0); b.i32(7)                            // row 0: 7
            b.u8(1)                                      // row 1: NULL
            b.i32(1); b.i32(0); b.str("T"); b.i32(12)    // index @42
        }
    }

    @Test func tableWithoutSchema() throws {
        for (stored, marker) in [(Int32(0), SchemaEndMarker.zero), (17, .position)] {
            let bytes = Self.noSchemaStream(schemaEnd: stored)
            let (stream, warnings) = try decodeBin2(bytes)
            #expect(warnings.isEmpty)
            let table = try #require(stream.table(named: "t"))
            #expect(table.schema == nil)
            #expect(table.schemaEndWhenAbsent == marker)
            #expect(table.fields == [FieldDescriptor(name: "ID", type: .integer, size: 0)])
            #expect(table.rows == [[.integer(7)], [nil]])
            #expect(try Bin2Encoder.encode(stream) == bytes)
        }
        // Any other stored value is tolerated with a warning (and written back as 0).
        let (stream, warnings) = try decodeBin2(Self.noSchemaStream(schemaEnd: 99))
        #expect(warnings.count == 1)
        #expect(warnings.first?.offset == 13)
        #expect(try Bin2Encoder.encode(stream) == Self.noSchemaStream(schemaEnd: 0))
    }

    /// A DABRC600 file with one property (data offset 32) holding a table with a one-field
    /// schema; `base` is what the Bin2 positions are relative to (0 = absolute, as .NET writes).
    static func fileWithPositions(relativeTo base: Int32) -> [UInt8] {
        Bytes.build { b in
            b.ascii("DABRC600"); b.i32(32); b.i32(1)
            b.str("Key"); b.str("Value")                 // 16 + 7 + 9 = 32
            b.ascii("DABIN200"); b.i32(129 - base)       // @32; index at absolute 129
            // table @44: flag, schema end, 1 field × 2 properties, 0 parameters × 0
            b.u8(1); b.i32(105 - base)
            b.i32(1); b.i32(2); b.prop("Name", "ID"); b.prop("DataType", "datInteger"); b.i32(0); b.i32(0)
            // @105: rows
            b.i32(1); b.i32(1); b.field("ID", 6); b.u8(0); b.i32(5)
            // @129: index
            b.i32(1); b.i32(0); b.str("T"); b.i32(44 - base)
        }
    }

    @Test func relativePositionsFallBackAndAreWrittenAbsolute() throws {
        let absolute = Self.fileWithPositions(relativeTo: 0)
        let relative = Self.fileWithPositions(relativeTo: 32)
        #expect(absolute.count == 146 && relative.count == 146)
        #expect(try ElementIndex.read(absolute, streamStart: 32).positionBase == 0)
        #expect(try ElementIndex.read(relative, streamStart: 32).positionBase == 32)

        var warnings: [DecodingWarning] = []
        let fromRelative = try BriefcaseFileCodec.decode(relative, warnings: &warnings)
        #expect(warnings.isEmpty, "\(warnings)")   // the schema end is checked against the same base
        let fromAbsolute = try BriefcaseFileCodec.decode(absolute)
        #expect(fromRelative == fromAbsolute)
        let table = try #require(fromRelative.stream.table(named: "T"))
        #expect(table.rows == [[.integer(5)]])
        #expect(table.schema?.fields.first?.value(named: "DataType") == "datInteger")
        #expect(fromRelative.properties == [BriefcaseProperty(name: "Key", value: "Value")])
        // Re-encoding writes absolute positions.
        #expect(try BriefcaseFileCodec.encode(fromRelative) == absolute)
    }

    /// An empty delta whose body is only the Int32 change count 0 (what the JS reader expects).
    @Test func countOnlyEmptyDelta() throws {
        let bytes = Bytes.build { b in
            b.ascii("DABIN200"); b.i32(16)
            b.i32(0)                                     // @12: change count 0, nothing else
            b.i32(1); b.i32(1); b.str("D"); b.i32(12)    // index @16
        }
        let stream = try decodeBin2(bytes).stream
        let delta = try #require(stream.elements.first?.asDelta)
        #expect(delta.layout == .countOnly)
        #expect(delta.changes.isEmpty && delta.loggedFields.isEmpty && delta.keyFields.isEmpty)
        #expect(try Bin2Encoder.encode(stream) == bytes)

        // The full layout of an empty delta is a different element and also round-trips.
        let full = Bytes.build { b in
            b.ascii("DABIN200"); b.i32(29)
            b.i32(0); b.i32(0); b.i32(0); b.u8(1); b.i32(0)  // @12: 17 bytes
            b.i32(1); b.i32(1); b.str("D"); b.i32(12)
        }
        let fullStream = try decodeBin2(full).stream
        #expect(fullStream.deltas.first?.layout == .full)
        #expect(fullStream.deltas.first?.reducedDeltaFlag == 1)
        #expect(try Bin2Encoder.encode(fullStream) == full)

        // A count-only delta with changes cannot be written.
        var bad = delta
        bad.changes = [DeltaChange(type: .insert, recordID: 1, oldValues: [], newValues: [])]
        let error = try #require(throws: BriefcaseError.self) { try Bin2Encoder.encode(Bin2Stream(elements: [.delta(bad)])) }
        #expect(error.kind == .invalidModel && error.element == "D" && error.message.contains("bare count must have no changes"), "\(error)")
    }
}

import Foundation

@Suite struct OLEDateConversionTests {
    /// 1970-01-01 is OLE day 25 569; 2015-06-18 08:00 UTC is 1 434 614 400 s after the epoch.
    @Test func toAndFromFoundationDate() throws {
        #expect(OLEDateTime(25_569).date == Date(timeIntervalSince1970: 0))
        #expect(OLEDateTime(42173.333333333336).date == Date(timeIntervalSince1970: 1_434_614_400))
        #expect(OLEDateTime(date: Date(timeIntervalSince1970: 1_434_614_400)).value == 42173.333333333336)
        // 1899-12-29 06:00 (-1.25) is 2 days minus 18 hours before the OLE epoch.
        #expect(OLEDateTime(-1.25).date == Date(timeIntervalSince1970: -25_569 * 86_400 - 86_400 + 6 * 3600))
        #expect(OLEDateTime(.nan).date == nil)
    }
}
