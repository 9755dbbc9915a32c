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

    // MARK: values

    @Test func unpairedSurrogates() throws {
        var high = try Self.books()
        high.replaceSubrange(148 ..< 150, with: [0x00, 0xD8]) // "H" + lone U+D800
        #expect(Self.keys(Self.validate(high, .bin2).errors) == ["wide-text|Books|148"])

        var low = try Self.books()
        low.replaceSubrange(146 ..< 148, with: [0x00, 0xDC]) // lone U+DC00 + "i"
        #expect(Self.keys(Self.validate(low, .bin2).errors) == ["wide-text|Books|146"])

        var pair = try Self.books()
        pair.replaceSubrange(146 ..< 150, with: [0x3D, 0xD8, 0x00, 0xDE]) // U+1F600, well formed
        Self.expectClean(Self.validate(pair, .bin2))
    }

    /// A 3-byte wide string: 12 flag | 13 schema end | 17 rows | 21 fields | 25 "S" wide | 35 mask | 36 value.
    @Test func oddWideByteLength() throws {
        let table = Table(name: "W", fields: [FieldDescriptor(name: "S", type: .wideString)],
                          rows: [[.wideString(ByteString([0x41, 0x00, 0x42]))]])
        let bytes = try Bin2Encoder.encode(Bin2Stream(elements: [.table(table)]))
        try #require(bytes[30] == 11 && int32(bytes, at: 36) == 3)
        #expect(Self.keys(Self.validate(bytes, .bin2).errors) == ["wide-text|W|36"])
    }

    /// all-types row 3's decimal 1.50 (magnitude 150, scale 2): scale 29, reported at its flags word.
    @Test func decimalScaleAbove28() throws {
        var bytes = try TestPaths.fixture("all-types.daBriefcase")
        let value = try Self.unique([150, 0, 0, 0] + [UInt8](repeating: 0, count: 8) + [0, 0, 2, 0], in: bytes)
        try Self.patch8(&bytes, at: value + 14, expecting: 2, with: 29)
        #expect(Self.keys(Self.validate(bytes).errors) == ["decimal|AllTypes|\(value + 12)"])
        try Self.patch8(&bytes, at: value + 14, expecting: 29, with: 28)
        Self.expectClean(Self.validate(bytes))
    }

    @Test func guidText() throws {
        var bytes = try TestPaths.fixture("all-types.daBriefcase")
        let value = try Self.unique(Array("A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11".utf8), in: bytes)
        try Self.patch8(&bytes, at: value + 8, expecting: UInt8(ascii: "-"), with: UInt8(ascii: "+"))
        var report = Self.validate(bytes)
        #expect(Self.keys(report.errors) == ["guid-text|AllTypes|\(value)"])
        #expect(report.errors.first?.message.contains("character 8") == true)
        try Self.patch8(&bytes, at: value + 8, expecting: UInt8(ascii: "+"), with: UInt8(ascii: "-"))
        try Self.patch8(&bytes, at: value + 1, expecting: UInt8(ascii: "0"), with: UInt8(ascii: "G"))
        report = Self.validate(bytes)
        #expect(Self.keys(report.errors) == ["guid-text|AllTypes|\(value)"])
    }

    /// orders.bin2 row 0's Shipped date 45000.5 becomes NaN, then +infinity.
    @Test func dateTimeNotFinite() throws {
        var bytes = try Self.orders()
        let value = try Self.unique(withUnsafeBytes(of: (45000.5).bitPattern.littleEndian) { Array($0) }, in: bytes)
        for bad in [Double.nan, .infinity] {
            var damaged = bytes
            damaged.replaceSubrange(value ..< value + 8, with: withUnsafeBytes(of: bad.bitPattern.littleEndian) { Array($0) })
            #expect(Self.keys(Self.validate(damaged, .bin2).errors) == ["date-time|Orders|\(value)"])
        }
        bytes.replaceSubrange(value ..< value + 8, with: withUnsafeBytes(of: (1e6).bitPattern.littleEndian) { Array($0) })
        Self.expectClean(Self.validate(bytes, .bin2))
    }

    // MARK: names

    @Test func duplicateNameSameKind() throws {
        var bytes = try Self.twoTables()
        try Self.patch8(&bytes, at: 93, expecting: UInt8(ascii: "B"), with: UInt8(ascii: "a"))
        let report = Self.validate(bytes, .bin2)
        #expect(Self.keys(report.errors) == ["duplicate-name|a|85"])
        #expect(report.errors.first?.message.contains("offset 72") == true)
    }

    /// unsafe-names: properties end at D = 16 + (4 + 5) + (4 + 13) = 42, the index position is at
    /// 50; index entries are 24, 15, 19, 15 bytes (tables ../../escape, a/b, .hidden, CON) and 18
    /// (delta Orders, table Orders, table orders). A table and a delta may share a name.
    @Test func unsafeNamesFixtureHasTwoTablesNamedOrders() throws {
        let bytes = try TestPaths.fixture("unsafe-names.daBriefcase")
        let index = Int(int32(bytes, at: 50))
        try #require(int32(bytes, at: 8) == 42 && index + 4 + 24 + 15 + 19 + 15 + 18 * 3 == bytes.count)
        #expect(Self.keys(Self.validate(bytes).errors) == ["duplicate-name|orders|\(index + 4 + 24 + 15 + 19 + 15 + 18 * 2)"])
    }

    // MARK: models without bytes (JSON documents)

    @Test func modelChecksWithoutOffsets() throws {
        let fields = [FieldDescriptor(name: "ID", type: .integer), FieldDescriptor(name: "Code", type: .guid)]
        let table = Table(name: "T", fields: fields, rows: [[.integer(1), .guid("not-a-guid-not-a-guid-not-a-guid-123")]])
        let delta = Delta(name: "t", loggedFields: [LoggedField(name: "ID", type: .largeInt)], keyFields: ["ID"],
                          changes: [DeltaChange(type: ChangeType(rawValue: 5), recordID: 1, oldValues: [nil], newValues: [.integer(2)])],
                          layout: .mismatchedCounts(firstCount: 4))
        let document = BriefcaseDocument(container: .dabriefcase,
                                         file: BriefcaseFile(stream: Bin2Stream(elements: [.delta(delta), .table(table), .table(table)])))
        let report = Validator.validate(document: document, path: "x.json")
        #expect(report.format == "json")
        #expect(Set(Self.keys(report.errors)) == ["duplicate-name|T|-", "guid-text|T|-", "logged-fields|t|-", "change-codes|t|-"])
        #expect(report.errors.filter { $0.check == .guidText }.count == 2)
        #expect(Self.keys(report.warnings) == ["change-counts|t|-"])
    }

    @Test func findingsPerElementAndCheckAreCapped() throws {
        let rows: [Row] = (0..<25).map { _ in [.dateTime(OLEDateTime(.nan))] }
        let table = Table(name: "T", fields: [FieldDescriptor(name: "D", type: .dateTime)], rows: rows)
        let report = Validator.validate(document: BriefcaseDocument(container: .bin2, file: BriefcaseFile(stream: Bin2Stream(elements: [.table(table)]))),
                                        path: "x")
        #expect(report.errors.count == Validator.findingLimit + 1)
        #expect(report.errors.contains { $0.message.contains("5 more date-time findings") })
    }

    // MARK: folders

    @Test func folderFindingsNameTheFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("validate-\(UUID().uuidString).briefcase")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(try TestPaths.fixture("nulls.daBriefcase")).write(to: folder.appendingPathComponent("Mixed.daBriefcase"))
        try Data(try TestPaths.fixture("gbk.daBriefcase")).write(to: folder.appendingPathComponent("CourseInfo.daBriefcase"))
        let clean = try Validator.validateFolder(at: folder.path)
        Self.expectClean(clean)
        #expect(clean.format == "folder")
        #expect(clean.encoding == "gbk")

        // T.daBriefcase is fine; U.daBriefcase has a damaged row count (33) and a second table T
        // (its index entry at 91 + 4).
        try Data(try Self.base()).write(to: folder.appendingPathComponent("T.daBriefcase"))
        try Data(try TestPaths.fixture("damaged-row-count.daBriefcase")).write(to: folder.appendingPathComponent("U.daBriefcase"))
        try Data("not a plist".utf8).write(to: folder.appendingPathComponent("Properties.plist"))
        let report = try Validator.validateFolder(at: folder.path)
        #expect(report.errors.map { "\($0.file ?? "-")|\($0.check.rawValue)|\($0.element ?? "-")|\($0.offset.map(String.init) ?? "-")" }
                == ["Properties.plist|folder|-|-", "U.daBriefcase|decoding|T|33", "U.daBriefcase|duplicate-name|T|95"])
        #expect(report.errors.last?.message.contains("T.daBriefcase") == true)
    }

    @Test func missingFolderIsAnIOError() throws {
        let path = "/nonexistent/\(UUID().uuidString)"
        let error = try #require(throws: BriefcaseError.self) { try Validator.validateFolder(at: path) }
        #expect(error.kind == .io && error.file == path && error.message.hasPrefix("cannot list the folder"), "\(error)")
    }
}

