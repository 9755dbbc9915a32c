import Foundation
import Testing
@testable import BriefcaseKit

/// The Briefcase API: lazy tables, the cache, folder briefcases, writes.
struct BriefcaseTests {
    static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("briefcase-api-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Inputs: every valid fixture in DABRC600 form and both real samples when present.
    static var inputs: [(String, [UInt8])] {
        var result: [(String, [UInt8])] = []
        for name in TestPaths.validFixtureNames where name.hasSuffix(".daBriefcase") {
            if let bytes = try? TestPaths.fixture(name) { result.append((name, bytes)) }
        }
        for name in TestPaths.sampleNames { if let bytes = TestPaths.sample(name) { result.append((name, bytes)) } }
        return result
    }

    /// Tables keyed by lower-cased name with their dataset and delta, for order-free comparison.
    static func tables(_ file: BriefcaseFile) -> [String: [Element]] {
        var result: [String: [Element]] = [:]
        for element in file.stream.elements {
            result[String(decoding: element.name.bytes, as: UTF8.self), default: []].append(element)
        }
        return result
    }

    @Test func foldersKeepEveryPropertyRowAndDelta() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(!Self.inputs.isEmpty)
        for (name, bytes) in Self.inputs {
            let source = dir + "/" + name
            try Data(bytes).write(to: URL(fileURLWithPath: source))
            let original = try BriefcaseFileCodec.decode(bytes)

            let folder = dir + "/" + name + ".briefcase"
            let briefcase = try Briefcase.openFile(source)
            try briefcase.write(to: folder, as: .folder)
            #expect(briefcase.tableDecodeCount == 0, "\(name): unloaded tables are copied, not decoded")

            // Each table file is a valid DABRC600 file without properties.
            let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".daBriefcase") }
            #expect(files.count == Briefcase.Entry.group(original.stream.elements).count, "\(name)")
            for file in files {
                let table = try BriefcaseFileCodec.decode([UInt8](FileManager.default.contents(atPath: folder + "/" + file)!))
                #expect(table.properties.isEmpty)
                #expect(!table.stream.elements.isEmpty)
            }

            // Properties.plist is an XML plist whose strings are the properties' text.
            let plistBytes = try #require(FileManager.default.contents(atPath: folder + "/Properties.plist"))
            #expect(plistBytes.starts(with: Array("<?xml".utf8)))
            var format = PropertyListSerialization.PropertyListFormat.binary
            let plist = try #require(try PropertyListSerialization.propertyList(from: plistBytes, options: [], format: &format) as? [String: String])
            #expect(format == .xml)
            let codePage = CodePage.detect(in: original).codePage
            #expect(plist.count == original.properties.count)
            for property in original.properties {
                #expect(plist[codePage.decodeForDisplay(property.name)] == codePage.decodeForDisplay(property.value), "\(name)")
            }

