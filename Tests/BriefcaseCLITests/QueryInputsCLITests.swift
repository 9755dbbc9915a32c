import Foundation
import Testing
import BriefcaseTestSupport

/// `briefcase query` over several inputs (Spec/sqlite-mapping.md §6): each a schema named after
/// its file's stem or by `--as`; expected rows written by hand from orders.bin2 (its current
/// rows: Alice 12.5, Bob 8, Dora 5) and its edited copies.
@Suite struct QueryInputsCLITests {
    static let orders = SamplePaths.fixtures.path + "/orders.bin2"

    /// orders.bin2 as an SQLite database and as a JSON document whose rows were edited (Alice's
    /// Amount 13, Bob gone), in a new directory.
    static func inputs() throws -> (dir: URL, sqlite: String, json: String) {
        let dir = try CLITests.temporaryDirectory()
        let sqlite = dir.appendingPathComponent("Shop.sqlite").path, json = dir.appendingPathComponent("2 remote.json").path
        #expect(try CLITests.run(["convert", orders, sqlite]).status == 0)
        let stored = try ApplyCLITests.storedOnly(in: dir)
        var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stored))) as? [String: Any])
        var elements = try #require(document["elements"] as? [[String: Any]])
        var rows = try #require(elements[0]["rows"] as? [[Any]])
        rows[0][2] = "13"
        rows.remove(at: 1)
        elements[0]["rows"] = rows
        document["elements"] = elements
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: json))
        return (dir, sqlite, json)
    }

    @Test func threeInputsOfThreeFormatsJoin() throws {
        let (dir, sqlite, json) = try Self.inputs()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try CLITests.run(["query", Self.orders, sqlite, json, """
            select o.ID, o.Customer, s.Amount as here, r.Amount as there
            from orders.Orders o join Shop.Orders s using (ID) left join _2_remote.Orders r using (ID) order by o.ID
            """, "--format", "csv"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.text == "ID,Customer,here,there\r\n1,Alice,12.5,13\r\n2,Bob,8,\r\n4,Dora 😀,5,\r\n")  // (CSV lines end in CRLF, RFC 4180)
        // Each input's mapping tables are its own.
        let counts = try CLITests.run(["query", Self.orders, json,
                                       "select (select count(*) from orders._briefcase_changes) as a, (select count(*) from _2_remote._briefcase_changes) as b"])
        #expect(counts.text == "{\"a\": 3, \"b\": 0}\n", "\(counts.stderr)")
    }

    @Test func namesComeFromStemsOrAs() throws {
        let (dir, sqlite, _) = try Self.inputs()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Two inputs of one stem: the second is orders_2, and a note says so.
        let twice = try CLITests.run(["query", Self.orders, Self.orders, "select name from pragma_database_list order by seq"])
        #expect(twice.text == "{\"name\": \"main\"}\n{\"name\": \"orders\"}\n{\"name\": \"orders_2\"}\n")
        #expect(twice.stderr.contains("\(Self.orders): schema orders_2 (orders is taken)"))
        // --as names one; with a single input its tables answer unqualified too.
        let named = try CLITests.run(["query", "--as", "shop=\(sqlite)", "select count(*) as n from shop.Orders, Orders"])
        #expect(named.text == "{\"n\": 9}\n", "\(named.stderr)")
        // Usage errors (exit 2): SQLite's own name, not an identifier, one name twice (without case).
        for arguments in [["--as", "main=\(sqlite)"], ["--as", "2x=\(sqlite)"], ["--as", "a=\(sqlite)", "--as", "A=\(sqlite)"]] {
            let refused = try CLITests.run(["query"] + arguments + ["select 1"])
            #expect(refused.status == 2 && refused.stderr.contains("--as"), "\(arguments): \(refused.stderr)")
        }
    }

    @Test func standardInputIsOneOfThem() throws {
        let (dir, _, json) = try Self.inputs()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try CLITests.run(["query", "-", Self.orders, "--from", "json", "select count(*) as n from stdin.Orders"],
                                   stdin: Array(try Data(contentsOf: URL(fileURLWithPath: json))))
        // (--from names every input's format: orders.bin2 read as JSON is refused.)
        #expect(run.status == 1)
        let alone = try CLITests.run(["query", "--as", "r=-", "--from", "json", "select count(*) as n from r.Orders"],
                                     stdin: Array(try Data(contentsOf: URL(fileURLWithPath: json))))
        #expect(alone.text == "{\"n\": 2}\n", "\(alone.stderr)")
    }

    @Test func theInputsStayReadOnly() throws {
        let (dir, sqlite, json) = try Self.inputs()
        defer { try? FileManager.default.removeItem(at: dir) }
        let before = try Data(contentsOf: URL(fileURLWithPath: sqlite))
        #expect(try CLITests.run(["query", sqlite, json, "delete from Shop.Orders"]).status == 1)
        #expect(try CLITests.run(["query", sqlite, json, "attach 'x.db' as x"]).status == 1)
        #expect(try CLITests.run(["query", sqlite, json, "select * from Shop.Orders; delete from Shop.Orders"]).status == 2)
        #expect(try Data(contentsOf: URL(fileURLWithPath: sqlite)) == before)
    }
}

