import Foundation
import Testing
import BriefcaseTestSupport

/// `convert x.json x.daBriefcase` (and bin2) goes through the streaming reader and writer:
/// same bytes for every kind of input and output, refusals named and leaving nothing behind.
struct JSONStreamingCLITests {
    @Test func jsonToBinaryGivesTheOriginalBytesInEveryWay() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["all-types.daBriefcase", "gbk.daBriefcase", "orders.bin2"] {
            let source = CLITests.fixtures.appendingPathComponent(name)
            let original = [UInt8](try Data(contentsOf: source))
            let ext = name.hasSuffix(".bin2") ? "bin2" : "daBriefcase"
            let json = dir.appendingPathComponent(name + ".json").path
            #expect(try CLITests.run(["convert", source.path, json]).status == 0)
            // A file, a gzip file, standard output, and standard input.
            let back = dir.appendingPathComponent(name + ".back." + ext).path
            #expect(try CLITests.run(["convert", json, back, "--quiet"]).status == 0)
            #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: back))) == original, "\(name) file")
            let gz = dir.appendingPathComponent(name + ".back." + ext + ".gz").path
            #expect(try CLITests.run(["convert", json, gz]).status == 0)
            let inflated = dir.appendingPathComponent(name + ".inflated." + ext).path
            #expect(try CLITests.run(["convert", gz, inflated, "--from", ext == "bin2" ? "bin2" : "dabriefcase"]).status == 0)
            #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: inflated))) == original, "\(name) gz")
            let stdout = try CLITests.run(["convert", json, "-", "--to", ext == "bin2" ? "bin2" : "dabriefcase"])
            #expect(stdout.status == 0)
            #expect(stdout.stdout == original, "\(name) stdout")
            let piped = try CLITests.run(["convert", "-", "-", "--from", "json", "--to", ext == "bin2" ? "bin2" : "dabriefcase"],
                                         stdin: [UInt8](try Data(contentsOf: URL(fileURLWithPath: json))))
            #expect(piped.stdout == original, "\(name) stdin")
        }
    }

    /// Properties after the elements: the output is started over, and is still the original.
    @Test func propertiesAfterElementsStillGiveTheOriginal() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = CLITests.fixtures.appendingPathComponent("all-types.daBriefcase")
        let json = dir.appendingPathComponent("x.json").path
        #expect(try CLITests.run(["convert", source.path, json]).status == 0)
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        #expect(object["properties"] != nil)
        // Rewritten with sorted keys: "elements" comes before "encoding", "format" and "properties".
        let properties = object.removeValue(forKey: "properties")!
        object["zzProperties"] = 0
        var text = String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        text = text.replacingOccurrences(of: "\"zzProperties\":0", with: "\"properties\":" + String(decoding: try JSONSerialization.data(withJSONObject: properties), as: UTF8.self))
        let reordered = dir.appendingPathComponent("reordered.json")
        try Data(text.utf8).write(to: reordered)
        let back = dir.appendingPathComponent("back.daBriefcase").path
        let result = try CLITests.run(["convert", reordered.path, back])
        #expect(result.status == 0, "\(result.stderr)")
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: back))) == [UInt8](try Data(contentsOf: source)))
        // The writer's layout with only "properties" moved to the end: the head is complete at
        // "elements", so they are written, then the output file is emptied and written again.
        let original = String(decoding: try Data(contentsOf: URL(fileURLWithPath: json)), as: UTF8.self)
        let start = try #require(original.range(of: "  \"properties\": ["))
        let end = try #require(original.range(of: "\n  ],\n", range: start.upperBound..<original.endIndex))
        let member = String(original[start.lowerBound..<end.lowerBound]) + "\n  ]"
        var moved = original
        moved.removeSubrange(start.lowerBound..<end.upperBound)
        #expect(moved.hasSuffix("\n  ]\n}\n"))
        moved = String(moved.dropLast(3)) + ",\n" + member + "\n}\n"
        let late = dir.appendingPathComponent("late.json")
        try Data(moved.utf8).write(to: late)
        let again = dir.appendingPathComponent("again.daBriefcase").path
        let restarted = try CLITests.run(["convert", late.path, again])
        #expect(restarted.status == 0, "\(restarted.stderr)")
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: again))) == [UInt8](try Data(contentsOf: source)))
    }

    /// A bad value in the last row: exit 1, one line naming the input and the JSON path, no output.
    @Test func aLateBadValueLeavesNothingBehind() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = #"{"format": "briefcase-json", "version": 1, "container": "dabriefcase", "encoding": "utf-8", "properties": [], "elements": [{"kind": "table", "name": "A", "schema": null, "schemaEnd": "zero", "fields": [{"name": "b", "type": "datByte", "size": 0}], "rows": [[1], [2]]}, {"kind": "table", "name": "B", "schema": null, "schemaEnd": "zero", "fields": [{"name": "b", "type": "datByte", "size": 0}], "rows": [[1], [300]]}]}"#
        let input = dir.appendingPathComponent("bad.json")
        try Data(text.utf8).write(to: input)
        let result = try CLITests.run(["convert", input.path, dir.appendingPathComponent("out.daBriefcase").path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("bad.json"))
        #expect(result.stderr.contains("$.elements[1].rows[1][0]"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["bad.json"])
    }
}
