import Foundation
import Testing

/// Spec/robustness.md §8.6: replaying a pending delta is linear in its changes. Before, a table
/// without a key (changes matched on their old values) copied its lookup tables on every change:
/// 2 tables × 12 000 rows, each with a change, took over 30 s to export or print (debug build);
/// linear, about a second.
struct DeltaScalingTests {
    static let rowsPerTable = 12_000

    /// A JSON document: tables A and B (ID, Name; no key), `n` rows each, and a delta per table
    /// with one change per row: update (i % 3 == 0), delete (1), insert of record n + i (2).
    static func document(rows n: Int) -> String {
        var elements: [String] = []
        for table in ["A", "B"] {
            let rows = (0..<n).map { "[\($0), \"name \($0)\"]" }.joined(separator: ",")
            elements.append("""
            {"kind": "table", "name": "\(table)", "schema": null, "schemaEnd": "zero",
             "fields": [{"name": "ID", "type": "datInteger", "size": 0}, {"name": "Name", "type": "datWideString", "size": 50}],
             "rows": [\(rows)]}
            """)
            let changes = (0..<n).map { i -> String in
                switch i % 3 {
                case 0: return #"{"type": "update", "recordID": \#(i), "status": "pending", "message": "", "old": [\#(i), "name \#(i)"], "new": [\#(i), "renamed \#(i)"]}"#
                case 1: return #"{"type": "delete", "recordID": \#(i), "status": "pending", "message": "", "old": [\#(i), "name \#(i)"], "new": [null, null]}"#
                default: return #"{"type": "insert", "recordID": \#(n + i), "status": "pending", "message": "", "old": [null, null], "new": [\#(n + i), "new \#(i)"]}"#
                }
            }.joined(separator: ",")
            elements.append("""
            {"kind": "delta", "name": "\(table)", "loggedFields": [{"name": "ID", "type": "datInteger"}, {"name": "Name", "type": "datWideString"}],
             "keyFields": [], "reducedDelta": 0, "changes": [\(changes)]}
            """)
        }
        return #"{"format": "briefcase-json", "version": 1, "container": "dabriefcase", "encoding": "utf-8", "properties": [], "elements": ["# + elements.joined(separator: ",") + "]}"
    }

    @Test func aChangeOnEveryRowOfKeylessTablesExportsInLinearTime() throws {
        let dir = try CLITests.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let n = Self.rowsPerTable
        let json = dir.appendingPathComponent("in.json"), briefcase = dir.appendingPathComponent("in.daBriefcase")
        try Data(Self.document(rows: n).utf8).write(to: json)
        #expect(try CLITests.run(["convert", json.path, briefcase.path]).status == 0)

        let snapshot = dir.appendingPathComponent("out.snapshot.json")
        let start = Date()
        let export = try CLITests.run(["convert", briefcase.path, snapshot.path])
        let seconds = Date().timeIntervalSince(start)
        #expect(export.status == 0, "\(export.stderr)")
        #expect(seconds < 15, "→ snapshot took \(seconds) s")
        // Every change found its row (Spec/datastore-mapping.md): stored rows are records r0…,
        // each change one delta: update → U of r<i>, delete → D of r<i>, insert → I of c<record id>.
        let document = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: snapshot)) as? [String: Any])
        let records = try #require(document["rows"] as? [[String: Any]])
        let deltas = try #require(document["deltas"] as? [[String: Any]])
        #expect(records.count == 2 * n)
        #expect(deltas.count == 2 * n)
        for (k, delta) in deltas.enumerated() {
            let change = try #require((delta["changes"] as? [[Any]])?.first)
            let i = k % n, table = k < n ? "A" : "B"
            let expected = [["U", table, "r\(i)"], ["D", table, "r\(i)"], ["I", table, "c\(n + i)"]][i % 3]
            #expect(change.prefix(3).compactMap { $0 as? String } == expected, "delta \(k)")
            if change.prefix(3).compactMap({ $0 as? String }) != expected { break }
        }

        let catStart = Date()
        let cat = try CLITests.run(["cat", briefcase.path, "--table", "B"])
        let catSeconds = Date().timeIntervalSince(catStart)
        #expect(cat.status == 0)
        #expect(catSeconds < 15, "cat took \(catSeconds) s")
        let lines = cat.text.split(separator: "\n")
        #expect(lines.count == n) // n - deletes + inserts
        #expect(lines.first == #"{"ID": 0, "Name": "renamed 0"}"#)
        #expect(lines.last == #"{"ID": \#(2 * n - 1), "Name": "new \#(n - 1)"}"#)
    }
}
