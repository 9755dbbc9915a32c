import ArgumentParser
import JSONCore
import BriefcaseJSON
import BriefcaseKit
import BriefcaseSQLite

struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Run one read-only SQL statement over briefcases, as SQLite tables.",
        discussion: """
        Each input is the database `briefcase convert INPUT x.sqlite` would write \
        (Spec/sqlite-mapping.md): each table's current rows (pending delta applied) under its own \
        name, and the _briefcase tables (stored rows the pending changes touch, pending changes, fields, schema, properties). \
        A briefcase of any format is read on demand: only the tables the statement reads are \
        decoded, before its first row (a table it does not read is never looked at, nor its \
        damage: validate reads everything); an SQLite database is opened read-only. Only a statement that reads is run: no input is ever changed. Each table's \
        pending changes are also a view, <table>_changes: a row per change (type, status, \
        record_id, message) with old_<field> and new_<field> for each logged field.

        One input: its tables by their names. Several (or one given with --as): each is a schema \
        named after its file's stem (orders.daBriefcase: orders; characters other than letters, \
        digits and _ become _; a name taken gets _2, _3, told on standard error) or as --as \
        NAME=PATH says, so tables are orders.Orders; a table only one input has answers \
        unqualified too. --from, when given, names every input's format.

        --format jsonl (the default) and json (one array) print values as cat does; csv and tsv \
        print a header row (--no-header: none) and a row per line (csv: RFC 4180; tsv: \\, tab \
        and line breaks written \\\\, \\t, \\n, \\r; --csv-formula-safe guards csv cells for \
        spreadsheets); table prints columns for people, aligned by display width (wide characters \
        take two columns), with control characters escaped (\\x1B, \\u{202E}; see \
        Spec/robustness.md), and markdown a Markdown table, escaped the same way. The table's \
        widths are measured over the first 1000 rows (or 4 MB of text), then rows are printed as \
        they come: a later, wider cell is printed whole and pushes the rest of its line right. \
        SQLite values: integers and reals as numbers, text as text, blobs as base64 (--blobs hex: \
        hexadecimal), NULL as null in JSON, empty in csv and tsv, NULL in table and markdown \
        (--null TEXT: TEXT).

        Exit status: 2 for SQL that does not compile, 1 for a statement that would write; with \
        -e, 1 when the statement gives no row (for checks such as "no pending deletes").

        Examples:
          briefcase query Orders.daBriefcase 'select Customer, sum(Amount) from Orders group by Customer' --format table
          briefcase query Orders.sqlite 'select o.ID, c.Name from Orders o join Customers c on c.ID = o.CustomerID'
          briefcase query Orders.daBriefcase Shop.sqlite 'select * from Orders.Orders join Shop.Customers using (ID)'
          briefcase query Orders.daBriefcase "select record_id, old_Amount, new_Amount from Orders_changes where type = 'update'"
          briefcase query Orders.daBriefcase -e "select * from Orders_changes where type = 'delete'" --format tsv
        """
    )

    @Argument(help: ArgumentHelp("The inputs — briefcases of any format, SQLite databases — then one SQL statement that reads (SELECT, WITH … SELECT).",
                                 valueName: "input… sql"))
    var arguments: [String] = []

    @Option(name: .customLong("as"), help: ArgumentHelp("One more input, held as the schema NAME (repeatable).", valueName: "name=path"))
    var named: [String] = []

    /// The SQL: the last argument.
    var sql: String { arguments.last ?? "" }
    /// The inputs given without a name: every argument but the last.
    var paths: [String] { Array(arguments.dropLast()) }

    @Option(help: "jsonl (the default), json (one array), csv, tsv, table (aligned columns) or markdown.")
    var format: QueryFormat = .jsonl

    @Flag(help: "No header line (csv, tsv, table, markdown).")
    var noHeader = false

    @Option(help: ArgumentHelp("How NULL is written in csv, tsv, table and markdown (default: empty in csv and tsv, NULL in the others).",
                               valueName: "text"))
    var null: String?

    @Option(help: "How blobs are written: base64 (the default) or hex.")
    var blobs: BlobText = .base64

    @Flag(name: [.customShort("e"), .long], help: "Exit 1 when the statement gives no row (as jq -e and grep do).")
    var exitStatus = false

    @Flag(help: CSVFormulaSafety.help)
    var csvFormulaSafe = false

    @OptionGroup var inputOptions: InputOptions

    func validate() throws {
        guard !arguments.isEmpty else { throw ValidationError("query takes its inputs, then one SQL statement") }
        let named = try named.map(QueryInputs.named)
        try QueryInputs.checkNames(named.map(\.name))
        guard !paths.isEmpty || !named.isEmpty else { throw ValidationError("query takes at least one input before its SQL (or --as NAME=PATH)") }
        let all = paths + named.map(\.path)
        try inputOptions.check(all)
        if all.filter({ $0 == "-" }).count > 1 { throw ValidationError("standard input (-) can be read only once") }
        try CSVFormulaSafety.check(csvFormulaSafe, format: format == .csv)
    }

    func run() throws {
        let inputs = try QueryInputs(paths: paths, named: try named.map(QueryInputs.named))
        // Errors of the statement are of the input when there is one; of the inputs together else.
        let path = inputs.inputs.count == 1 ? inputs.inputs[0].path : inputs.inputs.map(\.path).joined(separator: ", ")
        var connection = try inputs.open(options: inputOptions)
        var query = try compile(in: connection, path: path)
        if connection.contradictsHeads {
            // A string of a table read contradicts the code page the heads suggest: the briefcase
            // read whole (every string looked at) decides it, as convert does.
            connection = try inputs.reopen(connection)
            query = try compile(in: connection, path: path)
        }
        connection.tell()  // (the tables the statement reads were read when it was compiled)
        var printer = QueryPrinter(columns: query.columns, format: format,
                                   style: QueryPrinter.Style(header: !noHeader, null: null, blobs: blobs, formulaSafe: csvFormulaSafe))
        do {
            while let row = try query.next() { try printer.write(row) }
        } catch let error as BriefcaseError {
            throw connection.failure ?? error.inFile(path) // the database in memory is the input's
        }
        try printer.finish()
        if exitStatus && printer.count == 0 { throw ExitCode(1) }
    }

    /// The statement compiled over `connection`; a table it reads that cannot be read fails it
    /// with that table's error.
    private func compile(in connection: QueryConnection, path: String) throws -> SQLiteQuery {
        do {
            return try SQLiteQuery(sql, in: connection.database)
        } catch {
            if let failure = connection.failure { throw failure }
            switch error {
            case .writes: throw BriefcaseError(.invalidModel, SQLiteQuery.Refusal.writes.description, file: path)
            case .denied(let message): throw BriefcaseError(.invalidModel, SQLiteQuery.Refusal.denied(message).description, file: path)
            default: throw UsageError(error.description)
            }
        }
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
