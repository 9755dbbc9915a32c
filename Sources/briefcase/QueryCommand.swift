import ArgumentParser
import JSONCore
import BriefcaseJSON
import BriefcaseKit
import BriefcaseSQLite

/// How `query` prints rows.
enum QueryFormat: String, ExpressibleByArgument, CaseIterable {
    case jsonl, csv, table
}

struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Run one read-only SQL statement over a briefcase, as SQLite tables.",
        discussion: """
        The briefcase is the database `briefcase convert INPUT x.sqlite` would write \
        (Spec/sqlite-mapping.md): each table's current rows (pending delta applied) under its own \
        name, and the _briefcase tables (stored rows the pending changes touch, pending changes, fields, schema, properties). \
        Any input format is loaded into a database in memory; an SQLite database is opened \
        read-only. Only a statement that reads is run: the input is never changed.

        --format jsonl and csv print values as cat does (a row per line; csv with a header row); \
        table prints aligned columns for people. SQLite values: integers and reals as numbers, \
        text as text, blobs as base64, NULL as null (empty in csv, NULL in table).

        Exit status: 2 for SQL that does not compile, 1 for a statement that would write.

        Examples:
          briefcase query Orders.daBriefcase 'select Customer, sum(Amount) from Orders group by Customer' --format table
          briefcase query Orders.sqlite 'select o.ID, c.Name from Orders o join Customers c on c.ID = o.CustomerID'
          briefcase query Orders.daBriefcase 'select type, record_id, new_values from _briefcase_changes' --format csv
        """
    )

    @Argument(help: "The briefcase (any format), or an SQLite database.")
    var path: String

    @Argument(help: "One SQL statement that reads (SELECT, WITH … SELECT).")
    var sql: String

    @Option(help: "jsonl (the default), csv, or table (aligned columns).")
    var format: QueryFormat = .jsonl

    @OptionGroup var inputOptions: InputOptions

    func validate() throws {
        try inputOptions.check([path])
    }

    func run() throws {
        let inputFormat = try inputOptions.format(of: path)
        let database: SQLiteDatabase
        if inputFormat == .sqlite {
            try GzipInput.refuseFolder(.sqlite, path)
            guard try FileIO.readPrefix(path, count: 16).elementsEqual(FileFormat.sqliteSignature) else {
                throw BriefcaseError(.invalidData, "not an SQLite 3 database (it does not start with 'SQLite format 3')", offset: 0, file: path)
            }
            database = try Self.openReadable(path)
        } else {
            var sink = SQLiteSink(path: nil)
            try inputOptions.source(path, format: inputFormat)
                .readNamingInput(into: &sink, textOutput: true)
            database = sink.database!
        }
        var query: SQLiteQuery
        do {
            query = try SQLiteQuery(sql, in: database)
        } catch .writes {
            throw BriefcaseError(.invalidModel, SQLiteQuery.Refusal.writes.description, file: path)
        } catch .denied(let message) {
            throw BriefcaseError(.invalidModel, SQLiteQuery.Refusal.denied(message).description, file: path)
        } catch {
            throw UsageError(error.description)
        }
        var printer = QueryPrinter(columns: query.columns, format: format)
        do {
            while let row = try query.next() { try printer.write(row) }
        } catch let error as BriefcaseError {
            throw error.inFile(path) // the database in memory is the input's
        }
        try printer.finish()
    }
}

extension QueryCommand {
    /// The database opened read-only and checked (`PRAGMA quick_check`); a damaged one is a bad
    /// input (exit 1), not a mistake in the SQL given.
    static func openReadable(_ path: String) throws(BriefcaseError) -> SQLiteDatabase {
        let database = try SQLiteDatabase(path: path, mode: .readOnly)
        // Every page checked before any answer: a damaged b-tree could otherwise give wrong rows
        // silently, or fail after some were printed (Spec/sqlite-mapping.md §7).
        try database.checkIntegrity()
        return database
    }
}

/// Prints a query's rows: JSON Lines and CSV through `cat`'s printer, a table for people.
struct QueryPrinter {
    let columns: [String]
    let format: QueryFormat
    var rows: RowPrinter<StandardOutputSink>
    /// The table's cells, kept to measure the columns.
    var cells: [[(text: String, number: Bool)]] = []

    init(columns: [String], format: QueryFormat) {
        self.columns = columns
        self.format = format
        let fields = columns.map { FieldDescriptor(name: ByteString(utf8: $0), type: .wideString) }
        rows = RowPrinter(sink: StandardOutputSink(), columns: fields, codePage: .utf8, format: format == .csv ? .csv : .jsonl)
        if format == .csv { rows.writeHeader() }
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
        guard format == .table else { return rows.write(values) }
        cells.append(values.map { value in
            guard let value else { return ("NULL", false) }
            switch value {
            case .integer, .float: return (rows.plainText(value), true)
            default: return (rows.plainText(value), false)
            }
        })
    }

    mutating func finish() throws {
        if format == .table {
            var widths = columns.map(\.count)
            for row in cells {
                for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.text.count) }
            }
            func line(_ texts: [(text: String, number: Bool)]) -> String {
                var parts: [String] = []
                for (column, cell) in texts.enumerated() {
                    let padding = String(repeating: " ", count: widths[column] - cell.text.count)
                    parts.append(cell.number ? padding + cell.text : cell.text + padding)
                }
                var text = parts.joined(separator: "  ")
                while text.last == " " { text.removeLast() }
                return text + "\n"
            }
            var output = line(columns.map { ($0, false) })
            output += line(widths.map { (String(repeating: "-", count: $0), false) })
            rows.writer.writeRaw(output)
            for row in cells { rows.writer.writeRaw(line(row)) }
            let count = cells.count
            rows.writer.writeRaw("(\(count) row\(count == 1 ? "" : "s"))\n")
        }
        try rows.finish()
    }
}