/// Whatever the bytes, validation returns a report: no trap, every cut file invalid.
@Suite struct ValidatorRobustnessTests {
    @Test(arguments: ["all-types.daBriefcase", "empty-delta.daBriefcase", "gbk.daBriefcase", "orders.bin2"])
    func everyPrefixIsInvalid(name: String) throws {
        let bytes = try TestPaths.fixture(name)
        let container: ContainerFormat = name.hasSuffix(".bin2") ? .bin2 : .dabriefcase
        var validPrefixes: [Int] = []
        for length in 0 ..< bytes.count {
            let report = Validator.validate(bytes: Array(bytes[..<length]), container: container, path: name)
            if report.valid { validPrefixes.append(length) }
            if report.errors.contains(where: { ($0.offset ?? 0) > length }) { Issue.record("\(name) cut to \(length): an offset past the end") }
        }
        #expect(validPrefixes.isEmpty, "\(validPrefixes.prefix(10))")
    }

    /// Every byte set to 0x00 and to 0xFF in turn: never a trap, and the offsets stay inside the file.
    @Test(arguments: ["all-types.daBriefcase", "empty-delta.daBriefcase", "gbk.daBriefcase", "orders.bin2", "nulls.daBriefcase"])
    func everyByteChanged(name: String) throws {
        let bytes = try TestPaths.fixture(name)
        let container: ContainerFormat = name.hasSuffix(".bin2") ? .bin2 : .dabriefcase
        for offset in bytes.indices {
            for value: UInt8 in [0x00, 0xFF] where bytes[offset] != value {
                var damaged = bytes
                damaged[offset] = value
                let report = Validator.validate(bytes: damaged, container: container, path: name)
                let outside = (report.errors + report.warnings).filter { ($0.offset ?? 0) < 0 || ($0.offset ?? 0) > bytes.count }
                if !outside.isEmpty { Issue.record("\(name) byte \(offset) = \(value): \(outside)") }
            }
        }
    }
}
