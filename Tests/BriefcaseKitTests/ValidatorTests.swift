import Foundation
import Testing
@testable import BriefcaseKit

/// `Validator`: every check on an input damaged in exactly that way, with the element and the
/// byte offset computed by hand from the layout (each layout is asserted byte by byte first), and
/// the undamaged input passing clean.
@Suite struct ValidatorTests {
    // MARK: helpers

    /// `check|element|offset` of each finding, for exact comparisons.
    static func keys(_ findings: [Finding]) -> [String] {
        findings.map { "\($0.check.rawValue)|\($0.element ?? "-")|\($0.offset.map(String.init) ?? "-")" }
    }

    static func validate(_ bytes: [UInt8], _ container: ContainerFormat = .dabriefcase, strict: Bool = false,
                         codePage: CodePage? = nil) -> ValidationReport {
        Validator.validate(bytes: bytes, container: container, path: "test",
                           options: ValidationOptions(codePage: codePage, strict: strict))
    }

    static func le32(_ value: Int32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }

    static func patch32(_ bytes: inout [UInt8], at offset: Int, expecting old: Int32, with value: Int32) throws {
        try #require(int32(bytes, at: offset) == old, "layout: Int32 at \(offset) is \(int32(bytes, at: offset)), not \(old)")
        bytes.replaceSubrange(offset ..< offset + 4, with: le32(value))
    }

    static func patch8(_ bytes: inout [UInt8], at offset: Int, expecting old: UInt8, with value: UInt8) throws {
        try #require(bytes[offset] == old, "layout: byte at \(offset) is \(bytes[offset]), not \(old)")
        bytes[offset] = value
    }

    /// The one place `needle` occurs in `bytes`.
    static func unique(_ needle: [UInt8], in bytes: [UInt8]) throws -> Int {
        try #require(bytes.occurrences(of: needle) == 1, "pattern is not unique")
        return try #require(bytes.offset(of: needle))
    }

    static func expectClean(_ report: ValidationReport, _ comment: Comment? = nil) {
        #expect(report.valid, comment)
        #expect(report.errors.isEmpty, "\(report.errors)")
        #expect(report.warnings.isEmpty, "\(report.warnings)")
    }

    // MARK: inputs

    /// The 108-byte base of the damaged fixtures (`damaged-type-0` with its type code restored):
    ///
    ///     0 DABRC600 | 8 data offset 16 | 12 property count 0 | 16 DABIN200 | 24 index position 91
    ///     28 table "T": schema flag 0 | 29 schema end 0 | 33 row count 2 | 37 field count 2
    ///     41 "ID" datInteger(6) size 0 | 52 "Name" datWideString(11) @60, size 20
    ///     65 row 0: mask 00 | 66 ID 1 | 70 Name len 4 | 74 "ab"
    ///     78 row 1: mask 00 | 79 ID 2 | 83 Name len 4 | 87 "cd"
    ///     91 index: 1 element, table "T" @28 | 108 EOF
    static func base() throws -> [UInt8] {
        var bytes = try TestPaths.fixture("damaged-type-0.daBriefcase")
        try patch8(&bytes, at: 60, expecting: 0, with: 11)
        try #require(bytes.count == 108 && int32(bytes, at: 8) == 16 && int32(bytes, at: 24) == 91 && int32(bytes, at: 104) == 28)
        return bytes
    }

    /// `bin2.md` §11, byte for byte: table `Books`, schema (Name, DisplayLabel) × 2, rows (7, "Hi")
    /// and (8, NULL). Offsets: schema end @13 = 104, descriptors @112 ("ID", type @118) and
    /// @123 ("Title", type @132), row 0 mask @137, Title "Hi" @142 (units @146, @148),
    /// row 1 mask @150, index @155, end 176.
    static func books() throws -> [UInt8] {
        let bytes = Bytes.build { b in
            b.ascii("DABIN200"); b.i32(155)
            b.u8(1); b.i32(104)
            b.i32(2); b.i32(2)
            b.prop("Name", "ID"); b.prop("DisplayLabel", nil)
            b.prop("Name", "Title"); b.prop("DisplayLabel", "")
            b.i32(0); b.i32(0)
            b.i32(2); b.i32(2)
            b.field("ID", 6); b.field("Title", 11, 20)
            b.u8(0); b.i32(7); b.wide("Hi")
            b.u8(2); b.i32(8)
            b.i32(1); b.i32(0); b.str("Books"); b.i32(12)
        }
        try #require(bytes.count == 176 && bytes[112] == 2 && bytes[118] == 6 && bytes[132] == 11 && bytes[146] == 0x48)
        return bytes
    }

