import Foundation
import BriefcaseTestSupport
import Testing
@testable import BriefcaseKit

/// The fixtures other than all-types, checked against hand-built bytes (see `FixtureTests`).
extension FixtureTests {
    @Test func nullsFixture() throws {
        let bytes = try TestPaths.fixture("nulls.daBriefcase")
        let file = try BriefcaseFileCodec.decode(bytes)
        let mixed = try #require(file.stream.table(named: "Mixed"))
        #expect(mixed.rows.map { $0.map { $0 == nil } } == [
            [false, false, false], [true, false, false], [false, false, true], [false, true, false], [true, true, true],
        ])
        // The 10-field table has no schema and is the last element: its body ends at the index.
        let full = Bytes.build { b in
            b.i32(1); b.hex("fe ff"); b.wide("w"); b.str("a"); b.hex("00 00 00 00 00 00 e0 3f"); b.u8(1); b.u8(7)
            b.i64(-8); b.hex("63 00 00 00 00 00 00 00 00 00 00 00 00 00 01 00"); b.i64(100)
        }
        let wide = Bytes.build { b in
            b.u8(0); b.i32(0); b.i32(5); b.i32(10)
            for (i, type) in [6, 17, 11, 1, 3, 8, 14, 7, 22, 4].enumerated() {
                b.field("C\(i + 1)", UInt8(type), type == 11 || type == 1 ? 20 : 0)
            }
            b.hex("00 00"); b.raw(full)
            b.hex("00 01"); b.i32(1); b.hex("fe ff"); b.wide("w"); b.str("a"); b.hex("00 00 00 00 00 00 e0 3f"); b.u8(1); b.u8(7); b.i64(-8); b.i64(100)
            b.hex("ff 03")
            b.hex("01 02"); b.hex("fe ff"); b.wide("w"); b.str("a"); b.hex("00 00 00 00 00 00 e0 3f"); b.u8(1); b.u8(7); b.i64(-8)
            b.hex("63 00 00 00 00 00 00 00 00 00 00 00 00 00 01 00")
            b.hex("ff 00"); b.hex("63 00 00 00 00 00 00 00 00 00 00 00 00 00 01 00"); b.i64(100)
        }
        let indexPosition = Int(int32(bytes, at: 24))
        #expect(Array(bytes[indexPosition - wide.count ..< indexPosition]) == wide)
        let wideTable = try #require(file.stream.table(named: "Wide"))
        #expect(wideTable.schema == nil)
        #expect(wideTable.rows[1][8] == nil && wideTable.rows[1].compactMap { $0 }.count == 9)
        #expect(wideTable.rows[2].allSatisfy { $0 == nil })
    }

    @Test func emptyTableFixtureIsExactlyTheHandBuiltFile() throws {
        let bytes = try TestPaths.fixture("empty-table.daBriefcase")
        func schemaProps(_ b: inout Bytes, _ name: String, _ type: String, _ pk: String, _ size: String) {
            b.prop("Name", name); b.prop("DataType", type); b.prop("InPrimaryKey", pk); b.prop("LogChanges", "True")
            b.prop("Size", size); b.prop("Description", "")
        }
        let schema = Bytes.build { b in
            b.i32(2); b.i32(6)
            schemaProps(&b, "ID", "datInteger", "True", "0")
            schemaProps(&b, "Name", "datWideString", "False", "65536")
            b.i32(0); b.i32(12)
        }
        let empty = Bytes.build { b in
            b.u8(1); b.i32(Int32(28 + 5 + schema.count)); b.raw(schema)
            b.i32(0); b.i32(2); b.field("ID", 6); b.field("Name", 11, 65536)
        }
        let noSchema = Bytes.build { b in
            b.u8(0); b.i32(0); b.i32(2); b.i32(2); b.field("ID", 6); b.field("Name", 1, 10)
            b.u8(0); b.i32(1); b.str("one")
            b.u8(2); b.i32(2)
        }
        let p = 28 + empty.count + noSchema.count
        let noSchemaPosition = Bytes.build { b in
            b.u8(0); b.i32(Int32(p + 5)); b.i32(1); b.i32(1); b.field("ID", 6); b.u8(0); b.i32(42)
        }
        let q = p + noSchemaPosition.count
        let noFields = Bytes.build { b in
            b.u8(1); b.i32(Int32(q + 5 + 16)); b.i32(0); b.i32(0); b.i32(0); b.i32(12); b.i32(0); b.i32(0)
        }
        let expected = Bytes.build { b in
            b.ascii("DABRC600"); b.i32(16); b.i32(0)
            b.ascii("DABIN200"); b.i32(Int32(q + noFields.count))
            b.raw(empty); b.raw(noSchema); b.raw(noSchemaPosition); b.raw(noFields)
            b.i32(4)
            b.i32(0); b.str("Empty"); b.i32(28)
            b.i32(0); b.str("NoSchema"); b.i32(Int32(28 + empty.count))
            b.i32(0); b.str("NoSchemaPos"); b.i32(Int32(p))
            b.i32(0); b.str("NoFields"); b.i32(Int32(q))
        }
        #expect(bytes == expected)
        let tables = try BriefcaseFileCodec.decode(bytes).stream.tables
        #expect(tables.map(\.rows.count) == [0, 2, 1, 0])
        #expect(tables.map { $0.schema == nil } == [false, true, true, false])
        #expect(tables[1].schemaEndWhenAbsent == .zero)
        #expect(tables[2].schemaEndWhenAbsent == .position)
        #expect(tables[3].fields.isEmpty && tables[3].schema?.fields.isEmpty == true)
    }

    @Test func emptyDeltaFixture() throws {
        let bytes = try TestPaths.fixture("empty-delta.daBriefcase")
        // The zero-change delta "Orders" is the first element (@28), in full layout.
        let ordersDelta = Bytes.build { b in
            b.i32(0); b.i32(2); b.str("ID"); b.u8(6); b.str("Name"); b.u8(11); b.i32(1); b.str("ID"); b.u8(1); b.i32(0)
        }
        #expect(Array(bytes[28 ..< 28 + ordersDelta.count]) == ordersDelta)
        let insert = Bytes.build { b in
            b.i32(0); b.i32(1100); b.i32(0); b.i32(0); b.hex("00 00"); b.hex("77 01")
            b.i32(1); b.wide("Ann"); b.i64(25000); b.hex("00 00 00 00 b0 97 e4 40"); b.u8(1)
            b.hex("96 00 00 00 00 00 00 00 00 00 00 00 00 00 02 00"); b.ascii("6F9619FF-8B86-D011-B42D-00C04FC964FF")
        }
        let failedDelete = Bytes.build { b in
            b.i32(2); b.i32(1102); b.i32(2); b.str("Row is locked by another user"); b.hex("81 01")
            b.i32(3); b.lp([0xca, 0xfe]); b.ascii("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"); b.hex("00 00")
        }
        #expect(bytes.occurrences(of: insert) == 1)
        #expect(bytes.occurrences(of: failedDelete) == 1)

        let stream = try BriefcaseFileCodec.decode(bytes).stream
        #expect(stream.elements.map(\.kind) == [.delta, .table, .delta])
        #expect(stream.table(named: "Archive") == nil)
        let empty = try #require(stream.delta(named: "Orders"))
        #expect(empty.changes.isEmpty && empty.layout == .full && empty.keyFields == ["ID"])
        let archive = try #require(stream.delta(named: "Archive"))
        #expect(archive.loggedFields.count == 9)
        #expect(archive.keyFields == ["ID"])
        #expect(archive.changes.map(\.type) == [.insert, .update, .delete, .update])
        #expect(archive.changes.map(\.status) == [.pending, .resolved, .failed, .failed])
        #expect(archive.changes.map(\.recordID) == [1100, 1101, 1102, 1103])
        #expect(archive.changes.map { $0.message.utf8String } == ["", "", "Row is locked by another user", "Konflikt: Wert geändert"])
        #expect(archive.changes.map { $0.oldValues.map { $0 != nil } } == [
            [false, false, false, false, false, false, false, false, false],
            [true, true, false, false, false, false, false, false, false],
            [true, false, false, false, false, false, false, true, true],
            [true, false, true, false, false, false, false, false, false],
        ])
        #expect(archive.changes[1].newValues[3] == .ansiString("renamed"))
        #expect(archive.changes[3].oldValues[2] == .currency(Currency(scaled: -1)))
        // Key field present in every change that has values.
        #expect(archive.changes.allSatisfy { $0.oldValues[0] != nil || $0.newValues[0] != nil })
    }

    @Test func gbkFixture() throws {
        let bytes = try TestPaths.fixture("gbk.daBriefcase")
        let courseName: [UInt8] = [0xbf, 0xce, 0xb3, 0xcc, 0xc3, 0xfb, 0xb3, 0xc6] // 课程名称
        let courseNo: [UInt8] = [0xbf, 0xce, 0xb3, 0xcc, 0xb1, 0xe0, 0xba, 0xc5]   // 课程编号
        let databasePrinciples = hexBytes("ca fd be dd bf e2 d4 ad c0 ed")          // 数据库原理
        // 16 + (4+10+4+10) + (4+8+4+10) + (4+8+4+8) + (4+12+4+3) = 117
        let header = Bytes.build { b in
            b.ascii("DABRC600"); b.i32(117); b.i32(4)
            b.str("CourseName"); b.lp(databasePrinciples)
            b.str("CourseNo"); b.str("2012020307")
            b.lp(courseName); b.lp(courseNo)
            b.str("LastModified"); b.str("N/A")
            b.ascii("DABIN200")
        }
        #expect(Array(bytes[0 ..< header.count]) == header)
        let delta = Bytes.build { b in
            b.i32(1); b.i32(2); b.lp(courseName); b.u8(11); b.lp(courseNo); b.u8(11); b.i32(0); b.u8(1); b.i32(1)
            b.i32(0); b.i32(1100); b.i32(0); b.i32(0); b.u8(0); b.u8(3); b.wide("软件工程"); b.wide("2013021202")
        }
        #expect(Array(bytes[129 ..< 129 + delta.count]) == delta)
        // Schema Name values are UTF-8 (课程名称 = e8 af be e7 a8 8b e5 90 8d e7 a7 b0) …
        #expect(bytes.occurrences(of: Bytes.build { b in b.str("Name"); b.hex("0c 00 00 00 e8 af be e7 a8 8b e5 90 8d e7 a7 b0") }) == 1)
        // … while the row-section field names are GBK.
        #expect(bytes.occurrences(of: Bytes.build { b in b.lp(courseNo); b.u8(11); b.i32(65536) }) == 1)
        let indexPosition = Int(int32(bytes, at: 117 + 8))
        #expect(Array(bytes[indexPosition...]) == Bytes.build { b in
            b.i32(2); b.i32(1); b.str("CourseInfo"); b.i32(129); b.i32(0); b.str("CourseInfo"); b.i32(Int32(129 + delta.count))
        })

        let file = try BriefcaseFileCodec.decode(bytes)
        #expect(file.properties[0].value.array == databasePrinciples)
        #expect(file.properties[0].value.utf8String == nil)
        #expect(file.properties[2].name.array == courseName)
        let table = try #require(file.stream.table(named: "courseinfo"))
        #expect(table.fields.map(\.name.array) == [courseName, courseNo])
        #expect(table.schema?.fields.map { $0.value(named: "Name") } == ["课程名称", "课程编号"])
        let change = try #require(file.stream.delta(named: "CourseInfo")?.changes.first)
        #expect(change.type == .insert && change.status == .pending && change.recordID == 1100)
    }

    @Test func ordersStream() throws {
        let bytes = try TestPaths.fixture("orders.bin2")
        #expect(Array(bytes[0 ..< 8]) == Array("DABIN200".utf8))
        let delta = Bytes.build { b in
            b.i32(3); b.i32(4)
            b.str("ID"); b.u8(5); b.str("Customer"); b.u8(11); b.str("Amount"); b.u8(4); b.str("Shipped"); b.u8(2)
            b.i32(1); b.str("ID"); b.u8(1); b.i32(3)
            // update 1100: old ID, Amount; new ID, Amount, Shipped
            b.i32(1); b.i32(1100); b.i32(0); b.i32(0)
            b.u8(0x05); b.i32(2); b.i64(70000)
            b.u8(0x0d); b.i32(2); b.i64(80000); b.hex("00 00 00 00 08 f9 e5 40")
            // delete 1101: all old values
            b.i32(2); b.i32(1101); b.i32(0); b.i32(0)
            b.u8(0x0f); b.i32(3); b.wide("Carol"); b.i64(1_000_000); b.f64(45001)
            b.u8(0)
            // insert 1102
            b.i32(0); b.i32(1102); b.i32(0); b.i32(0)
            b.u8(0)
            b.u8(0x07); b.i32(4); b.wide("Dora 😀"); b.i64(50000)
        }
        #expect(Array(bytes[12 ..< 12 + delta.count]) == delta)
        let indexPosition = Int(int32(bytes, at: 8))
        #expect(Array(bytes[indexPosition...]) == Bytes.build { b in
            b.i32(2); b.i32(1); b.str("Orders"); b.i32(12); b.i32(0); b.str("Orders"); b.i32(Int32(12 + delta.count))
        })

        let stream = try decodeBin2(bytes).stream
        let table = try #require(stream.table(named: "orders"))
        #expect(table.schema?.fields.map { $0.value(named: "InPrimaryKey") } == ["True", "False", "False", "False"])
        #expect(table.rows.map { $0[0] } == [.integer(1), .integer(2), .integer(3)])
        #expect(table.rows[1][3] == nil)
        let orders = try #require(stream.delta(named: "orders"))
        #expect(orders.keyFields == ["ID"])
        #expect(orders.changes.map(\.type) == [.update, .delete, .insert])
    }
}
