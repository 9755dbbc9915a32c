import Foundation
import Testing

/// `query --format table` (Spec/robustness.md §9.3): cells escaped, columns aligned by display
/// width, memory bounded whatever the number of rows. Expected tables are written by hand.
struct QueryTableCLITests {
    static let orders = CLITests.fixtures.appendingPathComponent("orders.bin2").path

    @Test func cellsAndHeadersAreEscaped() throws {
        let (dir, path) = try TerminalSafetyCLITests.hostileFile()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLITests.run(["query", path, "SELECT * FROM \"\(TerminalSafetyCLITests.tableName)\"", "--format", "table"])
        #expect(result.status == 0)
        // F's cell is 29 columns once escaped: v, \x1B, [31m, \u{202E}, \u{85}, \x7F, \n.
        #expect(result.text == #"F\x1B[2J"# + String(repeating: " ", count: 21) + "  N\n"
            + String(repeating: "-", count: 29) + "  ---------\n"
            + #"v\x1B[31m\u{202E}\u{85}\x7F\n  n\u{9B}2J"# + "\n"
            + "(1 row)\n")
    }

    /// Wide characters take two columns, combining marks none (the CLI contract).
    @Test func columnsAreAlignedByDisplayWidth() throws {
        let result = try CLITests.run(["query", Self.orders, """
            SELECT '漢字' AS a, 1 AS b UNION ALL SELECT 'e' || char(769) || 'x', 22 UNION ALL SELECT 'ab', 333 \
            UNION ALL SELECT 'ｆｕ', 4444
            """, "--format", "table"])
        #expect(result.status == 0)
        #expect(result.text == """
            a     b
            ----  ----
            漢字     1
            e\u{301}x      22
            ab     333
            ｆｕ  4444
            (4 rows)

            """)
    }

    /// The widths come from the first 1000 rows; a later, wider cell is written whole and pushes
    /// the rest of its line right (on the old code, every row was kept and measured).
    @Test func aLaterWiderCellIsWrittenWhole() throws {
        let result = try CLITests.run(["query", Self.orders, """
            WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r WHERE x < 1002)
            SELECT CASE WHEN x = 1002 THEN 'wider than the rest' ELSE 'w' END AS t, x FROM r
            """, "--format", "table"])
        #expect(result.status == 0)
        let lines = result.text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 1006)
        #expect(Array(lines.prefix(3)) == ["t  x", "-  ----", "w     1"])
        #expect(Array(lines.suffix(4)) == ["w  1001", "wider than the rest  1002", "(1002 rows)", ""])
    }

    static var hasTime: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/time") }

    /// Two million rows print with memory of a few thousand: the peak resident size (GNU time)
    /// stays under 100 MB (the old printer kept every row: about 230 MB).
    @Test(.enabled(if: hasTime, "needs GNU time (/usr/bin/time -v) to read the peak memory"))
    func memoryStaysBoundedOnAnyResult() throws {
        let sql = "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r WHERE x < 2000000) SELECT x, 'row ' || x AS t FROM r"
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLITests.shell("""
            /usr/bin/time -v "$BRIEFCASE" query '\(Self.orders)' "\(sql)" --format table 2> time.txt | tail -n 3
            grep 'Maximum resident set size' time.txt >&2
            """, in: dir)
        #expect(result.text == "1999999  row 1999999\n2000000  row 2000000\n(2000000 rows)\n")
        let kilobytes = Int(result.stderr.split(separator: ":").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? .max
        #expect(kilobytes < 100_000, "peak resident size \(kilobytes) kB")
    }
}
