import Foundation
import BriefcaseKit
import JSONCore
import Testing

/// Issue 11 item 5 (Spec/robustness.md §8.5): a folder briefcase is written and read with a fixed
/// number of open files, whatever its number of tables: every command works under `ulimit -n 64`.
struct OpenFilesTests {
    static let limit = "ulimit -n 64"

    /// A JSON document (Spec/json-format.md) of `count` tables `T0000`, `T0001`… of one integer
    /// column and one row each (the row holds the table's number, or 0 with `zeros`).
    static func manyTablesJSON(_ count: Int, zeros: Bool = false) -> [UInt8] {
        var text = """
        {"format": "briefcase-json", "version": 1, "container": "dabriefcase", "encoding": "utf-8", "properties": [["Owner", "test"]],
         "elements": [
        """
        for i in 0..<count {
            let name = "T" + String(repeating: "0", count: 4 - String(i).count) + String(i)
            text += (i == 0 ? "" : ",\n") + """
            {"kind": "table", "name": "\(name)", "schema": null, "schemaEnd": "zero", "fields": [{"name": "ID", "type": "datInteger", "size": 0}], "rows": [[\(zeros ? 0 : i)]]}
            """
        }
        return Array((text + "\n]}\n").utf8)
    }

    @Test func jsonToFolderAndBackWithManyTables() throws {
        let dir = try CLITests.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let json = dir.appendingPathComponent("many.json").path
        try Data(Self.manyTablesJSON(1500)).write(to: URL(fileURLWithPath: json))
        let folder = dir.appendingPathComponent("many.briefcase").path

        let toFolder = try LimitedRun.run(Self.limit, ["convert", json, folder])
        #expect(toFolder.status == 0, "\(toFolder.stderr)")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        #expect(files.count == 1501, "1500 table files and Properties.plist")

        // Back to JSON: the same document (the table files' names, T0000…, sort as the tables came).
        let back = dir.appendingPathComponent("back.json").path
        let toJSON = try LimitedRun.run(Self.limit, ["convert", folder, back])
        #expect(toJSON.status == 0, "\(toJSON.stderr)")
        #expect(try JSONParser.parse(FileIO.read(back)) == JSONParser.parse(Self.manyTablesJSON(1500)))
    }

    @Test func aFolderOf3000TablesIsReadByEveryCommand() throws {
        let dir = try CLITests.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // One table file, copied 3000 times with its 5-byte name patched (same length: the
        // offsets stay valid); every table's row is [0].
        let one = dir.appendingPathComponent("one.json").path
        try Data(Self.manyTablesJSON(1)).write(to: URL(fileURLWithPath: one))
        let template = dir.appendingPathComponent("T0000.daBriefcase").path
        #expect(try CLITests.run(["convert", one, template]).status == 0)
        let bytes = try #require(FileManager.default.contents(atPath: template).map { Array($0) })
        let at = try #require((0...(bytes.count - 5)).first { Array(bytes[$0 ..< $0 + 5]) == Array("T0000".utf8) })
        let folder = dir.appendingPathComponent("big.briefcase").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        for i in 0..<3000 {
            let name = "T" + String(repeating: "0", count: 4 - String(i).count) + String(i)
            var copy = bytes
            copy.replaceSubrange(at ..< at + 5, with: Array(name.utf8))
            try Data(copy).write(to: URL(fileURLWithPath: folder + "/" + name + ".daBriefcase"))
        }

        let info = try LimitedRun.run(Self.limit, ["info", folder])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.text.contains("tables: 3000\n") && info.text.contains("  T2999: 1 rows, 1 fields\n"))
        let validate = try LimitedRun.run(Self.limit, ["validate", folder])
        #expect(validate.status == 0, "\(validate.stderr)")
        #expect(validate.text.contains("valid folder, 0 errors, 0 warnings"), "\(validate.text)")
        let cat = try LimitedRun.run(Self.limit, ["cat", folder, "--table", "T2999"])
        #expect(cat.status == 0, "\(cat.stderr)")
        #expect(cat.text == "{\"ID\": 0}\n")

        let json = dir.appendingPathComponent("big.json").path
        let toJSON = try LimitedRun.run(Self.limit, ["convert", folder, json])
        #expect(toJSON.status == 0, "\(toJSON.stderr)")
        #expect(FileManager.default.contents(atPath: json).map { Array($0) } == (try Self.jsonOf(3000, properties: false, through: dir)))
        let single = dir.appendingPathComponent("big.daBriefcase").path
        let toSingle = try LimitedRun.run(Self.limit, ["convert", folder, single])
        #expect(toSingle.status == 0, "\(toSingle.stderr)")
        let copy = dir.appendingPathComponent("copy.briefcase").path
        let toFolder = try LimitedRun.run(Self.limit, ["convert", folder, copy])
        #expect(toFolder.status == 0, "\(toFolder.stderr)")
    }

    /// What `convert` writes for the document of `count` tables (as the writer formats it),
    /// written without the limit.
    static func jsonOf(_ count: Int, properties: Bool, through dir: URL) throws -> [UInt8] {
        var text = String(decoding: manyTablesJSON(count, zeros: true), as: UTF8.self)
        if !properties { text = text.replacingOccurrences(of: "[[\"Owner\", \"test\"]]", with: "[]") }
        let path = dir.appendingPathComponent("expected-\(count).json").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return try CLITests.run(["convert", path, "-", "--to", "json"]).stdout
    }
}