            // And back: the same properties (bytes, in order), tables, rows and deltas.
            let back = try Briefcase.openFolder(folder).document().file
            #expect(back.properties == original.properties, "\(name)")
            #expect(Self.tables(back) == Self.tables(original), "\(name)")
        }
    }

    @Test func unsafeTableNamesStayInsideTheFolder() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let inner = dir + "/inner"
        try FileManager.default.createDirectory(atPath: inner, withIntermediateDirectories: true)
        let bytes = try TestPaths.fixture("unsafe-names.daBriefcase")
        let document = try BriefcaseDocument.decode(bytes, as: .dabriefcase, warnings: &Self.ignoredWarnings)
        let folder = inner + "/x.briefcase"
        try Briefcase.make(from: document, at: folder, kind: .folder, codePage: .utf8).write()

        // Nothing outside the folder: the parent holds only the folder, the folder only files.
        #expect(try FileManager.default.contentsOfDirectory(atPath: inner) == ["x.briefcase"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["inner"])
        let files = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(files.count == 7) // 6 tables + Properties.plist
        #expect(files.allSatisfy { !$0.hasPrefix(".") && !$0.contains("/") })
        #expect(Set(files.map { $0.lowercased() }).count == files.count, "distinct even on case-insensitive file systems")
        #expect(!files.contains { $0.uppercased().hasPrefix("CON.") })

        let back = try Briefcase.openFolder(folder)
        #expect(Set(back.tableNames) == ["../../escape", "a/b", ".hidden", "CON", "Orders", "orders"])
        #expect(Self.tables(try back.document().file) == Self.tables(document.file))
        let orders = try #require(try back.table(named: "Orders"))
        #expect(orders.delta?.changes.count == 1)
    }

    nonisolated(unsafe) static var ignoredWarnings: [DecodingWarning] = []

    @Test func tablesAreDecodedOnceAndCached() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/x.daBriefcase"
        try Data(try TestPaths.fixture("empty-delta.daBriefcase")).write(to: URL(fileURLWithPath: path))
        let briefcase = try Briefcase.openFile(path)
        #expect(briefcase.tableDecodeCount == 0, "opening decodes nothing")
        #expect(briefcase.tableNames == ["Orders", "Archive"])
        let first = try #require(try briefcase.table(named: "orders"))
        #expect(briefcase.tableDecodeCount == 1)
        let again = try #require(try briefcase.table(named: "ORDERS"))
        #expect(first == again)
        #expect(try briefcase.table(at: 0) == first)
        #expect(briefcase.tableDecodeCount == 1)
        briefcase.clearTablesCache()
        let reloaded = try briefcase.table(at: 0)
        #expect(briefcase.tableDecodeCount == 2)
        #expect(reloaded.dataset == first.dataset && reloaded.delta == first.delta)
        #expect(try briefcase.table(named: "nope") == nil)
    }

    /// Writing back gives the same bytes whether tables were loaded, unloaded, or the cache cleared.
    @Test func writesAreByteExactWithOrWithoutLoading() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (name, bytes) in Self.inputs {
            let path = dir + "/" + name
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let briefcase = try Briefcase.openFile(path)
            try briefcase.write(to: path + ".unloaded", as: .file)
            #expect(briefcase.tableDecodeCount == 0)
            #expect([UInt8](FileManager.default.contents(atPath: path + ".unloaded")!) == bytes, "\(name) unloaded")
            if briefcase.tableCount > 0 { _ = try briefcase.table(at: 0) }
            try briefcase.write(to: path + ".partly", as: .file)
            #expect([UInt8](FileManager.default.contents(atPath: path + ".partly")!) == bytes, "\(name) partly loaded")
            briefcase.clearTablesCache()
            try briefcase.write()
            #expect([UInt8](FileManager.default.contents(atPath: path + ".partly")!) == bytes, "\(name) after clearing")
            for i in 0..<briefcase.tableCount { _ = try briefcase.table(at: i) }
            try briefcase.write()
            #expect([UInt8](FileManager.default.contents(atPath: path + ".partly")!) == bytes, "\(name) all loaded")
        }
    }

    /// Opening a large briefcase and reading one small table does not read the large one.
    @Test func readingOneTableDoesNotReadTheOthers() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fields = [FieldDescriptor(name: "ID", type: .integer), FieldDescriptor(name: "Text", type: .wideString, size: 200)]
        let bigRows: [Row] = (0..<100_000).map { [.integer(Int64($0)), .wide("row \($0) of the big table")] }
        let big = Table(name: "Big", fields: fields, rows: bigRows)
        let small = Table(name: "Small", fields: fields, rows: [[.integer(1), .wide("one")]])
        let path = dir + "/big.daBriefcase"
        let bytes = try BriefcaseFileCodec.encode(BriefcaseFile(stream: Bin2Stream(elements: [.table(big), .table(small), .table(big)])))
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(bytes.count > 10_000_000)

        let briefcase = try Briefcase.openFile(path)
        let afterOpen = briefcase.bytesRead
        #expect(afterOpen < 70_000, "open reads the header and the index only (\(afterOpen) bytes)")
        let table = try #require(try briefcase.table(named: "small"))
        #expect(table.dataset?.rows.count == 1)
        #expect(briefcase.bytesRead - afterOpen < 200, "only the small table's bytes")
        let summaries = try briefcase.tableSummaries()
        #expect(summaries.map(\.rowCount) == [100_000, 1, 100_000])
        #expect(briefcase.bytesRead < 300_000, "summaries read element heads only (\(briefcase.bytesRead) bytes)")
    }

    @Test func addReplaceRemoveAndDelete() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let folder = dir + "/new.briefcase"
        let briefcase = Briefcase(newAt: folder, kind: .folder)
        let fields = [FieldDescriptor(name: "ID", type: .integer)]
        briefcase.addTable(BriefcaseTable(dataset: Table(name: "A", fields: fields, rows: [[.integer(1)]])))
        briefcase.addTable(BriefcaseTable(dataset: Table(name: "B", fields: fields, rows: [])))
        briefcase.addTable(BriefcaseTable(dataset: Table(name: "a", fields: fields, rows: [[.integer(2)]])))
        #expect(briefcase.tableNames == ["a", "B"], "a table with the same name replaces the old one")
        briefcase.setProperty("Version", "3")
        try briefcase.write()
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: folder + "/notes.txt"))

        let reopened = try Briefcase.open(folder)
        #expect(reopened.kind == .folder)
        #expect(reopened.property("Version") == "3")
        #expect(try reopened.table(named: "A")?.dataset?.rows == [[.integer(2)]])
        #expect(reopened.removeTable(named: "b"))
        #expect(!reopened.removeTable(named: "b"))
        try reopened.write()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["Properties.plist", "a.daBriefcase", "notes.txt"])
        reopened.removeAllTables()
        try reopened.write()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["Properties.plist", "notes.txt"])
        try reopened.delete()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["notes.txt"], "unknown files are left alone")

        let file = dir + "/one.daBriefcase"
        let single = Briefcase(newAt: file, kind: .file)
        single.addTable(BriefcaseTable(dataset: Table(name: "T", fields: fields, rows: [[.integer(7)]])))
        try single.write()
        #expect(try Briefcase.open(file).table(at: 0).dataset?.rows == [[.integer(7)]])
        try single.delete()
        #expect(!FileManager.default.fileExists(atPath: file))
        #expect(Briefcase.fileExtension == "daBriefcase" && Briefcase.folderExtension == "briefcase")
    }

    @Test func tableFileNames() {
        #expect(TableFileName.fileNames(for: ["Orders", "orders", "ORDERS"]) == ["Orders.daBriefcase", "orders~2.daBriefcase", "ORDERS~3.daBriefcase"])
        #expect(TableFileName.escape("../../x") == "%2E.%2F..%2Fx")
        #expect(TableFileName.escape("CON") == "%43ON")
        #expect(TableFileName.escape("nul.txt") == "%6Eul.txt")
        #expect(TableFileName.escape("课程") == "课程")
        #expect(TableFileName.escape("a\u{1}b") == "a%01b")
        #expect(TableFileName.escape(String(repeating: "x", count: 500)).utf8.count <= 200)
        #expect(TableFileName.escape(String(repeating: "x", count: 500)) != TableFileName.escape(String(repeating: "x", count: 501)))
    }
}

