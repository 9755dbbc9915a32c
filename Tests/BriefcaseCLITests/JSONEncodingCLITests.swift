import Foundation
import Testing

/// Issue 11, item 8 (Spec/robustness.md §8.8), found by `RoundTripPropertyTests`: `convert`
/// reads a JSON document in the code page the document names, not one guessed from its bytes.
struct JSONEncodingCLITests {
    /// A JSON document is read in the code page it names, and written back in it: json → json
    /// and json → snapshot → json give the same text. Before, the code page was guessed from the
    /// bytes (GBK names without a schema: windows-1252, shown as mojibake; a `utf-8` document
    /// with one non-UTF-8 string: windows-1252).
    @Test func aJSONDocumentIsWrittenBackInTheEncodingItNames() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let documents = [
            ("gbk", #"{"kind": "table", "name": "客户", "schema": null, "schemaEnd": "zero", "fields": [{"name": "名称", "type": "datString", "size": 0}], "rows": [["中文"]]}"#,
             [#""name": "客户""#, #"{"name": "名称", "type": "datString", "size": 0}"#, #"["中文"]"#]),
            ("utf-8", #"{"kind": "table", "name": "T", "schema": null, "schemaEnd": "zero", "fields": [{"name": "S", "type": "datString", "size": 0}], "rows": [["é"], [{"bytes": "/w=="}]]}"#,
             [#"["é"]"#, #"[{"bytes": "/w=="}]"#]),
        ]
        for (encoding, element, texts) in documents {
            let input = dir.appendingPathComponent("\(encoding).json").path
            let document = #"{"format": "briefcase-json", "version": 1, "container": "dabriefcase", "encoding": "\#(encoding)", "elements": [\#(element)]}"#
            try Data(document.utf8).write(to: URL(fileURLWithPath: input))
            for route in [["out.json"], ["out.snapshot.json", "out.json"]] {
                var from = input
                for (i, name) in route.enumerated() {
                    let to = dir.appendingPathComponent("\(encoding)-\(route.count)-\(i)-" + name).path
                    let result = try CLITests.run(["convert", from, to])
                    #expect(result.status == 0 && result.stderr.isEmpty, "\(encoding) → \(name): \(result.stderr)")
                    from = to
                }
                let back = String(decoding: FileManager.default.contents(atPath: from) ?? Data(), as: UTF8.self)
                #expect(back.contains(#""encoding": "\#(encoding)","#), "\(encoding) through \(route): \(back)")
                for text in texts { #expect(back.contains(text), "\(encoding) through \(route): \(text) in \(back)") }
            }
        }
    }
}
