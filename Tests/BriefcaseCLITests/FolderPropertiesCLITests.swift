import Foundation
import Testing

/// Issue 11, item 8 (Spec/robustness.md §8.8), found while widening `RoundTripPropertyTests`:
/// a property name with a control character made a `Properties.plist` that every reader refuses
/// (XML 1.0 cannot carry the character). Every folder writer now refuses it before writing;
/// the other formats keep it. A value with one already travelled as `<data>`.
struct FolderPropertiesCLITests {
    static func document(_ properties: String) -> String {
        #"{"format": "briefcase-json", "version": 1, "container": "dabriefcase", "encoding": "utf-8", "properties": [\#(properties)], "#
            + #""elements": [{"kind": "table", "name": "T", "schema": null, "schemaEnd": "zero", "fields": [], "rows": [[]]}]}"#
    }

    @Test func aPropertyNameXMLCannotCarryIsRefusedByEveryFolderWriterAndKeptElsewhere() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.json").path
        try Data(Self.document(#"["ok", "1"], ["a\u0001b", "2"]"#).utf8).write(to: URL(fileURLWithPath: input))
        let single = dir.appendingPathComponent("in.daBriefcase").path
        #expect(try CLITests.run(["convert", input, single]).status == 0)

        // From a document (json) and element by element (a binary briefcase on disk).
        for source in [input, single] {
            let out = dir.appendingPathComponent("out.briefcase").path
            let result = try CLITests.run(["convert", source, out])
            #expect(result.status == 1, "\(source): \(result.stderr)")
            #expect(result.stderr == "briefcase: \(out): property name \"a\\u{01}b\" holds U+0001, which XML cannot carry: "
                    + "Properties.plist cannot store it (convert to dabriefcase or json instead)\n")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["in.daBriefcase", "in.json"], "no temporary folder left")

        // The single file and JSON keep the name.
        for (name, from) in [("back.json", single), ("again.json", input)] {
            let back = dir.appendingPathComponent(name).path
            #expect(try CLITests.run(["convert", from, back]).status == 0)
            let text = String(decoding: FileManager.default.contents(atPath: back) ?? Data(), as: UTF8.self)
            #expect(text.contains(#"["a\u0001b", "2"]"#), "\(name): \(text)")
        }
    }

    @Test func aPropertyValueXMLCannotCarryTravelsAsDataThroughAFolder() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.json").path, out = dir.appendingPathComponent("out.briefcase").path
        try Data(Self.document(#"["k", "v\u0002"]"#).utf8).write(to: URL(fileURLWithPath: input))
        #expect(try CLITests.run(["convert", input, out]).status == 0)
        let plist = String(decoding: FileManager.default.contents(atPath: out + "/Properties.plist") ?? Data(), as: UTF8.self)
        #expect(plist.contains("<key>k</key>\n\t<data>dgI=</data>"), "\(plist)") // base64 of 76 02
        let back = dir.appendingPathComponent("back.json").path
        #expect(try CLITests.run(["convert", out, back]).status == 0)
        let text = String(decoding: FileManager.default.contents(atPath: back) ?? Data(), as: UTF8.self)
        #expect(text.contains(#"["k", "v\u0002"]"#), "\(text)")
    }

    /// A property name whose bytes are not text in the code page (0xFF in UTF-8): a plist key is
    /// text, so writing it would change the name. Refused by the folder writers (it was written as
    /// "\u{FFFD}" and came back as EF BF BD); the single file keeps the byte.
    @Test func aPropertyNameThatIsNotTextIsRefusedByEveryFolderWriter() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.json").path
        try Data(Self.document(#"[{"bytes": "/w=="}, "1"]"#).utf8).write(to: URL(fileURLWithPath: input))
        let single = dir.appendingPathComponent("in.daBriefcase").path
        #expect(try CLITests.run(["convert", input, single]).status == 0)
        for source in [input, single] {
            let out = dir.appendingPathComponent("out.briefcase").path
            let result = try CLITests.run(["convert", source, out, "--encoding", "utf-8"])
            #expect(result.status == 1, "\(source): \(result.stderr)")
            #expect(result.stderr.contains("property name \"\u{FFFD}\" (bytes FF) is not text in utf-8"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
        let back = dir.appendingPathComponent("back.json").path
        #expect(try CLITests.run(["convert", single, back, "--encoding", "utf-8"]).status == 0)
        let text = String(decoding: FileManager.default.contents(atPath: back) ?? Data(), as: UTF8.self)
        #expect(text.contains(#"[{"bytes": "/w=="}, "1"]"#), "\(text)")
    }
}