    /// Two tables without schema, one integer column and one row each:
    ///
    ///     0 DABIN200 | 8 index position 68
    ///     12 table A: flag 0 | 13 schema end 0 | 17 rows 1 | 21 fields 1 | 25 "X" int @30 | 35 mask | 36 value 5
    ///     40 table B: flag 0 | 41 schema end 0 | 45 rows 1 | 49 fields 1 | 53 "Y" int @58 | 63 mask | 64 value 6
    ///     68 index: count 2 | 72 table "A" (name @80) position @81 = 12 | 85 table "B" (name @93) position @94 = 40 | 98 end
    static func twoTables() throws -> [UInt8] {
        let bytes = Bytes.build { b in
            b.ascii("DABIN200"); b.i32(68)
            b.u8(0); b.i32(0); b.i32(1); b.i32(1); b.field("X", 6); b.u8(0); b.i32(5)
            b.u8(0); b.i32(0); b.i32(1); b.i32(1); b.field("Y", 6); b.u8(0); b.i32(6)
            b.i32(2); b.i32(0); b.str("A"); b.i32(12); b.i32(0); b.str("B"); b.i32(40)
        }
        try #require(bytes.count == 98 && bytes[80] == 0x41 && bytes[93] == 0x42 && int32(bytes, at: 94) == 40)
        return bytes
    }

    /// `orders.bin2`: the delta `Orders` comes first, at 12:
    ///
    ///     12 change count #1 = 3 | 16 logged fields 4
    ///     20 "ID" datAutoInc (type @26) | 27 "Customer" datWideString (type @39)
    ///     40 "Amount" datCurrency (type @50) | 51 "Shipped" datDateTime (type @62)
    ///     63 key fields 1 | 67 "ID" | 73 reduced flag | 74 change count #2 = 3
    ///     78 change 0: type 1 (update) | 82 recID 1100 | 86 status 0 | 90 message "" | 94 old mask 05
    static func orders() throws -> [UInt8] {
        let bytes = try TestPaths.fixture("orders.bin2")
        try #require(int32(bytes, at: 12) == 3 && int32(bytes, at: 16) == 4)
        try #require(bytes.offset(of: Self.le32(8) + Array("Customer".utf8)) == 27)
        try #require(bytes[26] == 5 && bytes[39] == 11 && bytes[50] == 4 && bytes[62] == 2)
        try #require(int32(bytes, at: 74) == 3 && int32(bytes, at: 78) == 1 && int32(bytes, at: 82) == 1100 && bytes[94] == 0x05)
        return bytes
    }

    // MARK: clean inputs

    @Test(arguments: TestPaths.validFixtureNames.filter { $0 != "unsafe-names.daBriefcase" })
    func validFixturesAreClean(name: String) throws {
        let bytes = try TestPaths.fixture(name)
        Self.expectClean(Self.validate(bytes, name.hasSuffix(".bin2") ? .bin2 : .dabriefcase), "\(name)")
    }

    @Test(.enabled(if: TestPaths.samplesPresent, "../shared/briefcase-samples is absent"), arguments: TestPaths.sampleNames)
    func realSamplesAreClean(name: String) throws {
        let bytes = try #require(TestPaths.sample(name))
        let report = Self.validate(bytes)
        Self.expectClean(report, "\(name)")
        #expect(report.encoding == "gbk")
        #expect(report.encodingReason != nil)
    }

    @Test func handBuiltInputsAreClean() throws {
        Self.expectClean(Self.validate(try Self.base()))
        Self.expectClean(Self.validate(try Self.books(), .bin2))
        Self.expectClean(Self.validate(try Self.twoTables(), .bin2))
        Self.expectClean(Self.validate(try Self.orders(), .bin2))
    }

    // MARK: header

