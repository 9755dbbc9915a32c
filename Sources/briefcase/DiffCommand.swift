import ArgumentParser
import BriefcaseDiff
import BriefcaseKit

/// How `diff` prints the differences.
enum DiffFormat: String, ExpressibleByArgument, CaseIterable {
    case text, jsonl, sql
}

/// When `diff` colours its text.
enum ColorChoice: String, ExpressibleByArgument, CaseIterable {
    case auto, always, never
}

struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Show what changed between two briefcases: properties, fields, rows by key, pending changes.",
        discussion: """
        A and B may be of any format (a .daBriefcase against the .sqlite someone edited, a folder \
        against a JSON document; gzip and - included). Tables are paired by name; rows by their \
        key (the InPrimaryKey fields both have), a row whose key changed being a removal and an \
        addition; a table without a key is compared as a multiset of whole rows, or row by row \
        with --by-position. Pending changes are paired by record id. With --current the rows are \
        compared as the app sees them (pending changes applied), and the changes are not listed. \
        Spec/diff.md gives every rule.

        Text (the default) prints, per table, + for an added row, - for a removed one and → for a \
        changed one with its key and only the cells that changed, old → new; coloured when \
        standard output is a terminal (--color). --format jsonl prints one JSON object per \
        difference (a changed row: one per cell), values as the JSON document writes them. \
        --format sql prints the statements that turn the current rows of A's SQLite export \
        (briefcase convert A x.sqlite) into B's, as sqldiff does (it compares with --current). \
        --summary prints counts per table instead.

        Exit status: 0 the same, 1 different, 2 trouble (usage, a file that cannot be read or is \
        not a briefcase). --quiet prints nothing.

        Examples:
          briefcase diff Orders.daBriefcase Orders-edited.sqlite
          briefcase diff old.daBriefcase new.daBriefcase --table Orders --ignore-fields Modified
          briefcase diff a.json b.json --format jsonl
          briefcase diff a.daBriefcase b.daBriefcase --summary
        """
    )

    @Argument(help: "The old briefcase (A).")
    var a: String

    @Argument(help: "The new briefcase (B).")
    var b: String

    @OptionGroup var inputOptions: InputOptions

    @Option(name: .customLong("table"), help: "Compare only this table (case-insensitive; repeatable).")
    var tables: [String] = []

    @Option(name: .customLong("ignore-fields"), help: ArgumentHelp("Fields whose values are not compared (comma-separated).", valueName: "names"))
    var ignoreFields: [String] = []

    @Option(name: .customLong("ignore-properties"), help: ArgumentHelp("Properties not compared (comma-separated).", valueName: "names"))
    var ignoreProperties: [String] = []

    @Flag(help: "Compare the rows with their pending changes applied, not the stored rows and the changes apart.")
    var current = false

    @Flag(help: "Pair a keyless table's rows by position instead of as a multiset.")
    var byPosition = false

    @Option(help: "text (for people, the default), jsonl (one JSON object per difference) or sql (statements for A's SQLite export).")
    var format: DiffFormat = .text

    @Flag(help: "Print counts per table instead of the differences.")
    var summary = false

    @Flag(help: "Print nothing: the exit status says whether A and B differ.")
    var quiet = false

    @Option(help: "Colour the text: auto (when standard output is a terminal), always or never.")
    var color: ColorChoice = .auto

    func validate() throws {
        try inputOptions.check([a, b])
        if a == "-" && b == "-" { throw ValidationError("standard input (-) can be read only once") }
        if format == .sql && byPosition { throw ValidationError("--format sql finds a keyless table's rows by their values: leave out --by-position") }
    }

    func run() throws {
        let split = { (lists: [String]) in lists.flatMap { $0.split(separator: ",").map { ByteString(utf8: String($0)) } } }
        let options = DiffOptions(tables: tables.isEmpty ? nil : tables.map { ByteString(utf8: $0) },
                                  ignoredFields: split(ignoreFields), ignoredProperties: split(ignoreProperties),
                                  current: current || format == .sql, byPosition: byPosition && format != .sql,
                                  jobs: inputOptions.jobs.count)
        let (old, new, differences) = try TablesInput.compare(a, b, inputOptions: inputOptions, options: options)
        if !quiet {
            let printer = DiffPrinter(old: old, new: new, colored: color == .always || (color == .auto && DiffPrinter.standardOutputIsTerminal))
            let text = switch (summary, format) {
            case (true, _): printer.summary(differences)
            case (_, .jsonl): printer.jsonLines(differences)
            case (_, .sql): printer.sql(differences)
            case (_, .text): printer.text(differences)
            }
            try StandardOutput.write(text)
        }
        if !differences.isEmpty { throw ExitCode(1) }
    }
}
