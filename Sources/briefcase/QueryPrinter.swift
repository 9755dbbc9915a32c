import BriefcaseJSON
import BriefcaseKit
import BriefcaseSQLite

/// Prints a query's rows as they come: JSON Lines and CSV through `cat`'s printer, a table for
/// people (`TextTable`: a bounded sample measures the columns, then rows stream).
struct QueryPrinter {
    let format: QueryFormat
    var rows: RowPrinter<StandardOutputSink>
    var table: TextTable?

    init(columns: [String], format: QueryFormat, formulaSafe: Bool = false) {
        self.format = format
        let fields = columns.map { FieldDescriptor(name: ByteString(utf8: $0), type: .wideString) }
        rows = RowPrinter(sink: StandardOutputSink(), columns: fields, codePage: .utf8, format: format == .csv ? .csv : .jsonl)
        rows.formulaSafe = formulaSafe
        if format == .csv { rows.writeHeader() }
        if format == .table { table = TextTable(headers: columns) }
    }

    /// The value as `cat` would hold it: an integer, a float, text, a blob, NULL.
    static func value(_ sql: SQLValue) -> Value? {
        switch sql {
        case .null: return nil
        case .integer(let number): return .integer(number)
        case .real(let number): return .float(number)
        case .text(let text): return .ansiString(ByteString(utf8: text))
        case .blob(let bytes): return .blob(ByteString(bytes))
        }
    }

    mutating func write(_ row: [SQLValue]) throws {
        let values = row.map(Self.value)
        guard table != nil else { return rows.write(values) }
        let cells = values.map { value -> TextTable.Cell in
            guard let value else { return TextTable.Cell("NULL", number: false) }
            switch value {
            case .integer, .float: return TextTable.Cell(rows.plainText(value), number: true)
            default: return TextTable.Cell(rows.plainText(value), number: false)
            }
        }
        let text = table!.add(cells)
        if !text.isEmpty { rows.writer.writeRaw(text) }
    }

    mutating func finish() throws {
        if table != nil { rows.writer.writeRaw(table!.finish()) }
        try rows.finish()
    }
}
