import Foundation
import Testing
import BriefcaseTestSupport

/// Issue 11, item 7: what cannot be stored as given is refused (exit 1, one line naming where),
/// never changed silently: a snapshot value of the wrong type for its column, a field id that no
/// column has, a list operation on a column, a float beyond its column's range, and a JSON key
/// given twice. Item 12: each such error carries the byte offset of what is wrong, found here by
/// searching the edited text (not by the tool's own locator).
struct RefusalCLITests {
    /// A document made from a fixture, edited, and what `convert` and `validate` say of it.
    struct Edited {
        let text: String
        let path: String
        let directory: URL

        /// The byte offset of the `occurrence`-th (1-based) `marker` in the text.
        func offset(of marker: String, occurrence: Int = 1) -> Int {
            let bytes = Array(text.utf8), needle = Array(marker.utf8)
            var found = 0
            for start in 0...(bytes.count - needle.count) where Array(bytes[start..<(start + needle.count)]) == needle {
                found += 1
                if found == occurrence { return start }
            }
            Issue.record("\(marker) occurs fewer than \(occurrence) times")
            return -1
        }

        /// Runs `convert` to each of `outputs` and `validate`: each exits 1 with one line holding
        /// every one of `expected`, and leaves no output.
        func expectRefused(_ expected: [String], outputs: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
            for output in outputs {
                let target = directory.appendingPathComponent(output).path
                let result = try CLITests.run(["convert", path, target, "--quiet"])
                #expect(result.status == 1, "→ \(output): \(result.stderr)", sourceLocation: sourceLocation)
                #expect(result.stderr.split(separator: "\n").count == 1, "→ \(output): \(result.stderr)", sourceLocation: sourceLocation)
                for part in expected {
                    #expect(result.stderr.contains(part), "→ \(output): \(result.stderr) lacks \(part)", sourceLocation: sourceLocation)
                }
                #expect(!FileManager.default.fileExists(atPath: target), "→ \(output) was written", sourceLocation: sourceLocation)
            }
            let validate = try CLITests.run(["validate", path])
            #expect(validate.status == 1, "validate: \(validate.stderr)", sourceLocation: sourceLocation)
            for part in expected {
                #expect(validate.stderr.contains(part), "validate: \(validate.stderr) lacks \(part)", sourceLocation: sourceLocation)
            }
        }
    }

    /// `fixture` converted to `format` (a file named `name`), with `edit` applied to its text.
    static func edited(_ fixture: String, to name: String, in directory: URL, _ edit: (String) -> String) throws -> Edited {
        let original = directory.appendingPathComponent("original-" + name).path
        let made = try CLITests.run(["convert", CLITests.fixtures.appendingPathComponent(fixture).path, original, "--quiet"])
        #expect(made.status == 0, "\(made.stderr)")
        let text = try String(contentsOfFile: original, encoding: .utf8)
        let changed = edit(text)
        #expect(changed != text, "the edit changed nothing")
        let path = directory.appendingPathComponent(name).path
        try changed.write(toFile: path, atomically: true, encoding: .utf8)
        return Edited(text: changed, path: path, directory: directory)
    }

    static func replacing(_ old: String, with new: String) -> (String) -> String {
        { $0.replacingOccurrences(of: old, with: new) }
    }

    static let outputs = ["out.daBriefcase", "out.json", "out.briefcase"]

