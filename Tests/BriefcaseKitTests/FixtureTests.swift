import Foundation
import BriefcaseTestSupport
import Testing
@testable import BriefcaseKit

/// The project's fixtures (Fixtures/, written by `briefcase-fixtures`).
///
/// Three kinds of checks:
/// 1. Every well-formed fixture decodes without warnings and re-encodes byte for byte.
/// 2. The committed files equal a fresh run of the generator. The builders live only in the
///    executable (Sources/FixtureMaker/main.swift); the test runs the binary that `swift test`
///    builds next to the test bundle, so nothing is duplicated and nothing else in Package.swift
///    has to change.
/// 3. Decoded values and raw bytes are compared with expectations computed independently of
///    BriefcaseKit and of the generator: byte layouts assembled by hand with `Bytes`, numbers
///    as hex literals (computed with Python's `struct`/`int.to_bytes`).
@Suite struct FixtureTests {
    // MARK: Round trip

    @Test(arguments: TestPaths.validFixtureNames)
    func decodesAndReencodesByteForByte(name: String) throws {
        let bytes = try TestPaths.fixture(name)
        let decoded = try decodeAny(bytes, bin2: name.hasSuffix(".bin2"))
        #expect(decoded.warnings.isEmpty, "\(decoded.warnings)")
        #expect(try encodeAny(decoded) == bytes)
    }

    /// Decoded as a document too (not only by the file codec), each damaged fixture fails with the
    /// kind and at the offset worked out by hand in `DamageTests.damagedExpectations`.
    @Test(arguments: DamageTests.damagedExpectations.indices)
    func damagedFixturesDoNotDecode(index: Int) throws {
        let (name, kind, offset, element) = DamageTests.damagedExpectations[index]
        let bytes = try TestPaths.fixture(name)
        var warnings: [DecodingWarning] = []
        let error = try #require(throws: BriefcaseError.self) { try BriefcaseDocument.decode(bytes, as: .dabriefcase, warnings: &warnings) }
        #expect(error.kind == kind && error.offset == offset && error.element == element, "\(name): \(error)")
    }

    // MARK: Generator and README in sync

