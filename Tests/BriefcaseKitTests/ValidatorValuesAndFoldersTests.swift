import Foundation
import Testing
@testable import BriefcaseKit

/// `Validator` on values, names, models without bytes and folders (see `ValidatorTests`).
extension ValidatorTests {
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