    @Test func snapshotValuesOfTheWrongTypeAreRefusedNamingTableRecordAndField() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A stored row: "three" in the datInteger column ID of record "3".
        let row = try Self.edited("nulls.daBriefcase", to: "row.snapshot.json", in: dir,
                                  Self.replacing(#""ID":{"I":"3"},"Name":"last""#, with: #""ID":"three","Name":"last""#))
        try row.expectRefused([#"table "Mixed", record "3", field "ID""#, "datInteger",
                               "offset \(row.offset(of: #""three""#)):"], outputs: Self.outputs)
        // A pending update: a string for the datCurrency column Amount.
        let update = try Self.edited("orders.bin2", to: "update.snapshot.json", in: dir,
                                     Self.replacing(#""Amount":["P",8.0]"#, with: #""Amount":["P","eight"]"#))
        try update.expectRefused([#"table "Orders", record "2", field "Amount""#, "datCurrency",
                                  "offset \(update.offset(of: #"["P","eight"]"#)):"], outputs: Self.outputs)
        // A pending insert: a string for the same column.
        let insert = try Self.edited("orders.bin2", to: "insert.snapshot.json", in: dir,
                                     Self.replacing(#""Amount":5.0}]"#, with: #""Amount":"five"}]"#))
        try insert.expectRefused([#"table "Orders", record "4", field "Amount""#, "offset \(insert.offset(of: #""five""#)):"],
                                 outputs: Self.outputs)
    }

    @Test func snapshotFieldsNoColumnHasAndListOperationsAreRefused() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let renamed = try Self.edited("nulls.daBriefcase", to: "renamed.snapshot.json", in: dir,
                                      Self.replacing(#""ID":{"I":"3"},"Name":"last""#, with: #""ID":{"I":"3"},"Nam":"last""#))
        try renamed.expectRefused([#"table "Mixed", record "3", field "Nam""#, "no column",
                                   "offset \(renamed.offset(of: #""last""#)):"], outputs: Self.outputs)
        let extra = try Self.edited("orders.bin2", to: "extra.snapshot.json", in: dir,
                                    Self.replacing(#""Amount":["P",8.0]"#, with: #""Amount":["P",8.0],"Note":["P","x"]"#))
        try extra.expectRefused([#"table "Orders", record "2", field "Note""#, "no column"], outputs: Self.outputs)
        let list = try Self.edited("orders.bin2", to: "list.snapshot.json", in: dir,
                                   Self.replacing(#""Shipped":["P",{"T":"1678860000000"}]"#, with: #""Shipped":["LC"]"#))
        try list.expectRefused([#"table "Orders", record "2", field "Shipped""#, "list operation LC"], outputs: Self.outputs)
    }

    @Test func floatsBeyondTheirColumnAreRefused() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // 1e39 is a double, but beyond a datSingleFloat (±3.4e38).
        let single = try Self.edited("all-types.daBriefcase", to: "single.snapshot.json", in: dir,
                                     Self.replacing(#""SingleFloat":-0.0"#, with: #""SingleFloat":1e39"#))
        try single.expectRefused(["field \"SingleFloat\"", "datSingleFloat", "offset \(single.offset(of: "1e39")):"],
                                 outputs: Self.outputs)
        // In the JSON document, through the streaming reader (→ dabriefcase) and the tree reader.
        let double = try Self.edited("all-types.daBriefcase", to: "double.json", in: dir,
                                     Self.replacing(#""2024-02-29T13:45:30.123", -0.0,"#, with: #""2024-02-29T13:45:30.123", 1e400,"#))
        try double.expectRefused(["$.elements[0].rows[3][2]", "1e400 is beyond the range of a 64-bit float",
                                  "offset \(double.offset(of: "1e400")):"], outputs: Self.outputs + ["out.snapshot.json"])
        let float = try Self.edited("all-types.daBriefcase", to: "float.json", in: dir,
                                    Self.replacing(#""1.50", -0.0,"#, with: #""1.50", 1e39,"#))
        try float.expectRefused(["$.elements[0].rows[3][22]", "1e39 is beyond the range of a 32-bit float",
                                 "offset \(float.offset(of: "1e39")):"], outputs: Self.outputs + ["out.snapshot.json"])
    }

    @Test func aKeyGivenTwiceIsRefusedWithThePathAndOffsetOfTheSecond() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let rows = try Self.edited("nulls.daBriefcase", to: "rows.json", in: dir,
                                   Self.replacing(#""rows": ["#, with: #""rows": [], "rows": ["#))
        try rows.expectRefused(["$.elements[0].rows", #"duplicate key "rows""#, "offset \(rows.offset(of: #""rows""#, occurrence: 2)):"],
                               outputs: Self.outputs + ["out.snapshot.json"])
        // At the top of the document, where the streaming reader reads the keys itself.
        let top = try Self.edited("nulls.daBriefcase", to: "top.json", in: dir,
                                  Self.replacing(#""encoding": "utf-8","#, with: #""encoding": "utf-8", "encoding": "gbk","#))
        try top.expectRefused(["$.encoding", "offset \(top.offset(of: #""encoding""#, occurrence: 2)):"], outputs: Self.outputs)
        // Inside a row value object, and in a snapshot document.
        let snapshot = try Self.edited("nulls.daBriefcase", to: "dup.snapshot.json", in: dir,
                                       Self.replacing(#""Name":"last""#, with: #""Name":"last","Name":"first""#))
        let second = snapshot.offset(of: #""Name":"last","Name""#) + #""Name":"last","#.utf8.count
        try snapshot.expectRefused(["$.rows[2].data.Name", "offset \(second):"], outputs: Self.outputs)
    }
}
