import Foundation
import Testing

/// Nothing from a file reaches a terminal as control characters (Spec/robustness.md §9): every
/// text for people escapes C0/C1 controls, DEL and the bidirectional controls; JSON escapes them
/// as JSON does. Expected texts are written by hand from the documented form.
struct TerminalSafetyCLITests {
    /// A table name, a field name, a property and values holding ESC [31m (recolour), ESC [2J
    /// (clear), U+202E (right-to-left override), U+0085 and U+009B (C1), DEL and line breaks.
    static let hostile = #"""
        {"format": "briefcase-json", "version": 1, "container": "dabriefcase", "encoding": "utf-8",
         "properties": [["P\u001b[31m", "v\u202el\nx"]],
         "elements": [
          {"kind": "table", "name": "T\u001b[31m\u202e\u0085\u007f\nZ", "schema": null, "schemaEnd": "zero",
           "fields": [{"name": "F\u001b[2J", "type": "datWideString", "size": 40}, {"name": "N", "type": "datString", "size": 10}],
           "rows": [["v\u001b[31m\u202e\u0085\u007f\n", "n\u009b2J"]]}
         ]}
        """#
    /// The table's name as the file holds it.
    static let tableName = "T\u{1B}[31m\u{202E}\u{85}\u{7F}\nZ"

    /// `hostile` written to `name` in a fresh directory.
    static func hostileFile(_ name: String = "hostile.json", text: String = hostile) throws -> (dir: URL, path: String) {
        let dir = try CLITests.temporaryDirectory()
        let path = dir.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return (dir, path)
    }

    @Test func infoShowsNamesPropertiesAndValuesEscaped() throws {
        let (dir, path) = try Self.hostileFile()
        defer { try? FileManager.default.removeItem(at: dir) }
        let info = try CLITests.run(["info", path])
        #expect(info.status == 0)
        #expect(info.text == #"""
            format: json
            encoding: utf-8
            properties: 1
              P\x1B[31m = v\u{202E}l\nx
            tables: 1
              T\x1B[31m\u{202E}\u{85}\x7F\nZ: 1 rows, 2 fields
                F\x1B[2J  datWideString(40)
                N  datString(10)

            """#)
        // info --json stays JSON: the same text, escaped as JSON escapes it.
        let json = try CLITests.run(["info", path, "--json"])
        #expect(json.text.contains(#""properties": [["P\u001b[31m", "v\u202el\nx"]]"#))
        #expect(json.text.contains(#"{"name": "T\u001b[31m\u202e\u0085\u007f\nZ", "dataset": true"#))
    }

    /// A finding line and a summary line name the path and the element: both escaped. (Two tables
    /// of the same name are a finding that names the element.)
    @Test func validateFindingsAndSummariesAreEscaped() throws {
        let twice = #"""
            {"format": "briefcase-json", "version": 1, "container": "dabriefcase", "encoding": "utf-8",
             "elements": [
              {"kind": "table", "name": "T\u001b[31m\u202e", "schema": null, "schemaEnd": "zero", "fields": [{"name": "F", "type": "datString", "size": 4}], "rows": []},
              {"kind": "table", "name": "T\u001b[31m\u202e", "schema": null, "schemaEnd": "zero", "fields": [{"name": "F", "type": "datString", "size": 4}], "rows": []}
             ]}
            """#
        // The file's name sets the terminal's title (OSC 0) if printed as it is.
        let (dir, path) = try Self.hostileFile("d\u{1B}]0;owned\u{7}.json", text: twice)
        defer { try? FileManager.default.removeItem(at: dir) }
        let shown = dir.path + #"/d\x1B]0;owned\x07.json"#
        let result = try CLITests.run(["validate", path])
        #expect(result.status == 1)
        #expect(result.text == shown + ": INVALID json, 1 error, 0 warnings\n")
        #expect(result.stderr == shown + #": element 'T\x1B[31m\u{202E}': error: a second table named 'T\x1B[31m\u{202E}': "#
            + #"'T\x1B[31m\u{202E}' has the same name ignoring case, and Data Abstract keeps only one table per name"# + "\n")
        // A path that cannot be read: the summary line too.
        let missing = dir.appendingPathComponent("m\u{9B}2J.json").path
        let unread = try CLITests.run(["validate", missing])
        #expect(unread.status == 2)
        #expect(unread.text == dir.path + #"/m\u{9B}2J.json: not checked: no such file or folder"# + "\n")
        #expect(unread.stderr == "briefcase: " + dir.path + #"/m\u{9B}2J.json: no such file or folder"# + "\n")
    }

    @Test func errorMessagesAreEscaped() throws {
        let (dir, path) = try Self.hostileFile()
        defer { try? FileManager.default.removeItem(at: dir) }
        // The names of the tables come from the file; the message is one line.
        let cat = try CLITests.run(["cat", path, "--table", "nope\u{202E}"])
        #expect(cat.status == 2)
        #expect(cat.stderr == "briefcase: " + path + #": no table named 'nope\u{202E}' (tables: T\x1B[31m\u{202E}\u{85}\x7F\nZ)"# + "\n")
        // A BriefcaseError naming a file.
        let missing = try CLITests.run(["info", dir.appendingPathComponent("gone\u{1B}[2J.json").path])
        #expect(missing.status == 2)
        #expect(missing.stderr == "briefcase: " + dir.path + #"/gone\x1B[2J.json: no such file"# + "\n")
        // argument-parser's usage text echoes what it was given: its lines stay, the rest is escaped.
        let usage = try CLITests.run(["info", path, "--bad\u{1B}[31m\u{202E}"])
        #expect(usage.status == 2)
        #expect(usage.stderr.hasPrefix(#"briefcase: Error: Unknown option '--bad\x1B[31m\u{202E}'"# + "\n"))
        #expect(!usage.stderr.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E })
    }

    /// JSON Lines and the JSON document escape what JSON requires and also DEL, C1 and the
    /// bidirectional controls, so that `cat x.jsonl` on a terminal is safe too; the text reads back the same.
    @Test func jsonEscapesDeleteC1AndBidirectionalControls() throws {
        let (dir, path) = try Self.hostileFile()
        defer { try? FileManager.default.removeItem(at: dir) }
        let jsonl = try CLITests.run(["cat", path, "--table", Self.tableName])
        #expect(jsonl.status == 0)
        #expect(jsonl.text == #"{"F\u001b[2J": "v\u001b[31m\u202e\u0085\u007f\n", "N": "n\u009b2J"}"# + "\n")
        // Through a binary briefcase: wide strings (UTF-16) and 8-bit strings have writers of their own.
        let binary = dir.appendingPathComponent("h.daBriefcase").path
        #expect(try CLITests.run(["convert", path, binary]).status == 0)
        let document = try CLITests.run(["convert", binary, "-", "--to", "json"])
        #expect(document.text.contains(#"["v\u001b[31m\u202e\u0085\u007f\n", "n\u009b2J"]"#))
        #expect(document.text.contains(#""name": "T\u001b[31m\u202e\u0085\u007f\nZ""#))
        #expect(try CLITests.run(["cat", binary, "--table", Self.tableName]).text == jsonl.text)
        // The JSON document reads back to the same briefcase, byte for byte.
        let json = dir.appendingPathComponent("h.json").path, again = dir.appendingPathComponent("again.daBriefcase").path
        #expect(try CLITests.run(["convert", binary, json]).status == 0)
        #expect(try CLITests.run(["convert", json, again]).status == 0)
        #expect(FileManager.default.contents(atPath: again) == FileManager.default.contents(atPath: binary))
    }

    /// CSV is data: cells as they are. `--csv-formula-safe` puts ' before a cell a spreadsheet
    /// would run as a formula, and leaves numbers alone.
    @Test func csvCellsAreWrittenAsTheyAreUnlessFormulaSafeIsAsked() throws {
        let cells = #"""
            {"format": "briefcase-json", "version": 1, "container": "dabriefcase", "encoding": "utf-8",
             "elements": [
              {"kind": "table", "name": "C", "schema": null, "schemaEnd": "zero",
               "fields": [{"name": "=Name", "type": "datString", "size": 20}, {"name": "Qty", "type": "datInteger", "size": 0}],
               "rows": [["=HYPERLINK(\"x\")", -5], ["+A1", 2], ["-2", 3], ["@SUM(A1)", 4], ["\tx", 5], ["\rx", 6], ["plain", 7], ["a=b", null]]}
             ]}
            """#
        let (dir, path) = try Self.hostileFile("cells.json", text: cells)
        defer { try? FileManager.default.removeItem(at: dir) }
        let asIs = try CLITests.run(["cat", path, "--table", "C", "--format", "csv"])
        #expect(asIs.status == 0)
        #expect(asIs.text == "=Name,Qty\r\n\"=HYPERLINK(\"\"x\"\")\",-5\r\n+A1,2\r\n-2,3\r\n@SUM(A1),4\r\n\tx,5\r\n\"\rx\",6\r\nplain,7\r\na=b,\r\n")
        let safe = try CLITests.run(["cat", path, "--table", "C", "--format", "csv", "--csv-formula-safe"])
        #expect(safe.status == 0)
        #expect(safe.text == "'=Name,Qty\r\n\"'=HYPERLINK(\"\"x\"\")\",-5\r\n'+A1,2\r\n'-2,3\r\n'@SUM(A1),4\r\n'\tx,5\r\n\"'\rx\",6\r\nplain,7\r\na=b,\r\n")
        // query: the same, for its own columns (a number stays a number, text that looks like one does not).
        let query = try CLITests.run(["query", path, "SELECT \"=Name\" AS '@n', Qty, '-1' AS t FROM C WHERE Qty IN (-5, 7)",
                                      "--format", "csv", "--csv-formula-safe"])
        #expect(query.text == "'@n,Qty,t\r\n\"'=HYPERLINK(\"\"x\"\")\",-5,'-1\r\nplain,7,'-1\r\n")
        // The flag means something only for CSV.
        for arguments in [["cat", path, "--table", "C", "--csv-formula-safe"], ["query", path, "SELECT 1", "--format", "table", "--csv-formula-safe"]] {
            let refused = try CLITests.run(arguments)
            #expect(refused.status == 2)
            #expect(refused.stderr.contains("--csv-formula-safe applies to --format csv only"))
        }
    }
}
