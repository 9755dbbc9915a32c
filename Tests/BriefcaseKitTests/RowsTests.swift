import BriefcaseTestSupport
import Testing
@testable import BriefcaseKit

/// `Table.rows` of a decoded table: views into the bytes (`Rows`), read when asked, turned into
/// values by the first change. Streams built byte by byte; the expected values and bytes are
/// written out by hand.
@Suite struct RowsTests {
    /// Table "T" (no schema) of ID datInteger, Name datString, Price datFloat, and three rows:
    /// (1, "ab", 2.5), (2, NULL, NULL), (3, "", -1). `mask` is row 1's NULL mask (0x06: Name and
    /// Price; a padding bit set makes the row one the checking reader reads).
    static func stream(rowOneMask: UInt8 = 0x06) -> [UInt8] {
        Bytes.build { b in
            b.ascii("DABIN200"); b.i32(104)
            b.u8(0); b.i32(0)                                   // @12: no schema
            b.i32(3); b.i32(3)                                  // 3 rows, 3 fields
            b.field("ID", 6); b.field("Name", 1); b.field("Price", 3)
            b.u8(0x00); b.i32(1); b.str("ab"); b.f64(2.5)       // @63: row 0 (19 bytes)
            b.u8(rowOneMask); b.i32(2)                          // @82: row 1 (5 bytes)
            b.u8(0x00); b.i32(3); b.i32(0); b.f64(-1)           // @87: row 2 (17 bytes)
            b.i32(1); b.i32(0); b.str("T"); b.i32(12)           // @104: index
        }
    }

    static let expected: [Row] = [
        [.integer(1), .ansiString("ab"), .float(2.5)],
        [.integer(2), nil, nil],
        [.integer(3), .ansiString(""), .float(-1)],
    ]

    static func table(_ bytes: [UInt8]) throws -> (Table, [DecodingWarning]) {
        let (stream, warnings) = try decodeBin2(bytes)
        guard case .table(let table) = stream.elements.first else { throw BriefcaseError(.invalidData, "no table") }
        return (table, warnings)
    }

    static let storages: [ValueStorage?] = [.int32, .ansiString, .float64]

    @Test func aDecodedTableKeepsItsRowsAsTheirBytes() throws {
        let bytes = Self.stream()
        #expect(bytes.count == 121)
        let (table, warnings) = try Self.table(bytes)
        #expect(warnings.isEmpty)
        // The rows' 41 bytes (@63 ..< @104), as the file holds them.
        #expect(table.rows.withStoredBytes(storages: Self.storages) { Array($0) } == Array(bytes[63 ..< 104]))
        #expect(table.rows.count == 3)
        // Read in any order, any number of times.
        #expect(table.rows[2] == Self.expected[2])
        #expect(table.rows[0] == Self.expected[0])
        #expect(table.rows[2] == Self.expected[2])
        #expect(Array(table.rows) == Self.expected)
        #expect(table.rows == Self.expected)
        #expect(table.rows.array == Self.expected)
        #expect(table == Table(name: "T", fields: table.fields, rows: Self.expected))
        // Written back as they are.
        #expect(try Bin2Encoder.encode(Bin2Stream(elements: [.table(table)])) == bytes)
    }

    /// Parts for threads (`Rows.parts`): rows of 19, 5 and 17 bytes cut by bytes and by rows;
    /// a row larger than the bytes allowed goes alone; rows as values are cut by rows only.
    @Test func partsAreCutByBytesAndByRows() throws {
        var (table, _) = try Self.table(Self.stream())
        #expect(table.rows.parts(maximumRows: 10, maximumBytes: 24) == [0 ..< 2, 2 ..< 3])
        #expect(table.rows.parts(maximumRows: 10, maximumBytes: 23) == [0 ..< 1, 1 ..< 3])
        #expect(table.rows.parts(maximumRows: 10, maximumBytes: 10) == [0 ..< 1, 1 ..< 2, 2 ..< 3])
        #expect(table.rows.parts(maximumRows: 2, maximumBytes: 1000) == [0 ..< 2, 2 ..< 3])
        #expect(table.rows.parts(maximumRows: 10, maximumBytes: 1000) == [0 ..< 3])
        table.rows[1][0] = .integer(7)  // values now
        #expect(table.rows.parts(maximumRows: 2, maximumBytes: 1) == [0 ..< 2, 2 ..< 3])
        #expect(Rows().parts(maximumRows: 2, maximumBytes: 1) == [])
    }