/// `query`'s output formats and options on one row of every kind of SQLite value: an integer,
/// a real, CJK text, text with a control character, a tab and a pipe, a blob, NULL. Expected text
/// written by hand.
@Suite struct QueryFormatsCLITests {
    static let sql = "select 7 as i, 2.5 as r, '课程' as cjk, char(27) || 'x|y' || char(9) || 'z' as odd, x'00ff' as b, null as n"

    static func run(_ options: [String]) throws -> CLITests.Result {
        try CLITests.run(["query", QueryInputsCLITests.orders, Self.sql] + options)
    }

    @Test(arguments: [
        (["--format", "jsonl"], "{\"i\": 7, \"r\": 2.5, \"cjk\": \"课程\", \"odd\": \"\\u001bx|y\\tz\", \"b\": \"AP8=\", \"n\": null}\n"),
        (["--format", "json"], "[\n{\"i\": 7, \"r\": 2.5, \"cjk\": \"课程\", \"odd\": \"\\u001bx|y\\tz\", \"b\": \"AP8=\", \"n\": null}\n]\n"),
        (["--format", "json", "--blobs", "hex"], "[\n{\"i\": 7, \"r\": 2.5, \"cjk\": \"课程\", \"odd\": \"\\u001bx|y\\tz\", \"b\": \"00ff\", \"n\": null}\n]\n"),
        (["--format", "csv"], "i,r,cjk,odd,b,n\r\n7,2.5,课程,\u{1B}x|y\tz,AP8=,\r\n"),
        (["--format", "csv", "--no-header", "--null", "NULL"], "7,2.5,课程,\u{1B}x|y\tz,AP8=,NULL\r\n"),
        (["--format", "tsv"], "i\tr\tcjk\todd\tb\tn\n7\t2.5\t课程\t\u{1B}x|y\\tz\tAP8=\t\n"),
        (["--format", "tsv", "--blobs", "hex", "--null", "\\N"], "i\tr\tcjk\todd\tb\tn\n7\t2.5\t课程\t\u{1B}x|y\\tz\t00ff\t\\N\n"),
        (["--format", "table"], "i  r    cjk   odd         b     n\n-  ---  ----  ----------  ----  ----\n7  2.5  课程  \\x1Bx|y\\tz  AP8=  NULL\n(1 row)\n"),
        (["--format", "table", "--no-header", "--null", "-"], "7  2.5  课程  \\x1Bx|y\\tz  AP8=  -\n(1 row)\n"),
        (["--format", "markdown"], "| i | r | cjk | odd | b | n |\n|---|---|---|---|---|---|\n| 7 | 2.5 | 课程 | \\x1Bx\\|y\\tz | AP8= | NULL |\n"),
    ])
    func eachFormat(options: [String], expected: String) throws {
        let run = try Self.run(options)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.text == expected, "\(options)")
    }

    @Test func anEmptyResultExits1WithE() throws {
        let orders = QueryInputsCLITests.orders
        let none = try CLITests.run(["query", orders, "select * from Orders where ID = 99", "-e"])
        #expect(none.status == 1 && none.text.isEmpty)
        let some = try CLITests.run(["query", orders, "select * from Orders where ID = 1", "--exit-status", "--format", "csv"])
        #expect(some.status == 0 && some.text.hasPrefix("ID,Customer"))
        // Without the flag, no row is no failure.
        #expect(try CLITests.run(["query", orders, "select * from Orders where ID = 99"]).status == 0)
    }
}

/// Each table's pending changes as plain columns (`<table>_changes`, Spec/sqlite-mapping.md §6),
/// against orders.bin2's delta as `info` and Fixtures/README.md describe it: Bob's update (Amount
/// 7 → 8, Shipped set; a reduced delta, so Customer is not sent), Carol's delete, Dora's insert.
@Suite struct QueryChangeViewsCLITests {
    static let orders = QueryInputsCLITests.orders
    static let expected = """
        position,type,status,record_id,message,old_ID,new_ID,old_Customer,new_Customer,old_Amount,new_Amount,old_Shipped,new_Shipped\r
        0,update,pending,1100,,2,2,,,7,8,,2023-03-15T06:00:00.000\r
        1,delete,pending,1101,,3,,Carol,,100,,2023-03-16T00:00:00.000,\r
        2,insert,pending,1102,,,4,,Dora 😀,,5,,\r

        """

