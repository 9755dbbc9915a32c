// briefcase-fixtures: writes the project's own test fixtures.
//
//     swift run briefcase-fixtures [folder]      (default: Fixtures)
//
// Every fixture is built from BriefcaseKit's model and written with its encoder, except the
// damaged-* files, which are valid files patched at hand-checked offsets. The output is fully
// deterministic (no dates, no randomness), so the committed files can be compared with a fresh
// run (Tests/BriefcaseKitTests/FixtureTests.swift does exactly that). `Fixtures/README.md` is
// generated from the same list, so it always names every file.

import BriefcaseKit
import Foundation

// MARK: - Fixtures

struct Fixture {
    var name: String
    var purpose: String
    var bytes: [UInt8]
}

/// all-types.daBriefcase: one column per data type 1–26, extreme values, UTF-8 properties.
func allTypes() throws -> [UInt8] {
    let columns: [Column] = [
        Column("String", .string, size: 50, description: "8-bit text, UTF-8 here: Grüße 😀"),
        Column("DateTime", .dateTime),
        Column("Float", .float),
        Column("Currency", .currency),
        Column("AutoInc", .autoInc, primaryKey: true),
        Column("Integer", .integer),
        Column("LargeInt", .largeInt),
        Column("Boolean", .boolean),
        Column("Memo", .memo),
        Column("Blob", .blob),
        Column("WideString", .wideString, size: 65536),
        Column("WideMemo", .wideMemo),
        Column("LargeAutoInc", .largeAutoInc),
        Column("Byte", .byte),
        Column("ShortInt", .shortInt),
        Column("Word", .word),
        Column("SmallInt", .smallInt),
        Column("Cardinal", .cardinal),
        Column("LargeUInt", .largeUInt),
        Column("Guid", .guid),
        Column("Xml", .xml),
        Column("Decimal", .decimal),
        Column("SingleFloat", .singleFloat),
        Column("FixedChar", .fixedChar, size: 10),
        Column("FixedWideChar", .fixedWideChar, size: 10),
        Column("Cursor", .cursor, logChanges: false, description: nil),
    ]
    let rows: [Row] = [
        // Row 0: maxima.
        [ansi("Grüße 😀"), date(42173.333333333336), .float(.infinity), money(.max), int(Int64(Int32.max)),
         int(Int64(Int32.max)), int(.max), .boolean(1), ansi("line1\r\nline2 ü"), blob([0x00, 0x01, 0x7f, 0x80, 0xff]),
         wide("Wide 😀 Ω"), wide("multi\nline 😀"), int(.max), int(255), int(127),
         int(65535), int(32767), int(Int64(UInt32.max)), .largeUInt(.max), guid("6F9619FF-8B86-D011-B42D-00C04FC964FF"),
         wide("<r a=\"😀\"/>"), decimal("9999999999999999999999999999"), .singleFloat(.infinity), ansi("ABC"), wide("Ω😀"),
         blob([1, 2, 3])],
        // Row 1: minima and empties.
        [ansi(""), date(-1.25), .float(-.infinity), money(.min), int(Int64(Int32.min)),
         int(Int64(Int32.min)), int(.min), .boolean(0), ansi(""), blob([]),
         wide(""), wide(""), int(.min), int(0), int(-128),
         int(0), int(-32768), int(0), .largeUInt(0), guid("6f9619ff-8b86-d011-b42d-00c04fc964ff"),
         wide(""), decimal("-0.9999999999999999999999999999"), .singleFloat(-.infinity), ansi(""), wide(""),
         blob([])],
        // Row 2: NaN, 0001-01-01, -0.0001.
        [ansi("plain"), date(-693593.0), .float(.nan), money(-1), int(0),
         int(0), int(0), .boolean(1), ansi("x"), blob([0]),
         wide("é"), wide("課"), int(0), int(1), int(0),
         int(1), int(0), int(1), .largeUInt(1), guid("00000000-0000-0000-0000-000000000000"),
         wide("<x/>"), decimal("-0.001"), .singleFloat(.nan), ansi("Z"), wide("z"),
         blob([0])],
        // Row 3: -0.0, a date with milliseconds (2024-02-29T13:45:30.123), 2.5, 1.50.
        [ansi("😀"), date(45351.5732653125), .float(-0.0), money(25000), int(1),
         int(1), int(1), .boolean(0), ansi("😀"), blob([0xde, 0xad, 0xbe, 0xef]),
         wide("😀"), wide("😀"), int(1), int(128), int(-1),
         int(32768), int(-1), int(1 << 31), .largeUInt(1 << 63), guid("A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11"),
         wide(""), decimal("1.50"), .singleFloat(-0.0), ansi("é"), wide("é"),
         blob([0xff])],
        // Row 4: ordinary values, 0100-01-01 12:00 (sign-magnitude), the largest decimal (2^96 - 1).
        [ansi("ordinary"), date(-657434.5), .float(1.5), money(0), int(-1),
         int(-1), int(-1), .boolean(1), ansi("memo"), blob([]),
         wide("z"), wide("memo"), int(-1), int(127), int(1),
         int(256), int(1), int(65536), .largeUInt(UInt64(Int64.max)), guid("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),
         wide("<x/>"), decimal("79228162514264337593543950335"), .singleFloat(0.1), ansi("fixed"), wide("fixed"),
         blob([])],
    ]
    let properties = [
        BriefcaseProperty(name: u("Title"), value: u("Grüße – 测试 😀")),
        BriefcaseProperty(name: u("Version"), value: u("1")),
        BriefcaseProperty(name: u("Empty"), value: u("")),
    ]
    return try file([.table(table("AllTypes", columns, rows: rows))], properties: properties)
}

/// nulls.daBriefcase: NULLs in every position; a 10-field table so the mask spans 2 bytes.
func nulls() throws -> [UInt8] {
    let mixed = table("Mixed", [Column("ID", .integer, primaryKey: true), Column("Name", .wideString, size: 100), Column("Score", .float)], rows: [
        [int(1), wide("none"), .float(1.5)],   // mask 00
        [nil, wide("first"), .float(2.5)],     // mask 01
        [int(3), wide("last"), nil],           // mask 04
        [int(4), nil, .float(4.5)],            // mask 02
        [nil, nil, nil],                       // mask 07
    ])
    let wideColumns: [Column] = [
        Column("C1", .integer), Column("C2", .smallInt), Column("C3", .wideString, size: 20), Column("C4", .string, size: 20),
        Column("C5", .float), Column("C6", .boolean), Column("C7", .byte), Column("C8", .largeInt),
        Column("C9", .decimal), Column("C10", .currency),
    ]
    let full: Row = [int(1), int(-2), wide("w"), ansi("a"), .float(0.5), .boolean(1), int(7), int(-8), decimal("9.9"), money(100)]
    var ninthNull = full; ninthNull[8] = nil
    var firstLast = full; firstLast[0] = nil; firstLast[9] = nil
    var firstEight = full; for i in 0..<8 { firstEight[i] = nil }
    let wideTable = table("Wide", wideColumns, rows: [
        full,                                     // mask 00 00
        ninthNull,                                // mask 00 01
        Row(repeating: nil, count: 10),           // mask ff 03
        firstLast,                                // mask 01 02
        firstEight,                               // mask ff 00
    ], withSchema: false)
    return try file([.table(mixed), .table(wideTable)])
}

/// empty-table.daBriefcase: a schema with zero rows; tables without a schema block.
func emptyTable() throws -> [UInt8] {
    let empty = table("Empty", [Column("ID", .integer, primaryKey: true), Column("Name", .wideString, size: 65536)], rows: [])
    let noSchema = table("NoSchema", [Column("ID", .integer), Column("Name", .string, size: 10)],
                         rows: [[int(1), ansi("one")], [int(2), nil]], withSchema: false)
    let noSchemaPosition = table("NoSchemaPos", [Column("ID", .integer)], rows: [[int(42)]],
                                 withSchema: false, schemaEndWhenAbsent: .position)
    let noFields = Table(name: u("NoFields"), schema: Schema(fieldPropertyCount: 0, fields: [], parameterPropertyCount: 12, parameters: []),
                         fields: [], rows: [])
    return try file([.table(empty), .table(noSchema), .table(noSchemaPosition), .table(noFields)])
}

/// empty-delta.daBriefcase: a zero-change delta (full layout) and a delta-only element with
/// every change type and status.
func emptyDelta() throws -> [UInt8] {
    let orderColumns = [Column("ID", .integer, primaryKey: true), Column("Name", .wideString, size: 100)]
    let ordersDelta = Delta(name: u("Orders"), loggedFields: orderColumns.map(\.logged), keyFields: [u("ID")],
                            reducedDeltaFlag: 1, changes: [], layout: .full)
    let orders = table("Orders", orderColumns, rows: [[int(1), wide("first")]])

    let archiveColumns: [Column] = [
        Column("ID", .integer), Column("Name", .wideString), Column("Amount", .currency), Column("Note", .string),
        Column("Created", .dateTime), Column("Flag", .boolean), Column("Price", .decimal), Column("Data", .blob),
        Column("Code", .guid),
    ]
    let none = [Value?](repeating: nil, count: 9)
    let changes = [
        // Insert, pending: no old values; new mask 77 01 (fields 0,1,2,4,5,6,8).
        DeltaChange(type: .insert, recordID: 1100, status: .pending, message: .empty, oldValues: none,
                    newValues: [int(1), wide("Ann"), money(25000), nil, date(42173.5), .boolean(1), decimal("1.50"), nil,
                                guid("6F9619FF-8B86-D011-B42D-00C04FC964FF")]),
        // Update, resolved: old mask 03 00 (ID, Name), new mask 0b 00 (ID, Name, Note).
        DeltaChange(type: .update, recordID: 1101, status: .resolved, message: .empty,
                    oldValues: [int(2), wide("Bob"), nil, nil, nil, nil, nil, nil, nil],
                    newValues: [int(2), wide("Robert"), nil, ansi("renamed"), nil, nil, nil, nil, nil]),
        // Delete, failed with a message: old mask 81 01 (ID, Data, Code), new mask 00 00.
        DeltaChange(type: .delete, recordID: 1102, status: .failed, message: u("Row is locked by another user"),
                    oldValues: [int(3), nil, nil, nil, nil, nil, nil, blob([0xca, 0xfe]), guid("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")],
                    newValues: none),
        // Update, failed with a non-ASCII (UTF-8) message: old mask 05 00, new mask 05 00.
        DeltaChange(type: .update, recordID: 1103, status: .failed, message: u("Konflikt: Wert geändert"),
                    oldValues: [int(4), nil, money(-1), nil, nil, nil, nil, nil, nil],
                    newValues: [int(4), nil, money(10000), nil, nil, nil, nil, nil, nil]),
    ]
    let archive = Delta(name: u("Archive"), loggedFields: archiveColumns.map(\.logged), keyFields: [u("ID")],
                        reducedDeltaFlag: 1, changes: changes)
    return try file([.delta(ordersDelta), .table(orders), .delta(archive)])
}

/// gbk.daBriefcase: like the .NET files: 8-bit names and property values in GBK, schema Name
/// values in UTF-8, a pending insert delta before its table.
func gbk() throws -> [UInt8] {
    let columns = [
        Column(rawName: GBK.courseName, schemaName: "课程名称", .wideString, size: 65536),
        Column(rawName: GBK.courseNo, schemaName: "课程编号", .wideString, size: 65536),
    ]
    let delta = Delta(name: u("CourseInfo"), loggedFields: columns.map(\.logged), keyFields: [], reducedDeltaFlag: 1, changes: [
        DeltaChange(type: .insert, recordID: 1100, status: .pending, message: .empty,
                    oldValues: [nil, nil], newValues: [wide("软件工程"), wide("2013021202")]),
    ])
    let course = table("CourseInfo", columns, rows: [[wide("数据库原理"), wide("2012020307")]])
    let properties = [
        BriefcaseProperty(name: u("CourseName"), value: ByteString(GBK.databasePrinciples)),
        BriefcaseProperty(name: u("CourseNo"), value: u("2012020307")),
        BriefcaseProperty(name: ByteString(GBK.courseName), value: ByteString(GBK.courseNo)),
        BriefcaseProperty(name: u("LastModified"), value: u("N/A")),
    ]
    return try file([.delta(delta), .table(course)], properties: properties)
}

/// orders.bin2: a bare Bin2 stream with a table keyed on ID and its delta.
func ordersStream() throws -> [UInt8] {
    let columns = [
        Column("ID", .autoInc, primaryKey: true), Column("Customer", .wideString, size: 100),
        Column("Amount", .currency), Column("Shipped", .dateTime),
    ]
    let orders = table("Orders", columns, rows: [
        [int(1), wide("Alice"), money(125000), date(45000.5)],
        [int(2), wide("Bob"), money(70000), nil],
        [int(3), wide("Carol"), money(1_000_000), date(45001)],
    ])
    let delta = Delta(name: u("Orders"), loggedFields: columns.map(\.logged), keyFields: [u("ID")], reducedDeltaFlag: 1, changes: [
        // Order 2: amount 7 → 8, shipped NULL → 2023-03-15 06:00.
        DeltaChange(type: .update, recordID: 1100, status: .pending,
                    oldValues: [int(2), nil, money(70000), nil], newValues: [int(2), nil, money(80000), date(45000.25)]),
        DeltaChange(type: .delete, recordID: 1101, status: .pending,
                    oldValues: [int(3), wide("Carol"), money(1_000_000), date(45001)], newValues: [nil, nil, nil, nil]),
        DeltaChange(type: .insert, recordID: 1102, status: .pending,
                    oldValues: [nil, nil, nil, nil], newValues: [int(4), wide("Dora 😀"), money(50000), nil]),
    ])
    return try Bin2Encoder.encode(Bin2Stream(elements: [.delta(delta), .table(orders)]))
}

/// unsafe-names.daBriefcase: table names that cannot be file names as they are, for folder output.
func unsafeNames() throws -> [UInt8] {
    let columns = [Column("ID", .integer, primaryKey: true), Column("Name", .wideString, size: 20)]
    var elements: [Element] = []
    for (i, name) in ["../../escape", "a/b", ".hidden", "CON", "Orders", "orders"].enumerated() {
        if name == "Orders" {
            elements.append(.delta(Delta(name: u(name), loggedFields: columns.map(\.logged), keyFields: [u("ID")], changes: [
                DeltaChange(type: .insert, recordID: 1100, oldValues: [nil, nil], newValues: [int(99), wide("new")]),
            ])))
        }
        elements.append(.table(table(name, columns, rows: [[int(Int64(i)), wide(name)]])))
    }
    return try file(elements, properties: [BriefcaseProperty(name: u("Owner"), value: u("names/../test"))])
}

/// The valid base of the damaged files (108 bytes):
///
///     0 DABRC600 | 8 data offset 16 | 12 property count 0 | 16 DABIN200 | 24 index position 91
///     28 table "T": schema flag 0 | 29 schema end 0 | 33 row count 2 | 37 field count 2
///     41 "ID" datInteger(6) size 0 | 52 "Name" datWideString(11) @60, size 20
///     65 row 0: mask 00 | 66 ID 1 | 70 Name len 4 | 74 "ab"
///     78 row 1: mask 00 | 79 ID 2 | 83 Name len 4 | 87 "cd"
///     91 index: 1 element, table "T" @28 | 108 EOF
func damagedBase() throws -> [UInt8] {
    let t = table("T", [Column("ID", .integer), Column("Name", .wideString, size: 20)],
                  rows: [[int(1), wide("ab")], [int(2), wide("cd")]], withSchema: false)
    let bytes = try file([.table(t)])
    precondition(bytes.count == 108 && bytes[60] == 11 && bytes[91] == 1, "damaged base layout changed")
    return bytes
}

func damaged() throws -> [Fixture] {
    let base = try damagedBase()

    // Cut in the middle of row 1's Name: the index is gone too.
    let truncatedFile = Array(base[..<89])

    // Same cut, but with a consistent index after it: the table element itself is short.
    var truncatedRow = Array(base[..<89])
    patch32(&truncatedRow, at: 24, expecting: 91, with: 89)
    truncatedRow += le32(1) + le32(0) + le32(1) + Array("T".utf8) + le32(28)

    var rowCount = base
    patch32(&rowCount, at: 33, expecting: 2, with: 0x7FFF_FFF0)

    var indexPosition = base
    patch32(&indexPosition, at: 24, expecting: 91, with: 0x0001_0000)

    var type200 = base
    type200[60] = 200
    var type0 = base
    type0[60] = 0

    return [
        Fixture(name: "damaged-truncated-file.daBriefcase",
                purpose: "a valid file cut in the middle of a row (offset 89): the index is lost; fails at the index position (offset 24)",
                bytes: truncatedFile),
        Fixture(name: "damaged-truncated-row.daBriefcase",
                purpose: "the table element ends in the middle of row 1 but the index is intact; fails at the Name length (offset 83)",
                bytes: truncatedRow),
        Fixture(name: "damaged-row-count.daBriefcase",
                purpose: "row count overwritten with 0x7FFFFFF0; fails at the row count (offset 33) without allocating",
                bytes: rowCount),
        Fixture(name: "damaged-index-position.daBriefcase",
                purpose: "index position 65536 points outside the file; fails at offset 24",
                bytes: indexPosition),
        Fixture(name: "damaged-type-200.daBriefcase",
                purpose: "unknown data type code 200 in a row descriptor with a non-NULL value; fails at the value (offset 70)",
                bytes: type200),
        Fixture(name: "damaged-type-0.daBriefcase",
                purpose: "datUnknown (0) in a row descriptor with a non-NULL value; fails at the value (offset 70)",
                bytes: type0),
    ]
}

func allFixtures() throws -> [Fixture] {
    [
        Fixture(name: "all-types.daBriefcase",
                purpose: "one column of every data type 1–26 with a schema (Name, DataType, InPrimaryKey, LogChanges, Size, Description; one nil value); 5 rows of extremes: integer min/max, NaN, ±∞, −0.0, pre-1899 dates, milliseconds, 28-digit decimals, currency min/max, empty strings/blobs, 😀 in UTF-8 and UTF-16, GUIDs in both cases; UTF-8 briefcase properties",
                bytes: try allTypes()),
        Fixture(name: "nulls.daBriefcase",
                purpose: "NULLs in every position (none, first, middle, last, all); a 10-field table without schema whose 2-byte mask has the 9th field NULL",
                bytes: try nulls()),
        Fixture(name: "empty-table.daBriefcase",
                purpose: "a table with schema and zero rows; tables without schema (schema end 0, and schema end = position); a schema with zero fields",
                bytes: try emptyTable()),
        Fixture(name: "empty-delta.daBriefcase",
                purpose: "a zero-change delta (full layout) before its table; a delta-only element with insert/update/delete, pending/resolved/failed (with messages), partial 2-byte masks, key field ID",
                bytes: try emptyDelta()),
        Fixture(name: "gbk.daBriefcase",
                purpose: "like the .NET files: field names and briefcase properties in GBK, schema Name values in UTF-8, a pending insert delta before its table",
                bytes: try gbk()),
        Fixture(name: "orders.bin2",
                purpose: "bare Bin2 stream: table Orders (ID InPrimaryKey True) and its delta (key ID; update, delete, insert) for cat with delta application",
                bytes: try ordersStream()),
        Fixture(name: "unsafe-names.daBriefcase",
                purpose: "tables named ../../escape, a/b, .hidden, CON, Orders (with a delta) and orders: a folder must keep them inside and restore every name",
                bytes: try unsafeNames()),
    ] + (try damaged())
}

func readme(_ fixtures: [Fixture]) -> String {
    var text = """
    # Fixtures

    Generated by `swift run briefcase-fixtures Fixtures` (Sources/FixtureMaker/main.swift); do not edit by hand.
    `Tests/BriefcaseKitTests/FixtureTests.swift` checks that these files equal a fresh run of the generator.

    `regressions/` is not generated: it holds the inputs that once crashed a parser (found by fuzzing or
    review), one folder per fuzz target, each file described in `regressions/README.md` and run by
    `Tests/BriefcaseCLITests/RegressionInputTests.swift` and by `Scripts/fuzz.sh`.

    `expected/` is not generated either. It holds two documents per well-formed fixture, each as
    `briefcase convert` writes it, each checked once against sources independent of the code that
    writes it (described below), and from then on the oracle of the tests that compare with it:

    - JSON documents, `NAME.json` (Spec/json-format.md), which
      `Tests/BriefcaseJSONTests/StreamingConversionTests.swift` compares every way of writing JSON
      from a binary briefcase with (element by element from the file, from memory, from a decoded
      document), and converts back to the fixture's bytes; the CLI tests compare `convert`'s
      output with it. Checked when it was written (issue 12): a one-off Python script (not kept)
      rebuilt each document from the models of Sources/FixtureMaker/main.swift, transcribed by
      hand, by the rules of Spec/json-format.md alone, without BriefcaseKit — 8-bit strings as
      text when Python's codec maps them reversibly (§5.1), the value forms of §6.2, the ISO date
      rule of §6.3 in both directions, the layout of §8 — and got these bytes exactly; each is valid
      against Spec/briefcase-json.schema.json (Python's `jsonschema`); `briefcase convert` turns
      each back into the fixture byte for byte (`FixtureTests` checks the fixtures against layouts
      assembled by hand); `briefcase validate` finds each valid (unsafe-names:
      only the fixture's own error, two tables named alike but for case). The encoding each names
      is the README's rule: `gbk` for gbk.json, whose row descriptors' names are not UTF-8 and read
      in GBK (Python's codec) as the schema's UTF-8 names; `utf-8` for the others, whose 8-bit
      strings all are UTF-8.
    - Datastore snapshot documents, `NAME.snapshot.json` (Spec/datastore-mapping.md), which
      `Tests/BriefcaseDatastoreTests/ExpectedSnapshotTests.swift` compares the export with byte for
      byte. Each was checked once, when it was written (commit 8eb222b): two exporters then gave
      these bytes (the model export, since removed, and the streamed one); `briefcase validate`
      finds a valid snapshot whose deltas apply (unsafe-names: only the fixture's own error, two
      tables named alike but for case); converted back it gives the fixture byte for byte;
      orders.snapshot.json is the example of §10. A one-off script (not kept) compared each with
      what the briefcase says, by the spec and without the exporter: each element of the
      `briefcase` member is the JSON document's element with `tid` and field ids by §3.1 and the
      same old values; `rev` and the delta revisions follow §2.1 and §2.2; record ids follow §3.3
      where the key is an integer or text; every stored record holds the row of `briefcase cat
      --original`, and every record after the deltas (applied by the script) a row of `briefcase
      cat` (the replay of `Table.applying`), mapped by the table of §4.1 — 419 values and ids in
      all, except the tables `Orders` and `orders` of unsafe-names, which `cat` cannot tell apart.
      The delta-only `Archive` of empty-delta was read by hand.


    """
    for fixture in fixtures {
        text += "- `\(fixture.name)` (\(fixture.bytes.count) bytes): \(fixture.purpose)\n"
    }
    return text
}

// MARK: - Main

let arguments = CommandLine.arguments.dropFirst()
if arguments.contains(where: { $0 == "-h" || $0 == "--help" }) || arguments.count > 1 {
    print("usage: briefcase-fixtures [folder]   (writes the test fixtures; default folder: Fixtures)")
    exit(arguments.count > 1 ? 2 : 0)
}
let folder = URL(fileURLWithPath: arguments.first ?? "Fixtures", isDirectory: true)

do {
    let fixtures = try allFixtures()
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for fixture in fixtures {
        try Data(fixture.bytes).write(to: folder.appendingPathComponent(fixture.name))
    }
    try Data(readme(fixtures).utf8).write(to: folder.appendingPathComponent("README.md"))
    print("wrote \(fixtures.count) fixtures and README.md to \(folder.path)")
} catch {
    FileHandle.standardError.write(Data("briefcase-fixtures: \(error)\n".utf8))
    exit(1)
}