    @Test func rowsReadAsOtherStoragesAreNotHandedOut() throws {
        let (table, _) = try Self.table(Self.stream())
        #expect(table.rows.withStoredBytes(storages: [.int32, .wideString, .float64]) { $0.count } == nil)
        var visitor = CountingVisitor()
        #expect(!table.rows.visitStored(0 ..< 3, storages: [.int64, .ansiString, .float64], into: &visitor))
        #expect(visitor.values == 0)
        #expect(table.rows.visitStored(1 ..< 3, storages: Self.storages, into: &visitor))
        #expect(visitor.rows == 2 && visitor.values == 4 && visitor.nulls == 2)
    }

    @Test func aChangeTurnsTheRowsIntoValues() throws {
        var (table, _) = try Self.table(Self.stream())
        table.rows[1][1] = .ansiString("zz")
        #expect(table.rows.withStoredBytes(storages: Self.storages) { $0.count } == nil)
        var expected = Self.expected
        expected[1][1] = .ansiString("zz")
        #expect(table.rows == expected)
        table.rows.append([.integer(4), nil, .float(0)])
        expected.append([.integer(4), nil, .float(0)])
        #expect(table.rows == expected)

        // Written from the values: row 1 is now mask 0x04, 2, "zz"; row 3 follows.
        let written = try Bin2Encoder.encode(Bin2Stream(elements: [.table(table)]))
        let rows = Bytes.build { b in
            b.u8(0x00); b.i32(1); b.str("ab"); b.f64(2.5)
            b.u8(0x04); b.i32(2); b.str("zz")
            b.u8(0x00); b.i32(3); b.i32(0); b.f64(-1)
            b.u8(0x02); b.i32(4); b.f64(0)
        }
        #expect(Array(written[63 ..< 63 + rows.count]) == rows)
        #expect(Array(written[17 ..< 21]) == [4, 0, 0, 0])  // the row count
    }

    @Test func aRowTheCheckingReaderReadsIsWarnedOnceAndWrittenNormalised() throws {
        // Row 1's mask with padding bit 3 set: read, with a warning, by the checking reader.
        let bytes = Self.stream(rowOneMask: 0x0E)
        let (table, warnings) = try Self.table(bytes)
        #expect(warnings.count == 1)
        #expect(warnings.first?.offset == 82)
        #expect(table.rows == Self.expected)
        // Not kept as bytes: those would write the padding bit back.
        #expect(table.rows.withStoredBytes(storages: Self.storages) { $0.count } == nil)
        var normalised = bytes
        normalised[82] = 0x06
        #expect(try Bin2Encoder.encode(Bin2Stream(elements: [.table(table)])) == normalised)
    }

    @Test func theCodePageIsDetectedFromStoredRowsAsFromTheirValues() throws {
        var bytes = Self.stream()
        #expect(Array(bytes[72 ..< 74]) == Array("ab".utf8))
        bytes[72] = 0xC4; bytes[73] = 0xE3  // row 0's Name: "你" in GBK, not UTF-8
        let (stored, _) = try decodeBin2(bytes)
        var table = try #require(stored.elements[0].asTable)
        #expect(table.rows.withStoredBytes(storages: Self.storages) { $0.count } != nil)
        let fromBytes = CodePage.detect(in: stored, properties: []).codePage
        table.rows = Rows(table.rows.array)
        let fromValues = CodePage.detect(in: Bin2Stream(elements: [.table(table)]), properties: []).codePage
        #expect(fromBytes != .utf8)
        #expect(fromBytes == fromValues)
        #expect(CodePage.detect(in: try decodeBin2(Self.stream()).stream, properties: []).codePage == .utf8)
    }