    /// The README names exactly the fixture files in the folder, and those are the ones the tests know.
    @Test func readmeListsEveryFixture() throws {
        let readme = try String(contentsOf: TestPaths.fixtures.appendingPathComponent("README.md"), encoding: .utf8)
        let listed = readme.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("- `"), let end = line.dropFirst(3).firstIndex(of: "`") else { return nil }
            return String(line[line.index(line.startIndex, offsetBy: 3) ..< end])
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: TestPaths.fixtures.path).filter { $0 != "README.md" && $0 != "regressions" && $0 != "expected" }
        #expect(Set(listed) == Set(files))
        #expect(listed.count == files.count)
        #expect(Set(files) == Set(TestPaths.allFixtureNames))
    }

    /// Runs the built `briefcase-fixtures` into a temporary folder and compares every file.
    @Test func committedFixturesEqualAFreshGeneratorRun() throws {
        let tool = try #require(Self.generatorExecutable(), "briefcase-fixtures executable not found next to the test bundle; build it with `swift build`")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("briefcase-fixtures-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let process = Process()
        process.executableURL = tool
        process.arguments = [output.path]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)

        let fresh = try FileManager.default.contentsOfDirectory(atPath: output.path).sorted()
        // (regressions/ holds found inputs, expected/ expected outputs: not generated ones.)
        let committed = try FileManager.default.contentsOfDirectory(atPath: TestPaths.fixtures.path)
            .filter { $0 != "regressions" && $0 != "expected" }.sorted()
        #expect(fresh == committed)
        for name in fresh {
            let a = FileManager.default.contents(atPath: output.appendingPathComponent(name).path)
            let b = FileManager.default.contents(atPath: TestPaths.fixtures.appendingPathComponent(name).path)
            #expect(a == b, "Fixtures/\(name) differs from the generator's output; rerun `swift run briefcase-fixtures Fixtures`")
        }
    }

    /// The generator binary sits in the same build folder as the test binary (`.build/debug`).
    static func generatorExecutable() -> URL? {
        var starts: [URL] = [Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0])]
        if let url = Bundle.main.executableURL { starts.append(url) }
        starts += Bundle.allBundles.map(\.bundleURL)
        #if os(Linux)
        starts.append(URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath())
        #endif
        for start in starts {
            var folder = start.deletingLastPathComponent()
            for _ in 0..<4 {
                let candidate = folder.appendingPathComponent("briefcase-fixtures")
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                folder.deleteLastPathComponent()
            }
        }
        return nil
    }

    // MARK: all-types: every byte checked by hand

    /// (name, type code, size, InPrimaryKey, LogChanges, Description)
    static let allTypesColumns: [(String, UInt8, Int32, Bool, Bool, String?)] = [
        ("String", 1, 50, false, true, "8-bit text, UTF-8 here: Grüße 😀"),
        ("DateTime", 2, 0, false, true, ""), ("Float", 3, 0, false, true, ""), ("Currency", 4, 0, false, true, ""),
        ("AutoInc", 5, 0, true, true, ""), ("Integer", 6, 0, false, true, ""), ("LargeInt", 7, 0, false, true, ""),
        ("Boolean", 8, 0, false, true, ""), ("Memo", 9, 0, false, true, ""), ("Blob", 10, 0, false, true, ""),
        ("WideString", 11, 65536, false, true, ""), ("WideMemo", 12, 0, false, true, ""),
        ("LargeAutoInc", 13, 0, false, true, ""), ("Byte", 14, 0, false, true, ""), ("ShortInt", 15, 0, false, true, ""),
        ("Word", 16, 0, false, true, ""), ("SmallInt", 17, 0, false, true, ""), ("Cardinal", 18, 0, false, true, ""),
        ("LargeUInt", 19, 0, false, true, ""), ("Guid", 20, 0, false, true, ""), ("Xml", 21, 0, false, true, ""),
        ("Decimal", 22, 0, false, true, ""), ("SingleFloat", 23, 0, false, true, ""), ("FixedChar", 24, 10, false, true, ""),
        ("FixedWideChar", 25, 10, false, true, ""), ("Cursor", 26, 0, false, false, nil),
    ]
    static let datNames = ["datString", "datDateTime", "datFloat", "datCurrency", "datAutoInc", "datInteger", "datLargeInt",
                           "datBoolean", "datMemo", "datBlob", "datWideString", "datWideMemo", "datLargeAutoInc", "datByte",
                           "datShortInt", "datWord", "datSmallInt", "datCardinal", "datLargeUInt", "datGuid", "datXml",
                           "datDecimal", "datSingleFloat", "datFixedChar", "datFixedWideChar", "datCursor"]

    /// 10^28 - 1 as a 96-bit little-endian magnitude (Python: `(10**28-1).to_bytes(12, 'little')`).
    static let nines28 = "ff ff ff 0f 61 02 25 3e 5e ce 4f 20"

    static let allTypesRows: [UInt8] = Bytes.build { b in
        // Row 0: maxima.
        b.hex("00 00 00 00")                                  // NULL mask, 26 fields
        b.str("Grüße 😀")
        b.hex("ab aa aa aa aa 97 e4 40")                      // 42173.333333333336 = 2015-06-18 08:00
        b.hex("00 00 00 00 00 00 f0 7f")                      // +∞
        b.hex("ff ff ff ff ff ff ff 7f")                      // Currency Int64.max
        b.hex("ff ff ff 7f"); b.hex("ff ff ff 7f")            // AutoInc, Integer Int32.max
        b.hex("ff ff ff ff ff ff ff 7f")                      // LargeInt Int64.max
        b.u8(1)
        b.str("line1\r\nline2 ü")
        b.lp([0x00, 0x01, 0x7f, 0x80, 0xff])
        b.wide("Wide 😀 Ω"); b.wide("multi\nline 😀")
        b.hex("ff ff ff ff ff ff ff 7f")                      // LargeAutoInc
        b.hex("ff"); b.hex("7f"); b.hex("ff ff"); b.hex("ff 7f"); b.hex("ff ff ff ff")
        b.hex("ff ff ff ff ff ff ff ff")                      // LargeUInt UInt64.max
        b.ascii("6F9619FF-8B86-D011-B42D-00C04FC964FF")       // no length prefix
        b.wide("<r a=\"😀\"/>")
        b.hex(nines28); b.hex("00 00 00 00")                  // decimal 10^28-1, scale 0
        b.hex("00 00 80 7f")                                  // Float +∞
        b.str("ABC"); b.wide("Ω😀"); b.lp([1, 2, 3])

        // Row 1: minima and empties.
        b.hex("00 00 00 00")
        b.i32(0)
        b.hex("00 00 00 00 00 00 f4 bf")                      // -1.25
        b.hex("00 00 00 00 00 00 f0 ff")                      // -∞
        b.hex("00 00 00 00 00 00 00 80")                      // Currency Int64.min
        b.hex("00 00 00 80"); b.hex("00 00 00 80")
        b.hex("00 00 00 00 00 00 00 80")                      // LargeInt Int64.min
        b.u8(0)
        b.i32(0); b.i32(0); b.i32(0); b.i32(0)                // Memo, Blob, WideString, WideMemo empty
        b.hex("00 00 00 00 00 00 00 80")
        b.hex("00"); b.hex("80"); b.hex("00 00"); b.hex("00 80"); b.hex("00 00 00 00")
        b.hex("00 00 00 00 00 00 00 00")
        b.ascii("6f9619ff-8b86-d011-b42d-00c04fc964ff")
        b.i32(0)
        b.hex(nines28); b.hex("00 00 1c 80")                  // scale 28, negative
        b.hex("00 00 80 ff")                                  // Float -∞
        b.i32(0); b.i32(0); b.i32(0)

        // Row 2: NaN, 0001-01-01, -0.0001.
        b.hex("00 00 00 00")
        b.str("plain")
        b.hex("00 00 00 00 b2 2a 25 c1")                      // -693593.0 = 0001-01-01
        b.hex("00 00 00 00 00 00 f8 7f")                      // NaN
        b.hex("ff ff ff ff ff ff ff ff")                      // Currency -1 (-0.0001)
        b.i32(0); b.i32(0); b.i64(0)
        b.u8(1)
        b.str("x"); b.lp([0])
        b.hex("02 00 00 00 e9 00"); b.hex("02 00 00 00 b2 8a") // "é", "課" (U+8AB2)
        b.i64(0)
        b.hex("01"); b.hex("00"); b.hex("01 00"); b.hex("00 00"); b.hex("01 00 00 00")
        b.hex("01 00 00 00 00 00 00 00")
        b.ascii("00000000-0000-0000-0000-000000000000")
        b.wide("<x/>")
        b.hex("01 00 00 00 00 00 00 00 00 00 00 00"); b.hex("00 00 03 80") // -0.001
        b.hex("00 00 c0 7f")                                  // Float NaN
        b.str("Z"); b.wide("z"); b.lp([0])

        // Row 3: -0.0, milliseconds, 2.5, 1.50, non-BMP only.
        b.hex("00 00 00 00")
        b.hex("04 00 00 00 f0 9f 98 80")                      // "😀" in UTF-8
        b.hex("24 7f 30 58 f2 24 e6 40")                      // 45351.5732653125 = 2024-02-29 13:45:30.123
        b.hex("00 00 00 00 00 00 00 80")                      // -0.0
        b.hex("a8 61 00 00 00 00 00 00")                      // 25000 = 2.5
        b.i32(1); b.i32(1); b.i64(1)
        b.u8(0)
        b.hex("04 00 00 00 f0 9f 98 80")
        b.lp([0xde, 0xad, 0xbe, 0xef])
        b.hex("04 00 00 00 3d d8 00 de"); b.hex("04 00 00 00 3d d8 00 de") // "😀" in UTF-16LE (surrogate pair)
        b.i64(1)
        b.hex("80"); b.hex("ff"); b.hex("00 80"); b.hex("ff ff"); b.hex("00 00 00 80")
        b.hex("00 00 00 00 00 00 00 80")
        b.ascii("A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11")
        b.i32(0)
        b.hex("96 00 00 00 00 00 00 00 00 00 00 00"); b.hex("00 00 02 00") // 1.50
        b.hex("00 00 00 80")                                  // Float -0.0
        b.hex("02 00 00 00 c3 a9"); b.hex("02 00 00 00 e9 00"); b.lp([0xff])

        // Row 4: ordinary values, the largest decimal.
        b.hex("00 00 00 00")
        b.str("ordinary")
        b.hex("00 00 00 00 35 10 24 c1")                      // -657434.5 = 0100-01-01 12:00
        b.hex("00 00 00 00 00 00 f8 3f")                      // 1.5
        b.i64(0)
        b.hex("ff ff ff ff"); b.hex("ff ff ff ff"); b.hex("ff ff ff ff ff ff ff ff")
        b.u8(1)
        b.str("memo"); b.i32(0); b.wide("z"); b.wide("memo")
        b.hex("ff ff ff ff ff ff ff ff")
        b.hex("7f"); b.hex("01"); b.hex("00 01"); b.hex("01 00"); b.hex("00 00 01 00")
        b.hex("ff ff ff ff ff ff ff 7f")
        b.ascii("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")
        b.wide("<x/>")
        b.hex("ff ff ff ff ff ff ff ff ff ff ff ff"); b.hex("00 00 00 00") // 2^96 - 1
        b.hex("cd cc cc 3d")                                  // Float 0.1
        b.str("fixed"); b.wide("fixed"); b.i32(0)
    }

    @Test func allTypesBytesMatchAHandBuiltLayout() throws {
        let bytes = try TestPaths.fixture("all-types.daBriefcase")
        // Header: 3 properties, UTF-8; data offset = 16 + (4+5 + 4+23) + (4+7 + 4+1) + (4+5 + 4+0) = 81.
        let header = Bytes.build { b in
            b.ascii("DABRC600"); b.i32(81); b.i32(3)
            b.str("Title"); b.hex("17 00 00 00 47 72 c3 bc c3 9f 65 20 e2 80 93 20 e6 b5 8b e8 af 95 20 f0 9f 98 80")
            b.str("Version"); b.str("1")
            b.str("Empty"); b.i32(0)
            b.ascii("DABIN200")
        }
        #expect(Array(bytes[0 ..< header.count]) == header)
        let indexPosition = Int(int32(bytes, at: 89))
        // The only element starts at 81 + 12 = 93: schema flag 1, schema end, schema.
        #expect(bytes[93] == 1)
        let schemaEnd = Int(int32(bytes, at: 94))
        let schema = Bytes.build { b in
            b.i32(26); b.i32(6)
            for (i, column) in Self.allTypesColumns.enumerated() {
                b.prop("Name", column.0)
                b.prop("DataType", Self.datNames[i])
                b.prop("InPrimaryKey", column.3 ? "True" : "False")
                b.prop("LogChanges", column.4 ? "True" : "False")
                b.prop("Size", String(column.2))
                b.prop("Description", column.5)
            }
            b.i32(0); b.i32(12)                               // no parameters, 12 properties each (.NET)
        }
        #expect(schemaEnd == 98 + schema.count)
        #expect(Array(bytes[98 ..< schemaEnd]) == schema)
        let rowSection = Bytes.build { b in
            b.i32(5); b.i32(26)
            for column in Self.allTypesColumns { b.field(column.0, column.1, column.2) }
            b.raw(Self.allTypesRows)
        }
        #expect(indexPosition == schemaEnd + rowSection.count)
        #expect(Array(bytes[schemaEnd ..< indexPosition]) == rowSection)
        let index = Bytes.build { b in b.i32(1); b.i32(0); b.str("AllTypes"); b.i32(93) }
        #expect(Array(bytes[indexPosition...]) == index)
        // The nil Description of Cursor is stored as length -1, exactly once.
        #expect(bytes.occurrences(of: Bytes.build { $0.prop("Description", nil) }) == 1)
    }

    @Test func allTypesDecodedValues() throws {
        let file = try BriefcaseFileCodec.decode(try TestPaths.fixture("all-types.daBriefcase"))
        #expect(file.properties.map { $0.name.utf8String } == ["Title", "Version", "Empty"])
        #expect(file.properties[0].value.utf8String == "Grüße – 测试 😀")
        #expect(file.properties[2].value.isEmpty)
        let table = try #require(file.stream.table(named: "alltypes"))
        #expect(table.fields.map(\.type.rawValue) == Array(1...26))
        #expect(table.fields.map(\.name.utf8String) == Self.allTypesColumns.map { $0.0 })
        let schema = try #require(table.schema)
        #expect(schema.fields.map { $0.value(named: "DataType") } == Self.datNames)
        #expect(schema.fields.map { $0.value(named: "InPrimaryKey") == "True" } == Self.allTypesColumns.map { $0.3 })
        let cursorDescription = try #require(schema.fields[25].first { $0.name == "Description" })
        #expect(cursorDescription.value == nil)
        #expect(schema.fields[0].value(named: "Size") == "50")
        #expect(table.rows.count == 5)
        let rows = table.rows

        func column(_ name: String) -> [Value?] {
            let i = table.fields.firstIndex { $0.name.utf8String == name }!
            return rows.map { $0[i] }
        }
        #expect(rows.allSatisfy { $0.allSatisfy { $0 != nil } })

        // Integers: every width's extremes.
        #expect(column("Integer") == [.integer(2147483647), .integer(-2147483648), .integer(0), .integer(1), .integer(-1)])
        #expect(column("LargeInt") == [.integer(9223372036854775807), .integer(-9223372036854775808), .integer(0), .integer(1), .integer(-1)])
        #expect(column("LargeUInt") == [.largeUInt(18446744073709551615), .largeUInt(0), .largeUInt(1), .largeUInt(9223372036854775808), .largeUInt(9223372036854775807)])
        #expect(column("Byte") == [.integer(255), .integer(0), .integer(1), .integer(128), .integer(127)])
        #expect(column("ShortInt") == [.integer(127), .integer(-128), .integer(0), .integer(-1), .integer(1)])
        #expect(column("Word") == [.integer(65535), .integer(0), .integer(1), .integer(32768), .integer(256)])
        #expect(column("SmallInt") == [.integer(32767), .integer(-32768), .integer(0), .integer(-1), .integer(1)])
        #expect(column("Cardinal") == [.integer(4294967295), .integer(0), .integer(1), .integer(2147483648), .integer(65536)])
        #expect(column("Boolean") == [.boolean(1), .boolean(0), .boolean(1), .boolean(0), .boolean(1)])

        // Floats by bit pattern (NaN ≠ NaN).
        let doubles = column("Float").map { value -> UInt64? in if case .float(let d) = value { d.bitPattern } else { nil } }
        #expect(doubles == [0x7FF0_0000_0000_0000, 0xFFF0_0000_0000_0000, 0x7FF8_0000_0000_0000, 0x8000_0000_0000_0000, 0x3FF8_0000_0000_0000])
        let singles = column("SingleFloat").map { value -> UInt32? in if case .singleFloat(let f) = value { f.bitPattern } else { nil } }
        #expect(singles == [0x7F80_0000, 0xFF80_0000, 0x7FC0_0000, 0x8000_0000, 0x3DCC_CCCD])

        // Dates.
        let dates = column("DateTime").map { value -> OLEDateTime? in if case .dateTime(let d) = value { d } else { nil } }
        #expect(dates.map { $0?.value.bitPattern } == [0x40E4_97AA_AAAA_AAAB, 0xBFF4_0000_0000_0000, 0xC125_2AB2_0000_0000, 0x40E6_24F2_5830_7F24, 0xC124_1035_0000_0000])
        #expect(dates.map { $0?.isoText } == ["2015-06-18T08:00:00.000", "1899-12-29T06:00:00.000", "0001-01-01T00:00:00.000",
                                               "2024-02-29T13:45:30.123", "0100-01-01T12:00:00.000"])

        // Currency and decimals.
        #expect(column("Currency").map { value -> String? in if case .currency(let c) = value { c.description } else { nil } }
                == ["922337203685477.5807", "-922337203685477.5808", "-0.0001", "2.5", "0"])
        let decimals = column("Decimal").map { value -> Decimal96? in if case .decimal(let d) = value { d } else { nil } }
        #expect(decimals.map { $0?.description } == ["9999999999999999999999999999", "-0.9999999999999999999999999999", "-0.001", "1.50",
                                                     "79228162514264337593543950335"])
        #expect(decimals[0] == Decimal96(low: 0x0FFF_FFFF, mid: 0x3E25_0261, high: 0x204F_CE5E, flags: 0))
        #expect(decimals[1] == Decimal96(low: 0x0FFF_FFFF, mid: 0x3E25_0261, high: 0x204F_CE5E, flags: 0x801C_0000))

        // Strings keep their bytes: UTF-8 in 8-bit strings, UTF-16LE in wide ones.
        #expect(column("String")[0] == .ansiString(ByteString(hexBytes("47 72 c3 bc c3 9f 65 20 f0 9f 98 80"))))
        #expect(column("String")[1] == .ansiString(.empty))
        #expect(column("WideString")[3] == .wideString(ByteString(hexBytes("3d d8 00 de"))))
        if case .wideString(let s) = column("WideString")[0] { #expect(WideText.decode(s) == "Wide 😀 Ω") } else { Issue.record("not wide") }
        #expect(column("Blob") == [.blob(ByteString([0, 1, 0x7f, 0x80, 0xff])), .blob(.empty), .blob(ByteString([0])),
                                   .blob(ByteString([0xde, 0xad, 0xbe, 0xef])), .blob(.empty)])
        #expect(column("Cursor")[1] == .blob(.empty))
        #expect(column("Guid").map { value -> String? in if case .guid(let g) = value { g.utf8String } else { nil } }
                == ["6F9619FF-8B86-D011-B42D-00C04FC964FF", "6f9619ff-8b86-d011-b42d-00c04fc964ff",
                    "00000000-0000-0000-0000-000000000000", "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11",
                    "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"])
    }

    // MARK: Text conversions

    @Test func dateTextConversions() {
        #expect(OLEDateTime(-1.25).isoText == "1899-12-29T06:00:00.000")
        #expect(OLEDateTime(isoText: "1899-12-29T06:00:00.000")?.value == -1.25)
        #expect(OLEDateTime(42173.333333333336).isoText == "2015-06-18T08:00:00.000")
        #expect(OLEDateTime(isoText: "2015-06-18T08:00:00.000")?.value.bitPattern == 0x40E4_97AA_AAAA_AAAB)
        #expect(OLEDateTime(isoText: "2024-02-29T13:45:30.123")?.value.bitPattern == 0x40E6_24F2_5830_7F24)
        #expect(OLEDateTime(isoText: "0001-01-01T00:00:00.000")?.value == -693593)
        #expect(OLEDateTime(isoText: "0001-01-01T00:00:00")?.value == -693593)
        #expect(OLEDateTime(-693593).isoText == "0001-01-01T00:00:00.000")
        #expect(OLEDateTime(-693594).isoText == nil)
        #expect(OLEDateTime(isoText: "0100-01-01T12:00:00.000")?.value == -657434.5)
        #expect(OLEDateTime(-657434.5).isoText == "0100-01-01T12:00:00.000")
        #expect(OLEDateTime(0).isoText == "1899-12-30T00:00:00.000")
        #expect(OLEDateTime(.nan).isoText == nil)
        #expect(OLEDateTime(.infinity).isoText == nil)
        #expect(OLEDateTime(isoText: "2023-02-29T00:00:00.000") == nil)
        #expect(OLEDateTime(isoText: "2023-01-01 00:00:00") == nil)
        for text in ["1899-12-29T06:00:00.000", "1899-12-30T23:59:59.999", "1000-06-15T12:30:00.500", "9999-12-31T23:59:59.999",
                     "2024-02-29T13:45:30.123", "0001-01-01T00:00:00.000", "0001-01-01T23:59:59.999", "0099-12-31T12:00:00.000"] {
            #expect(OLEDateTime(isoText: text)?.isoText == text)
        }
    }

    @Test func currencyTextConversions() {
        #expect(Currency(scaled: 25000).description == "2.5")
        #expect(Currency(scaled: -1).description == "-0.0001")
        #expect(Currency(scaled: 30000).description == "3")
        #expect(Currency(scaled: .max).description == "922337203685477.5807")
        #expect(Currency(scaled: .min).description == "-922337203685477.5808")
        #expect(Currency("2.5")?.scaled == 25000)
        #expect(Currency("-0.0001")?.scaled == -1)
        #expect(Currency("0.00001") == nil)
        #expect(Currency("922337203685477.5808") == nil)
        for scaled: Int64 in [0, 1, -1, 25000, -1050, .max, .min, 123_456_789] {
            #expect(Currency(Currency(scaled: scaled).description)?.scaled == scaled)
        }
    }

    @Test func decimalTextConversions() throws {
        #expect(Decimal96(low: 150, mid: 0, high: 0, flags: 2 << 16).description == "1.50")
        #expect(Decimal96(low: 1, mid: 0, high: 0, flags: 0x8003_0000).description == "-0.001")
        #expect(Decimal96(low: 0x0FFF_FFFF, mid: 0x3E25_0261, high: 0x204F_CE5E, flags: 0).description == String(repeating: "9", count: 28))
        #expect(Decimal96("1.50") == Decimal96(low: 150, mid: 0, high: 0, flags: 0x0002_0000))
        #expect(Decimal96("-0.001") == Decimal96(low: 1, mid: 0, high: 0, flags: 0x8003_0000))
        #expect(Decimal96("79228162514264337593543950335") == Decimal96(low: .max, mid: .max, high: .max, flags: 0))
        #expect(Decimal96("79228162514264337593543950336") == nil)
        #expect(Decimal96("1e5") == nil)
        for text in ["0", "1.50", "-0.001", "201403", "0.0000000000000000000000000001", "-79228162514264337593543950335",
                     String(repeating: "9", count: 28), "0." + String(repeating: "9", count: 28)] {
            #expect(Decimal96(text)?.description == text)
        }
    }
}
