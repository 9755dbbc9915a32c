import BriefcaseDiff
import BriefcaseKit
import BriefcaseSQLite

/// `diff --format sql`: statements that turn the current rows of A's SQLite export (`briefcase
/// convert A x.sqlite`) into B's, as sqldiff writes them (Spec/diff.md §5). What rows cannot say
/// — properties, tables, fields, a table without a current-rows table — is a comment.
extension DiffPrinter {
    func sql(_ differences: [BriefcaseDifference]) -> String {
        let layout = SQLiteExportLayout(old.heads, codePage: old.codePage)
        var lines = ["-- briefcase diff --format sql: makes the current rows of A's SQLite export (briefcase convert A x.sqlite) B's",
                     "BEGIN;"]
        for difference in differences {
            guard case .row(let row) = difference else {
                lines.append("-- not a row edit, left out: " + comment(difference))
                continue
            }
            guard let table = row.tablePosition.map(layout.table(at:)) ?? layout.table(named: row.table) else {
                lines.append("-- table '\(line(row.table))' has no current-rows table: its rows are left out")
                continue
            }
            lines.append(statement(row, table, layout))
        }
        lines.append("COMMIT;")
        return lines.joined(separator: "\n") + "\n"
    }

    private func statement(_ row: RowDifference, _ table: SQLiteExportLayout.CurrentTable, _ layout: SQLiteExportLayout) -> String {
        let name = SQLiteExportLayout.quote(table.name)
        // Where the row is: by its key, or (keyless) the first row holding all its old values.
        func location(_ values: Row) -> String {
            let keyed = !row.keyColumns.isEmpty
            let columns = keyed ? row.keyColumns.map(\.old) : Array(row.oldFields.indices)
            let match = columns.map { "\(SQLiteExportLayout.quote(table.columns[$0])) IS \(layout.literal(values[$0]))" }.joined(separator: " AND ")
            return keyed ? match : "\(table.rowID) = (SELECT \(table.rowID) FROM \(name) WHERE \(match) LIMIT 1)"
        }
        switch row.kind {
        case .removed:
            return "DELETE FROM \(name) WHERE \(location(row.old!));"
        case .added:
            // B's values of the fields A has too, in A's columns.
            let cells = row.pairedColumns.map { ($0.old, row.new![$0.new]) }
            return "INSERT INTO \(name) (\(cells.map { SQLiteExportLayout.quote(table.columns[$0.0]) }.joined(separator: ", "))) "
                + "VALUES (\(cells.map { layout.literal($0.1) }.joined(separator: ", ")));"
        case .changed:
            let sets = row.changedColumns.map { "\(SQLiteExportLayout.quote(table.columns[$0.old])) = \(layout.literal(row.new![$0.new]))" }
            return "UPDATE \(name) SET \(sets.joined(separator: ", ")) WHERE \(location(row.old!));"
        }
    }

    /// One line saying what a difference that is not a row edit is (no line break, no control character).
    private func comment(_ difference: BriefcaseDifference) -> String {
        switch difference {
        case .property(let name, _, _): return "property '\(line(name))' differs"
        case .table(let name, let kind): return "table '\(line(name))' \(kind.rawValue)"
        case .field(let field): return "field '\(line(field.name))' of table '\(line(field.table))' \(field.kind.rawValue)"
        case .change(let change): return "pending change \(change.recordID) of table '\(line(change.table))' \(change.kind.rawValue)"
        case .row: return ""
        }
    }

    /// A name for an SQL comment: decoded, escaped, on one line.
    private func line(_ name: ByteString) -> String { display(name, old) }
}
