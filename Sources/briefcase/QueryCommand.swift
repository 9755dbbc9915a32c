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

        --format jsonl and csv print values as cat does (a row per line; csv with a header row, \
        cells as they are; --csv-formula-safe guards them for spreadsheets); table prints columns \
        for people, aligned by display width (wide characters take two columns), with control \
        characters escaped (\\x1B, \\u{202E}; see Spec/robustness.md). The widths are measured over \
        the first 1000 rows (or 4 MB of text), then rows are printed as they come: a later, wider \
        cell is printed whole and pushes the rest of its line right. SQLite values: integers and \
        reals as numbers, text as text, blobs as base64, NULL as null (empty in csv, NULL in table).

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

    @Flag(help: CSVFormulaSafety.help)
    var csvFormulaSafe = false

    @OptionGroup var inputOptions: InputOptions

    func validate() throws {
        try inputOptions.check([path])
        try CSVFormulaSafety.check(csvFormulaSafe, format: format == .csv)
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
        var printer = QueryPrinter(columns: query.columns, format: format, formulaSafe: csvFormulaSafe)
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