    @Test func aDamagedRowStillFailsTheDecoding() throws {
        var bytes = Self.stream()
        bytes[87 + 5] = 0x7F  // row 2's Name length: far past the element's end
        // Row 2's Name (@92) says 127 bytes; 8 are left before the index at 104.
        let error = try #require(throws: BriefcaseError.self) { try Self.table(bytes) }
        #expect(error.kind == .invalidData && error.offset == 92 && error.element == "T", "\(error)")
    }
}

/// Counts what a visit hands over.
private struct CountingVisitor: RowVisitor {
    var rows = 0, values = 0, nulls = 0
    func beginRow(at position: Int, fieldCount: Int) {}
    mutating func null(_ row: inout Void) { nulls += 1 }
    mutating func bytes(_ storage: ValueStorage, _ source: ByteSource, start: Int, count: Int, base: UnsafePointer<UInt8>, _ row: inout Void) {
        values += 1
    }
    mutating func scalar(_ value: Value, _ row: inout Void) { values += 1 }
    mutating func decimal(low: UInt32, mid: UInt32, high: UInt32, flags: UInt32, _ row: inout Void) { values += 1 }
    mutating func endRow(_ row: consuming Void) { rows += 1 }
    func checkedRow(_ values: [Value?], at position: Int) {}
}

/// `StoredRowsBuilder`: rows written value by value as a reader parses them are the bytes the
/// file of `RowsTests.stream()` holds (written out by hand there).
@Suite struct StoredRowsBuilderTests {
    static let fileRows = Array(RowsTests.stream()[63 ..< 104])

    static func text(_ s: String) -> [UInt8] { Array(s.utf8) }

    @Test func valuesWrittenOneByOneAreTheFilesRows() {
        let builder = StoredRowsBuilder(storages: RowsTests.storages)
        builder.beginRow()
        builder.integer(1, .int32)
        #expect(Self.text("ab").withUnsafeBufferPointer { builder.lengthPrefixed($0) })
        builder.scalar(Double(2.5).bitPattern)
        builder.endRow()
        // A row dropped half-way leaves nothing behind.
        builder.beginRow()
        builder.integer(9, .int32)
        builder.cancelRow()
        builder.beginRow()
        builder.integer(2, .int32)
        builder.null(1)
        builder.null(2)
        builder.endRow()
        builder.beginRow()
        builder.integer(3, .int32)
        // Written through a pointer: at most 8 bytes, 0 of them used.
        #expect(builder.lengthPrefixed(maximum: 8) { _ in 0 })
        builder.scalar(Double(-1).bitPattern)
        builder.endRow()
        #expect(builder.count == 3)
        let rows = builder.rows()
        #expect(rows.withStoredBytes(storages: RowsTests.storages) { Array($0) } == Self.fileRows)
        #expect(rows == RowsTests.expected)
    }

    @Test func rowsOfValuesAreWrittenAsTheBin2WriterWritesThem() {
        let builder = StoredRowsBuilder(storages: RowsTests.storages)
        for row in RowsTests.expected { builder.append(row) }
        #expect(builder.rows().withStoredBytes(storages: RowsTests.storages) { Array($0) } == Self.fileRows)
    }

    @Test func aRowThatCannotBeBytesKeepsEveryRowAsValues() {
        // 300 does not fit datByte (8 bits): kept as given, never cut to a byte.
        let storages: [ValueStorage?] = [.uint8, .ansiString]
        let builder = StoredRowsBuilder(storages: storages)
        builder.append([.integer(7), .ansiString("a")])
        builder.append([.integer(300), nil])
        builder.beginRow()
        builder.integer(8, .uint8)
        builder.null(1)
        builder.endRow()
        let rows = builder.rows()
        #expect(rows.withStoredBytes(storages: storages) { $0.count } == nil)
        #expect(rows == [[.integer(7), .ansiString("a")], [.integer(300), nil], [.integer(8), nil]])
    }
}

