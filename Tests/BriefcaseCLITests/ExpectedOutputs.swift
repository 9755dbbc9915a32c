import Foundation
import JSONCore
import BriefcaseKit
import BriefcaseTestSupport

/// What the command line must print for a fixture, derived from its expected JSON document
/// (`Fixtures/expected/NAME.json`, checked once against sources independent of the code:
/// `Fixtures/README.md`) rather than from another run of the tool.
enum ExpectedOutputs {
    static func document(_ fixture: String) throws -> JSONValue {
        try JSONParser.parse(try ExpectedFiles.json(of: fixture))
    }

    /// The document's elements in `order` (indices into its `elements`): the document a folder
    /// gives back, whose table files come sorted by file name (Spec/folder-briefcase.md §2.4).
    static func elements(_ fixture: String, order: [Int]) throws -> [JSONValue] {
        let elements = try document(fixture)["elements"]?.arrayValue ?? []
        return order.map { elements[$0] }
    }

    /// The rows of `table` as `cat --original` prints them: one object per row, keyed by the field
    /// names, each value in the document's form.
    static func catRows(_ fixture: String, table: String) throws -> [JSONValue] {
        let elements = try document(fixture)["elements"]?.arrayValue ?? []
        guard let dataset = elements.first(where: { $0["kind"] == "table" && $0["name"]?.stringValue == table }) else {
            throw BriefcaseError(.invalidData, "\(fixture) has no table \(table)")
        }
        let names = (dataset["fields"]?.arrayValue ?? []).map { $0["name"]?.stringValue ?? "?" }
        return (dataset["rows"]?.arrayValue ?? []).map { row in
            .object(JSONObject(zip(names, row.arrayValue ?? []).map { (key: $0, value: $1) }))
        }
    }

    /// `cat`'s JSON lines, parsed.
    static func lines(_ stdout: [UInt8]) throws -> [JSONValue] {
        try stdout.split(separator: UInt8(ascii: "\n")).map { try JSONParser.parse(Array($0)) }
    }

    /// The facts `info --json` must give: format, encoding, properties, and per table (grouped
    /// by name, in the order of their first element) its rows, fields and pending changes.
    static func infoFacts(_ fixture: String) throws -> [String] {
        let document = try document(fixture)
        var facts = ["format \(document["container"]?.stringValue ?? "?")", "encoding \(document["encoding"]?.stringValue ?? "?")",
                     "properties \((document["properties"] ?? .array([])).serialized().text)"]
        var names: [String] = [], tables: [String: (rows: Int?, fields: JSONValue?, changes: Int?)] = [:]
        for element in document["elements"]?.arrayValue ?? [] {
            let name = element["name"]?.stringValue ?? "?"
            if tables[name] == nil { names.append(name); tables[name] = (nil, nil, nil) }
            if element["kind"] == "table" {
                tables[name]!.rows = element["rows"]?.arrayValue?.count
                tables[name]!.fields = element["fields"]
            } else {
                tables[name]!.changes = element["changes"]?.arrayValue?.count
            }
        }
        for name in names {
            let table = tables[name]!
            facts.append("table \(name): rows \(table.rows.map(String.init) ?? "-"), fields \(table.fields?.serialized().text ?? "-"), "
                + "changes \(table.changes.map(String.init) ?? "-")")
        }
        return facts
    }

    /// The same facts read from `info --json`'s output.
    static func infoFacts(ofInfo stdout: [UInt8]) throws -> [String] {
        let info = try JSONParser.parse(stdout)
        var facts = ["format \(info["format"]?.stringValue ?? "?")", "encoding \(info["encoding"]?.stringValue ?? "?")",
                     "properties \((info["properties"] ?? .null).serialized().text)"]
        for table in info["tables"]?.arrayValue ?? [] {
            let dataset = table["dataset"]?.boolValue == true
            let changes = table["delta"]?["changes"]?.int64Value.map { String($0) } ?? "-"
            facts.append("table \(table["name"]?.stringValue ?? "?"): rows \(dataset ? table["rows"]?.int64Value.map { String($0) } ?? "?" : "-"), "
                + "fields \(dataset ? table["fields"]?.serialized().text ?? "?" : "-"), changes \(changes)")
        }
        return facts
    }
}

private extension [UInt8] {
    var text: String { String(decoding: self, as: UTF8.self) }
}