    @Test func magicAndVersion() throws {
        var version = try Self.base()
        version.replaceSubrange(5 ..< 8, with: Array("500".utf8))
        var report = Self.validate(version)
        #expect(Self.keys(report.errors) == ["header|-|5"])
        #expect(report.errors.first?.message.contains("'500'") == true)

        var magic = try Self.base()
        magic.replaceSubrange(0 ..< 5, with: Array("XXXXX".utf8))
        report = Self.validate(magic)
        #expect(Self.keys(report.errors) == ["header|-|0"])

        var bin2 = try Self.books()
        bin2[7] = UInt8(ascii: "1") // DABIN201
        report = Self.validate(bin2, .bin2)
        #expect(Self.keys(report.errors) == ["header|-|0"])

        // The Bin2 signature at the data offset of a single file.
        var inner = try Self.base()
        inner[16 + 3] = UInt8(ascii: "X")
        report = Self.validate(inner)
        #expect(Self.keys(report.errors) == ["header|-|16"])
    }

    @Test func dataOffsetBeforeTheEndOfTheProperties() throws {
        var bytes = try Self.base()
        try Self.patch32(&bytes, at: 8, expecting: 16, with: 12)
        #expect(Self.keys(Self.validate(bytes).errors) == ["data-offset|-|8"])
    }

    /// Two bytes between the (empty) property block, which ends at 16, and the data offset 18.
    @Test func headerPaddingIsAWarning() throws {
        let file = BriefcaseFile(stream: Bin2Stream(elements: [.table(Table(name: "T", fields: [FieldDescriptor(name: "ID", type: .integer)]))]),
                                 headerPadding: ByteString([0xAA, 0xBB]))
        let bytes = try BriefcaseFileCodec.encode(file)
        try #require(int32(bytes, at: 8) == 18 && int32(bytes, at: 12) == 0 && bytes[16] == 0xAA)
        let report = Self.validate(bytes)
        #expect(report.valid)
        #expect(Self.keys(report.warnings) == ["data-offset|-|16"])
        let strict = Self.validate(bytes, strict: true)
        #expect(!strict.valid)
        #expect(Self.keys(strict.errors) == ["data-offset|-|16"])
        #expect(strict.warnings.isEmpty)
    }

    // MARK: index and element bounds

    @Test func indexPositionOutsideTheStream() throws {
        var bytes = try Self.twoTables()
        try Self.patch32(&bytes, at: 8, expecting: 68, with: 500)
        #expect(Self.keys(Self.validate(bytes, .bin2).errors) == ["index|-|8"])
        // The fixture made for it: index position 65536 in a 108-byte file.
        #expect(Self.keys(Self.validate(try TestPaths.fixture("damaged-index-position.daBriefcase")).errors) == ["index|-|24"])
    }

    /// Bytes after the index are not part of the briefcase: Data Abstract ignores them, so they
    /// are a warning (issue 11, Spec/robustness.md §8.4), not an index error.
    @Test func bytesAfterTheIndexAreAWarning() throws {
        let bytes = try Self.twoTables() + [0]
        let report = Self.validate(bytes, .bin2)
        #expect(report.errors.isEmpty)
        #expect(Self.keys(report.warnings) == ["trailing-bytes|-|98"])
    }

    @Test func elementPositionOutsideTheElementArea() throws {
        var bytes = try Self.twoTables()
        try Self.patch32(&bytes, at: 81, expecting: 12, with: 70)
        #expect(Self.keys(Self.validate(bytes, .bin2).errors) == ["index|-|81"])
    }

    @Test func twoElementsAtOnePosition() throws {
        var bytes = try Self.twoTables()
        try Self.patch32(&bytes, at: 94, expecting: 40, with: 12)
        #expect(Self.keys(Self.validate(bytes, .bin2).errors) == ["index|-|12"])
    }

    /// B's position moved one byte into A: A's value (36…39) now runs past A's end (39) into B.
    @Test func overlappingElements() throws {
        var bytes = try Self.twoTables()
        try Self.patch32(&bytes, at: 94, expecting: 40, with: 39)
        let report = Self.validate(bytes, .bin2)
        let errorsOfA = Self.keys(report.errors.filter { $0.element == "A" })
        #expect(errorsOfA == ["decoding|A|36", "element-bounds|A|39"])
        #expect(report.errors.first { $0.check == .elementBounds }?.message.contains("table 'B'") == true)
        #expect(report.errors.contains { $0.element == "B" }, "B, read from the wrong position, fails too")
    }

    /// A's row count 1 → 0: its row (mask at 35, value at 36) is left over before B.
    @Test func bytesLeftBetweenElements() throws {
        var bytes = try Self.twoTables()
        try Self.patch32(&bytes, at: 17, expecting: 1, with: 0)
        #expect(Self.keys(Self.validate(bytes, .bin2).errors) == ["element-bounds|A|35"])
    }