/// A delta's changes (`Changes`) are views into their bytes like rows: the annotated example of
/// bin2-format.md §2 (`HandBuiltStreamTests.customersExample`), its one change at @60 ..< @105.
@Suite struct StoredChangesTests {
    static func delta(_ bytes: [UInt8]) throws -> (Delta, [DecodingWarning]) {
        let (stream, warnings) = try decodeBin2(bytes)
        guard case .delta(let delta) = stream.elements.first else { throw BriefcaseError(.invalidData, "no delta") }
        return (delta, warnings)
    }

    static let storages: [ValueStorage?] = [.int32, .ansiString, .wideString]
    static let change = DeltaChange(type: .update, recordID: 7, status: .pending, message: .empty,
                                    oldValues: [.integer(5), .ansiString("ab"), nil],
                                    newValues: [.integer(5), .ansiString("xyz"), .wideString(ByteString([0x57, 0x00]))])

    @Test func aDecodedDeltaKeepsItsChangesAsTheirBytes() throws {
        let bytes = HandBuiltStreamTests.customersExample
        let (delta, warnings) = try Self.delta(bytes)
        #expect(warnings.isEmpty)
        #expect(delta.changes.withStoredBytes(storages: Self.storages) { Array($0) } == Array(bytes[60 ..< 105]))
        #expect(delta.changes.count == 1)
        #expect(delta.changes[0] == Self.change)
        #expect(delta.changes == [Self.change])
        #expect(try Bin2Encoder.encode(Bin2Stream(elements: [.delta(delta)])) == bytes)
    }

    @Test func aChangeMadeTurnsTheChangesIntoValues() throws {
        var (delta, _) = try Self.delta(HandBuiltStreamTests.customersExample)
        delta.changes[0].recordID = 8
        #expect(delta.changes.withStoredBytes(storages: Self.storages) { $0.count } == nil)
        var expected = Self.change
        expected.recordID = 8
        #expect(delta.changes == [expected])
        var written = HandBuiltStreamTests.customersExample
        written[64] = 8  // the record id, @64
        #expect(try Bin2Encoder.encode(Bin2Stream(elements: [.delta(delta)])) == written)
    }

    @Test func theCodePageIsDetectedFromStoredChangesAsFromTheirValues() throws {
        var bytes = HandBuiltStreamTests.customersExample
        #expect(Array(bytes[96 ..< 99]) == Array("xyz".utf8))
        bytes[96] = 0xC4; bytes[97] = 0xE3  // the new Name: "你z" in GBK, not UTF-8
        let (stored, _) = try decodeBin2(bytes)
        var delta = try #require(stored.elements[0].asDelta)
        #expect(delta.changes.withStoredBytes(storages: Self.storages) { $0.count } != nil)
        let fromBytes = CodePage.detect(in: stored, properties: []).codePage
        delta.changes = Changes(delta.changes.array)
        let fromValues = CodePage.detect(in: Bin2Stream(elements: [.delta(delta)]), properties: []).codePage
        #expect(fromBytes != .utf8)
        #expect(fromBytes == fromValues)
        #expect(CodePage.detect(in: try decodeBin2(HandBuiltStreamTests.customersExample).stream, properties: []).codePage == .utf8)
    }

    @Test func aChangeTheCheckingReaderReadsIsWarnedOnceAndWrittenNormalised() throws {
        var bytes = HandBuiltStreamTests.customersExample
        #expect(bytes[76] == 0x03)
        bytes[76] = 0x0B  // the old-value mask, with padding bit 3 set
        let (delta, warnings) = try Self.delta(bytes)
        #expect(warnings.count == 1)
        #expect(warnings.first?.offset == 76)
        #expect(delta.changes == [Self.change])
        #expect(delta.changes.withStoredBytes(storages: Self.storages) { $0.count } == nil)
        #expect(try Bin2Encoder.encode(Bin2Stream(elements: [.delta(delta)])) == HandBuiltStreamTests.customersExample)
    }
}