    /// The same view whichever way the input is read: a briefcase (written in memory), its SQLite
    /// export (opened read-only: the view is a temporary one), or one of several inputs.
    @Test func theViewHoldsEachChange() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sqlite = dir.appendingPathComponent("o.sqlite").path
        #expect(try CLITests.run(["convert", Self.orders, sqlite]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: sqlite))
        for arguments in [[Self.orders, "select * from Orders_changes"], [sqlite, "select * from Orders_changes"],
                          [Self.orders, sqlite, "select * from o.Orders_changes"]] {
            let run = try CLITests.run(["query"] + arguments + ["--format", "csv"])
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            #expect(run.text == Self.expected, "\(arguments)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: sqlite)) == before)
    }

    /// The questions the view is for, each one short SELECT.
    @Test func pendingInsertsAndChangedFieldsAreOneSelectEach() throws {
        let inserts = try CLITests.run(["query", Self.orders, "select new_ID from Orders_changes where type = 'insert'", "--format", "tsv", "--no-header"])
        #expect(inserts.text == "4\n")
        let changed = try CLITests.run(["query", Self.orders, """
            select record_id, old_Amount, new_Amount, old_Shipped is not new_Shipped as shipped_changed
            from Orders_changes where type = 'update' and old_Amount is not new_Amount
            """])
        #expect(changed.text == "{\"record_id\": 1100, \"old_Amount\": \"7\", \"new_Amount\": \"8\", \"shipped_changed\": 1}\n")
        // A CI check: fails (exit 1) while a delete is pending.
        #expect(try CLITests.run(["query", Self.orders, "-e", "select 1 from Orders_changes where type = 'delete'"]).status == 0)
        #expect(try CLITests.run(["query", Self.orders, "-e", "select 1 from Orders_changes where type = 'delete' and old_ID = 9"]).status == 1)
    }

    /// A delta of 1,100 logged fields would make a view of 2,205 columns, more than SQLite lets a
    /// statement read: there is none, a note says why, and the query runs.
    @Test func aViewTooWideIsLeftOutWithANote() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let n = 1100, path = dir.appendingPathComponent("wide.json").path
        let names = (0..<n).map { "F\($0)" }
        let document: [String: Any] = [
            "format": "briefcase-json", "version": 1, "container": "bin2", "encoding": "utf-8",
            "elements": [
                ["kind": "delta", "name": "W", "loggedFields": names.map { ["name": $0, "type": "datInteger"] }, "keyFields": ["F0"],
                 "reducedDelta": 0,
                 "changes": [["type": "insert", "recordID": 1, "status": "pending", "message": "", "old": Array(repeating: NSNull(), count: n),
                              "new": Array(0..<n)]]] as [String: Any],
                ["kind": "table", "name": "W",
                 "schema": ["fieldPropertyCount": 2, "fields": names.enumerated().map { [["Name", $1], ["InPrimaryKey", $0 == 0 ? "True" : "False"]] },
                            "parameterPropertyCount": 0, "parameters": []] as [String: Any],
                 "fields": names.map { ["name": $0, "type": "datInteger", "size": 0] as [String: Any] }, "rows": []] as [String: Any],
            ],
        ]
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: path))
        let run = try CLITests.run(["query", path, "select count(*) as n from _briefcase_changes"])
        #expect(run.status == 0 && run.text == "{\"n\": 1}\n", "\(run.stderr)")
        #expect(run.stderr.contains("W_changes: not made: its 2205 columns are more than SQLite's 2000"), "\(run.stderr)")
    }

    /// Names with quotes and a pipe make views and columns as they are (quoted in the SQL made).
    @Test func namesWithQuotes() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let json = dir.appendingPathComponent("o.json").path, quoted = dir.appendingPathComponent("q.json").path
        #expect(try CLITests.run(["convert", Self.orders, json]).status == 0)
        let text = try String(contentsOfFile: json, encoding: .utf8)
            .replacingOccurrences(of: "\"Orders\"", with: "\"O'Re\\\"il|ly\"")
            .replacingOccurrences(of: "\"Customer\"", with: "\"Cu'st\\\"omer\"")
        try Data(text.utf8).write(to: URL(fileURLWithPath: quoted))
        let run = try CLITests.run(["query", quoted, #"select record_id, "new_Cu'st""omer" as c from "O'Re""il|ly_changes" where type = 'insert'"#])
        #expect(run.text == "{\"record_id\": 1102, \"c\": \"Dora 😀\"}\n", "\(run.stderr)")
    }

    /// A table without a key, its field names 8-bit GBK text: the columns take the decoded names.
    @Test func aKeylessTableWithEightBitNames() throws {
        let run = try CLITests.run(["query", SamplePaths.fixtures.path + "/gbk.daBriefcase", "select type, new_课程名称 from CourseInfo_changes"])
        #expect(run.text == "{\"type\": \"insert\", \"new_课程名称\": \"软件工程\"}\n", "\(run.stderr)")
    }
}