    /// The table element of `damaged-truncated-row` ends at 89 inside row 1; its Name value
    /// (length at 83) would run to 91, into the index at 89.
    @Test func truncatedRowOverlapsTheIndex() throws {
        let report = Self.validate(try TestPaths.fixture("damaged-truncated-row.daBriefcase"))
        #expect(Self.keys(report.errors) == ["decoding|T|83", "element-bounds|T|89"])
    }

    @Test func decodingFailuresKeepTheirOffset() throws {
        #expect(Self.keys(Self.validate(try TestPaths.fixture("damaged-row-count.daBriefcase")).errors) == ["decoding|T|33"])
        #expect(Self.keys(Self.validate(try TestPaths.fixture("damaged-type-200.daBriefcase")).errors) == ["decoding|T|70"])
        #expect(Self.keys(Self.validate(try TestPaths.fixture("damaged-truncated-file.daBriefcase")).errors) == ["index|-|24"])
    }

    /// A damaged element is reported; the elements after it are still checked.
    @Test func otherElementsAreStillChecked() throws {
        var bytes = try Self.twoTables()
        try Self.patch32(&bytes, at: 21, expecting: 1, with: 0x7FFF_FFF0) // A's field count
        try Self.patch8(&bytes, at: 63, expecting: 0, with: 0x02)          // B's row mask padding
        let report = Self.validate(bytes, .bin2)
        #expect(Self.keys(report.errors) == ["decoding|A|21"])
        #expect(Self.keys(report.warnings) == ["mask-padding|B|63"])
    }

    // MARK: schema end, masks

    @Test func staleSchemaEndIsAWarning() throws {
        var bytes = try Self.books()
        try Self.patch32(&bytes, at: 13, expecting: 104, with: 100)
        let report = Self.validate(bytes, .bin2)
        #expect(report.valid)
        #expect(Self.keys(report.warnings) == ["schema-end|Books|13"])
        #expect(Self.keys(Self.validate(bytes, .bin2, strict: true).errors) == ["schema-end|Books|13"])
    }

    @Test func maskPaddingIsAWarning() throws {
        var books = try Self.books()
        try Self.patch8(&books, at: 150, expecting: 0x02, with: 0x06) // row 1: bit 2 of 2 fields
        var report = Self.validate(books, .bin2)
        #expect(report.valid)
        #expect(Self.keys(report.warnings) == ["mask-padding|Books|150"])

        var orders = try Self.orders()
        try Self.patch8(&orders, at: 94, expecting: 0x05, with: 0x15) // change 0's old mask: bit 4 of 4 fields
        report = Self.validate(orders, .bin2)
        #expect(report.valid)
        #expect(Self.keys(report.warnings) == ["mask-padding|Orders|94"])
    }

    // MARK: row descriptors against the schema

    @Test func descriptorNameDiffersFromTheSchema() throws {
        var bytes = try Self.books()
        try Self.patch8(&bytes, at: 116, expecting: UInt8(ascii: "I"), with: UInt8(ascii: "X"))
        #expect(Self.keys(Self.validate(bytes, .bin2).errors) == ["row-descriptors|Books|112"])
    }

    @Test func descriptorNameDiffersInCaseOnly() throws {
        var bytes = try Self.books()
        try Self.patch8(&bytes, at: 116, expecting: UInt8(ascii: "I"), with: UInt8(ascii: "i"))
        let report = Self.validate(bytes, .bin2)
        #expect(report.valid)
        #expect(Self.keys(report.warnings) == ["row-descriptors|Books|112"])
    }

    /// GBK descriptor names are compared decoded: right under gbk, wrong under windows-1252.
    @Test func descriptorNamesAreComparedDecoded() throws {
        let bytes = try TestPaths.fixture("gbk.daBriefcase")
        Self.expectClean(Self.validate(bytes, codePage: .gbk))
        let report = Self.validate(bytes, codePage: .windows1252)
        #expect(report.errors.count == 2)
        #expect(report.errors.allSatisfy { $0.check == .rowDescriptors && $0.element == "CourseInfo" })
    }

