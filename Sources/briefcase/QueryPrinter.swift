import ArgumentParser
import BriefcaseJSON
import BriefcaseKit
import BriefcaseSQLite
import JSONCore

/// How `query` prints rows (Spec/sqlite-mapping.md §6).
enum QueryFormat: String, ExpressibleByArgument, CaseIterable {
    case jsonl, json, csv, tsv, table, markdown
}

/// How `query` prints a blob in text.
enum BlobText: String, ExpressibleByArgument, CaseIterable {
    case base64, hex
}

/// Prints a query's rows as they come: JSON Lines, CSV and each JSON array element through
/// `cat`'s printer; TSV and Markdown lines; a table for people (`TextTable`: a bounded sample
/// measures the columns, then rows stream).
struct QueryPrinter {
    /// What the options ask of the text.
    struct Style {
        var header = true
        /// NULL in csv, tsv, table and markdown (nil: empty in csv and tsv, `NULL` in the others).
        var null: String?
        var blobs = BlobText.base64
        var formulaSafe = false
    }

    let format: QueryFormat
    let style: Style
    private var rows: RowPrinter<StandardOutputSink>
    private var element: RowPrinter<ArraySink>?
    private var table: TextTable?
    /// Rows printed.
    private(set) var count = 0

    init(columns: [String], format: QueryFormat, style: Style = Style()) {
        self.format = format
        self.style = style
        let fields = columns.map { FieldDescriptor(name: ByteString(utf8: $0), type: .wideString) }
        rows = RowPrinter(sink: StandardOutputSink(), columns: fields, codePage: .utf8, format: format == .csv ? .csv : .jsonl)
        rows.formulaSafe = style.formulaSafe
        switch format {
        case .jsonl: break
        case .json:
            element = RowPrinter(sink: ArraySink(), columns: fields, codePage: .utf8, format: .jsonl)
            rows.writer.writeRaw("[")
        case .csv:
            if style.header { rows.writeHeader() }
        case .tsv:
            if style.header { rows.writer.writeRaw(columns.map(Self.tsvField).joined(separator: "\t") + "\n") }
        case .table:
            table = TextTable(headers: columns, showsHeader: style.header)
        case .markdown:
            if style.header {
                rows.writer.writeRaw(Self.markdownLine(columns) + "|" + String(repeating: "---|", count: max(1, columns.count)) + "\n")
            }
        }
    }

    /// The value as `cat` holds it: an integer, a float, text, a blob (or its hex text), NULL.
    func value(_ sql: SQLValue) -> Value? {
        switch sql {
        case .null: return nil
        case .integer(let number): return .integer(number)
        case .real(let number): return .float(number)
        case .text(let text): return .ansiString(ByteString(utf8: text))
        case .blob(let bytes): return style.blobs == .hex ? .ansiString(ByteString(utf8: Self.hex(bytes))) : .blob(ByteString(bytes))
        }
    }

    /// A value as text in a cell: `cat`'s plain text, NULL as `style.null` (or `absent`).
    private func text(_ value: Value?, absent: String) -> String {
        guard let value else { return style.null ?? absent }
        return rows.plainText(value)
    }

    mutating func write(_ row: [SQLValue]) throws {
        count += 1
        let values = row.map(value)
        switch format {
        case .jsonl:
            rows.write(values)
        case .json:
            rows.writer.writeRaw(count == 1 ? "\n" : ",\n")
            rows.writer.writeRaw(element!.line(values))
        case .csv:
            rows.write(style.null.map { null in values.map { $0 ?? .ansiString(ByteString(utf8: null)) } } ?? values)
        case .tsv:
            // (NULL's text is a marker, written as given: `\N` stays `\N`, while text `\N` is `\\N`.)
            rows.writer.writeRaw(values.map { $0 == nil ? style.null ?? "" : Self.tsvField(text($0, absent: "")) }.joined(separator: "\t") + "\n")
        case .markdown:
            rows.writer.writeRaw(Self.markdownLine(values.map { text($0, absent: "NULL") }))
        case .table:
            let cells = values.map { value -> TextTable.Cell in
                switch value {
                case .integer?, .float?: TextTable.Cell(text(value, absent: "NULL"), number: true)
                default: TextTable.Cell(text(value, absent: "NULL"), number: false)
                }
            }
            let line = table!.add(cells)
            if !line.isEmpty { rows.writer.writeRaw(line) }
        }
    }

    mutating func finish() throws {
        if format == .json { rows.writer.writeRaw(count == 0 ? "]\n" : "\n]\n") }
        if table != nil { rows.writer.writeRaw(table!.finish()) }
        try rows.finish()
    }

    /// A TSV field: the text with `\`, tab, line feed and carriage return written `\\`, `\t`,
    /// `\n`, `\r`, so that every row is one line of tab-separated fields.
    static func tsvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "\\" || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A Markdown table line: each cell escaped for the terminal (`TerminalText`; a line break is
    /// `\n` there), `|` written `\|`.
    static func markdownLine(_ cells: [String]) -> String {
        "| " + cells.map { TerminalText.escaped($0).split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|") }
            .joined(separator: " | ") + " |\n"
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