extension BriefcaseTests {
    /// The lazy path (pieces read from disk) is as robust as the whole-buffer decoder: every
    /// truncated prefix and every overwritten word either opens and reads, or throws a
    /// BriefcaseError — never a trap.
    @Test func lazyPathSurvivesDamage() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/x.daBriefcase"
        func exercise(_ bytes: [UInt8]) {
            _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
            do throws(BriefcaseError) {
                let briefcase = try Briefcase.openFile(path)
                _ = try briefcase.tableSummaries()
                _ = briefcase.tableNames
                for i in 0..<briefcase.tableCount { _ = try briefcase.table(at: i) }
            } catch {
                // Typed throws: anything thrown is a BriefcaseError. The point is that nothing traps.
                #expect(!error.message.isEmpty)
            }
        }
        for name in ["gbk.daBriefcase", "empty-delta.daBriefcase", "empty-table.daBriefcase"] {
            let bytes = try TestPaths.fixture(name)
            for length in 0..<bytes.count { exercise(Array(bytes[0..<length])) }
            for offset in 0..<(bytes.count - 3) {
                for value: Int32 in [0x7FFF_FFF0, -1] {
                    var damaged = bytes
                    withUnsafeBytes(of: value.littleEndian) { damaged.replaceSubrange(offset..<offset + 4, with: $0) }
                    exercise(damaged)
                }
            }
        }
    }
}

