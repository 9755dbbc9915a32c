import Foundation
import Testing
import BriefcaseTestSupport

/// Issue 11, item 12: messages say what was expected and what was found, and every error in a
/// JSON document carries its byte offset, by every route that reads one (`validate`, the
/// streaming reader behind → dabriefcase, the whole-document reader behind the other outputs).
/// Each case edits one value of a fixture's document; the expected offset is where the edit put
/// the offending text (found by searching the edited text), and the expected words are the
/// format's (Spec/json-format.md), written here by hand.
struct JSONMessageCLITests {
    struct Case: CustomStringConvertible {
        let fixture: String
        let old: String
        let new: String
        /// Words the one-line error must hold.
        let message: String
        /// The text whose first byte is the offending value, and how far into it the offset is.
        let at: String
        var shift = 0
        var description: String { "\(new) (\(message))" }
    }

    static let cases: [Case] = [
        Case(fixture: "nulls.daBriefcase", old: #""version": 1"#, new: #""version": "1""#,
             message: #"$.version: expected an integer, found a string ("1")"#, at: #""1""#),
        Case(fixture: "nulls.daBriefcase", old: #""container": "dabriefcase""#, new: #""container": "zip""#,
             message: "$.container: unknown container 'zip'", at: #""zip""#),
        Case(fixture: "nulls.daBriefcase", old: #""encoding": "utf-8""#, new: #""encoding": 8"#,
             message: "$.encoding: expected a string, found a number (8)", at: #": 8"#, shift: 2),
        Case(fixture: "nulls.daBriefcase", old: #""properties": []"#, new: #""properties": {}"#,
             message: "$.properties: expected an array, found an object", at: "{}"),
        Case(fixture: "nulls.daBriefcase", old: #""kind": "table", "name": "Mixed""#, new: #""kind": "chair", "name": "Mixed""#,
             message: "$.elements[0].kind: unknown element kind 'chair'", at: #""chair""#),
        Case(fixture: "nulls.daBriefcase", old: #""name": "Mixed""#, new: #""name": null"#,
             message: #"$.elements[0].name: expected a string or {"bytes": base64}, found null"#, at: "null"),
        Case(fixture: "nulls.daBriefcase", old: #""fieldPropertyCount": 6"#, new: #""fieldPropertyCount": -6"#,
             message: "$.elements[0].schema.fieldPropertyCount: must not be negative", at: "-6"),
        Case(fixture: "nulls.daBriefcase", old: #"{"name": "ID", "type": "datInteger""#, new: #"{"name": "ID", "type": "datNumber""#,
             message: "$.elements[0].fields[0].type: unknown data type 'datNumber'", at: #""datNumber""#),
        Case(fixture: "nulls.daBriefcase", old: #"[1, "none", 1.5]"#, new: #"[1, "none"]"#,
             message: "$.elements[0].rows[0]: expected 3 items, found 2", at: #"[1, "none"]"#),
        Case(fixture: "nulls.daBriefcase", old: #"[1, "none", 1.5]"#, new: #"[true, "none", 1.5]"#,
             message: "$.elements[0].rows[0][0]: expected an integer, found true", at: "true"),
        Case(fixture: "nulls.daBriefcase", old: #"[3, "last", null]"#, new: #"[3, 7, null]"#,
             message: #"$.elements[0].rows[2][1]: expected a string or {"utf16le": base64}, found a number (7)"#, at: "7, null", shift: 0),
        Case(fixture: "nulls.daBriefcase", old: #"[1, -2, "w", "a", 0.5, true, 7, -8, "9.9", "0.01"]"#,
             new: #"[1, -2, "w", "a", 0.5, true, 7, -8, 9.9, "0.01"]"#,
             message: #"$.elements[1].rows[0][8]: expected a decimal string or {"decimalBytes": base64}, found a number (9.9)"#, at: "9.9,"),
        Case(fixture: "nulls.daBriefcase", old: #"[1, -2, "w", "a", 0.5, true, 7, -8, "9.9", "0.01"]"#,
             new: #"[1, -2, "w", "a", 0.5, "yes", 7, -8, "9.9", "0.01"]"#,
             message: #"$.elements[1].rows[0][5]: expected true, false or {"byte": 0…255}, found a string ("yes")"#, at: #""yes""#),
        Case(fixture: "nulls.daBriefcase", old: #""schema": null, "schemaEnd": "zero","#, new: #""schema": null,"#,
             message: #"$.elements[1]: missing key "schemaEnd""#, at: #"{"kind": "table", "name": "Wide""#),
        Case(fixture: "nulls.daBriefcase", old: "[4, null, 4.5]", new: "[4, null, 4.5,]",
             message: "$.elements[0].rows[3]: not valid JSON: unexpected ']', expected a JSON value", at: "4.5,]", shift: 4),
        Case(fixture: "all-types.daBriefcase", old: #""2015-06-18T08:00:00.000""#, new: "45000",
             message: #"$.elements[0].rows[0][1]: expected "YYYY-MM-DDTHH:MM:SS.sss" or {"oleDate": number}, found a number (45000)"#,
             at: "45000"),
    ]

    static let outputs = ["out.daBriefcase", "out.json", "out.snapshot.json", "out.briefcase"]

    @Test(arguments: cases)
    func everyErrorSaysWhatWasFoundAndWhere(_ item: Case) throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = dir.appendingPathComponent("original.json").path
        #expect(try CLITests.run(["convert", CLITests.fixtures.appendingPathComponent(item.fixture).path, original, "--quiet"]).status == 0)
        let text = try String(contentsOfFile: original, encoding: .utf8)
        #expect(text.components(separatedBy: item.old).count == 2, "\(item.old) occurs once in the fixture's document")
        let edited = text.replacingOccurrences(of: item.old, with: item.new)
        let path = dir.appendingPathComponent("edited.json").path
        try edited.write(toFile: path, atomically: true, encoding: .utf8)
        let bytes = Array(edited.utf8), marker = Array(item.at.utf8)
        let start = try #require((0...(bytes.count - marker.count)).first { Array(bytes[$0..<($0 + marker.count)]) == marker })
        let expected = "offset \(start + item.shift): \(item.message)"

        let validate = try CLITests.run(["validate", path])
        #expect(validate.status == 1)
        #expect(validate.stderr.contains("\(path): offset \(start + item.shift): error: \(item.message)"), "validate: \(validate.stderr)")
        for output in Self.outputs {
            let result = try CLITests.run(["convert", path, dir.appendingPathComponent(output).path, "--quiet"])
            #expect(result.status == 1, "→ \(output)")
            #expect(result.stderr.hasPrefix("briefcase: \(path): \(expected)"), "→ \(output): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "→ \(output): one line")
        }
    }
}