    /// all-types: the `Integer` descriptor (`07 00 00 00 Integer 06`) gets datAutoInc (same width),
    /// while the schema still says datInteger.
    @Test func descriptorTypeDiffersFromTheSchema() throws {
        var bytes = try TestPaths.fixture("all-types.daBriefcase")
        let descriptor = try Self.unique(Self.le32(7) + Array("Integer".utf8) + [6], in: bytes)
        try Self.patch8(&bytes, at: descriptor + 11, expecting: 6, with: 5)
        let report = Self.validate(bytes)
        #expect(Self.keys(report.errors) == ["row-descriptors|AllTypes|\(descriptor + 11)"])
        #expect(report.errors.first?.message.contains("datInteger") == true)
    }

    /// A schema of 2 fields over 1 descriptor:
    ///
    ///     12 flag 1 | 13 schema end 60 | 17 fields 2 | 21 properties 1
    ///     25 Name = "ID" | 39 Name = "X" | 52 parameters 0 | 56 properties 0 | 60 rows 0 | 64 field count 1
    @Test func descriptorCountDiffersFromTheSchema() throws {
        let schema = Schema(fieldPropertyCount: 1, fields: [[SchemaProperty("Name", "ID")], [SchemaProperty("Name", "X")]])
        let table = Table(name: "T", schema: schema, fields: [FieldDescriptor(name: "ID", type: .integer)])
        let bytes = try Bin2Encoder.encode(Bin2Stream(elements: [.table(table)]))
        try #require(int32(bytes, at: 13) == 60 && int32(bytes, at: 17) == 2 && int32(bytes, at: 64) == 1)
        #expect(Self.keys(Self.validate(bytes, .bin2).errors) == ["row-descriptors|T|64"])
    }

    /// A DataType property that names no type: reported at the schema field (25).
    @Test func unknownDataTypeName() throws {
        let schema = Schema(fieldPropertyCount: 2, fields: [[SchemaProperty("Name", "ID"), SchemaProperty("DataType", "datBogus")]])
        let table = Table(name: "T", schema: schema, fields: [FieldDescriptor(name: "ID", type: .integer)])
        let bytes = try Bin2Encoder.encode(Bin2Stream(elements: [.table(table)]))
        try #require(int32(bytes, at: 17) == 1 && int32(bytes, at: 21) == 2 && int32(bytes, at: 25) == 4)
        #expect(Self.keys(Self.validate(bytes, .bin2).errors) == ["row-descriptors|T|25"])
        // The same with a known name passes.
        let good = Table(name: "T", schema: Schema(fieldPropertyCount: 2, fields: [[SchemaProperty("Name", "ID"), SchemaProperty("DataType", "datInteger")]]),
                         fields: [FieldDescriptor(name: "ID", type: .integer)])
        Self.expectClean(Self.validate(try Bin2Encoder.encode(Bin2Stream(elements: [.table(good)])), .bin2))
    }

    // MARK: deltas

    @Test func loggedFieldTypeDiffersFromTheTable() throws {
        var bytes = try Self.orders()
        try Self.patch8(&bytes, at: 62, expecting: 2, with: 3) // Shipped: datDateTime → datFloat (8 bytes too)
        #expect(Self.keys(Self.validate(bytes, .bin2).errors) == ["logged-fields|Orders|62"])
    }

    @Test func loggedFieldMissingFromTheTable() throws {
        var bytes = try Self.orders()
        try Self.patch8(&bytes, at: 27 + 4 + 6, expecting: UInt8(ascii: "e"), with: UInt8(ascii: "x")) // "Customxr"
        let report = Self.validate(bytes, .bin2)
        #expect(Self.keys(report.errors) == ["logged-fields|Orders|27"])
        #expect(report.errors.first?.message.contains("Customxr") == true)
    }

    @Test func unknownChangeTypeAndStatus() throws {
        var bytes = try Self.orders()
        try Self.patch32(&bytes, at: 78, expecting: 1, with: 7)
        try Self.patch32(&bytes, at: 86, expecting: 0, with: 9)
        #expect(Self.keys(Self.validate(bytes, .bin2).errors) == ["change-codes|Orders|78", "change-codes|Orders|86"])
    }

    @Test func disagreeingChangeCountsAreAWarning() throws {
        var bytes = try Self.orders()
        try Self.patch32(&bytes, at: 12, expecting: 3, with: 2)
        let report = Self.validate(bytes, .bin2)
        #expect(report.valid)
        #expect(Self.keys(report.warnings) == ["change-counts|Orders|12"])
        #expect(report.warnings.first?.message.contains("offset 74") == true)
    }
}