extension BriefcaseTests {
    /// Renaming a table only in case keeps its file (on case-insensitive file systems the new file
    /// *is* the old one), and a folder table file holding several tables is split, not duplicated.
    @Test func folderEdgeCases() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fields = [FieldDescriptor(name: "ID", type: .integer)]
        let folder = dir + "/f.briefcase"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // One table file holding two tables (another tool may write that).
        let two = try BriefcaseFileCodec.encode(BriefcaseFile(stream: Bin2Stream(elements: [
            .table(Table(name: "A", fields: fields, rows: [[.integer(1)]])),
            .table(Table(name: "B", fields: fields, rows: [[.integer(2)]])),
        ])))
        try Data(two).write(to: URL(fileURLWithPath: folder + "/A.daBriefcase"))
        let briefcase = try Briefcase.openFolder(folder)
        #expect(briefcase.tableNames == ["A", "B"])
        try briefcase.write()
        let again = try Briefcase.openFolder(folder)
        #expect(again.tableNames.sorted() == ["A", "B"], "no table twice")
        #expect(try again.table(named: "A")?.dataset?.rows == [[.integer(1)]])

        // Replace "a" by "A"-in-another-case: the file must survive the stale-file sweep.
        again.addTable(BriefcaseTable(dataset: Table(name: "a", fields: fields, rows: [[.integer(3)]])))
        try again.write()
        let third = try Briefcase.openFolder(folder)
        #expect(try third.table(named: "a")?.dataset?.rows == [[.integer(3)]])

        // A property with a control character survives as <data>; the plist stays valid XML.
        third.setProperty("Bell", "ding\u{7}")
        try third.write()
        let plist = try #require(FileManager.default.contents(atPath: folder + "/Properties.plist"))
        #expect(try PropertyListSerialization.propertyList(from: plist, options: [], format: nil) is [String: Any])
        #expect(try Briefcase.openFolder(folder).property("Bell") == "ding\u{7}")
    }

    /// After `delete()`, tables never loaded can still be written elsewhere.
    @Test func deleteThenWriteElsewhere() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/x.daBriefcase"
        let bytes = try TestPaths.fixture("gbk.daBriefcase")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let briefcase = try Briefcase.openFile(path)
        try briefcase.delete()
        #expect(!FileManager.default.fileExists(atPath: path))
        try briefcase.write(to: dir + "/y.daBriefcase", as: .file)
        #expect([UInt8](FileManager.default.contents(atPath: dir + "/y.daBriefcase")!) == bytes)
    }
}

extension BriefcaseTests {
    /// Properties.plist may be a binary property list (written by Apple's tools): it is read too.
    @Test func binaryPropertiesPlistIsRead() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let folder = dir + "/b.briefcase"
        let briefcase = Briefcase(newAt: folder, kind: .folder)
        briefcase.addTable(BriefcaseTable(dataset: Table(name: "T", fields: [FieldDescriptor(name: "ID", type: .integer)], rows: [])))
        try briefcase.write()
        let binary = try PropertyListSerialization.data(fromPropertyList: ["Version": "7", "Owner": "Zoë"], format: .binary, options: 0)
        #expect(binary.starts(with: Array("bplist".utf8)))
        try binary.write(to: URL(fileURLWithPath: folder + "/Properties.plist"))
        let reopened = try Briefcase.openFolder(folder)
        #expect(reopened.properties.map { $0.name.utf8String } == ["Owner", "Version"]) // sorted: binary plists have no order
        #expect(reopened.property("Owner") == "Zoë")
        #expect(reopened.property("Version") == "7")
    }
}
