import ArgumentParser
import BriefcaseJSON
import BriefcaseKit

extension RowPrinter.Format: ExpressibleByArgument {}

struct CatCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cat",
        abstract: "Print the rows of one table as JSON Lines or CSV.",
        discussion: """
        By default the table's pending delta is applied first: inserted rows are appended, updated \
        rows changed and deleted rows left out. A change that cannot be matched to exactly one row \
        is reported on standard error and not applied. --original prints the rows as stored.

        Values: text as text, integers and floats as numbers (NaN and infinities as strings), \
        Boolean as true/false, DateTime as YYYY-MM-DDTHH:MM:SS.sss, Currency and Decimal as decimal \
        strings, Blob as base64, GUID as its 36 characters, NULL as null (an empty field in CSV).

        CSV is data: cells are written as they are (as sqlite3 and csvkit write them). For a file \
        to open in a spreadsheet, --csv-formula-safe puts ' before a cell that would run as a \
        formula (one starting with =, +, -, @, tab or carriage return); numbers are left alone.

        Examples:
          briefcase cat Orders.daBriefcase --table Customers
          briefcase cat Orders.daBriefcase --table customers --format csv --original
          gunzip -c Orders.daBriefcase.gz | briefcase cat - --from dabriefcase --table Customers
        """
    )

    @Argument(help: "The briefcase (.daBriefcase, .bin2, .json, a .briefcase folder, or - for standard input with --from).")
    var path: String

    @OptionGroup var inputOptions: InputOptions

    @Option(help: "The table to print (case-insensitive).")
    var table: String

    @Option(help: "jsonl (one JSON object per row, the default) or csv (RFC 4180 with a header row).")
    var format: RowPrinter<StandardOutputSink>.Format = .jsonl

    @Flag(help: "Print the rows as stored, without applying the pending delta.")
    var original = false

    @Flag(help: CSVFormulaSafety.help)
    var csvFormulaSafe = false

    func validate() throws {
        try inputOptions.check([path])
        try CSVFormulaSafety.check(csvFormulaSafe, format: format == .csv)
    }

    func run() throws {
        let inputFormat = try inputOptions.format(of: path)
        var selection = TableSelection(named: table)
        try inputOptions.source(path, format: inputFormat)
            .readNamingInput(into: &selection, textOutput: true)
        let codePage = selection.codePage
        guard selection.dataset != nil || selection.delta != nil else {
            // One line (escaped by Console), not argument-parser's usage text: the names come from the file.
            throw UsageError("\(path): no table named '\(table)' (tables: \(selection.tableNames.joined(separator: ", ")))")
        }
        // A delta-only element: its logged fields are the columns, its inserts the rows.
        let delta = selection.delta
        let base = selection.dataset ?? Table(name: delta!.name, fields: delta!.loggedFields.map { FieldDescriptor(name: $0.name, type: $0.type) })
        var rows = base.rows
        if !original, let delta {
            let applied = base.applying(delta)
            rows = Rows(applied.rows)
            for problem in applied.problems {
                Console.warning("\(path): element '\(codePage.decodeForDisplay(base.name))': \(problem)")
            }
        }
        var printer = RowPrinter(sink: StandardOutputSink(), columns: base.fields, codePage: codePage, format: format)
        printer.formulaSafe = csvFormulaSafe
        printer.writeHeader()
        for row in rows { printer.write(row) }
        try printer.finish()
    }
}

/// `--csv-formula-safe`, which `cat` and `query` share.
enum CSVFormulaSafety {
    static let help = ArgumentHelp(
        "With --format csv: put ' before each cell that starts with =, +, -, @, tab or carriage return, so that a spreadsheet shows it instead of running it as a formula (OWASP's advice on CSV injection).",
        discussion: "Numbers are written as they are. Without it, cells are written as they are: CSV is data.")

    /// The flag means something only for CSV output.
    static func check(_ flag: Bool, format isCSV: Bool) throws {
        if flag && !isCSV { throw ValidationError("--csv-formula-safe applies to --format csv only") }
    }
}
