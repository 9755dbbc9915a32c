import ArgumentParser
import BriefcaseJSON
import BriefcaseKit

struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert a briefcase between formats, losslessly.",
        discussion: """
        dabriefcase → json → dabriefcase reproduces the original file byte for byte: properties, \
        tables, every schema property, every delta with its record ids, statuses, messages and masks.

        The output is written atomically (a temporary file or folder in the same directory, then \
        renamed or swapped into place), \
        so a failed conversion leaves nothing behind. An existing OUTPUT is only replaced with --force. \
        Use - for standard input or output, with --from / --to.

        dabriefcase → snapshot → dabriefcase is byte for byte too: the rows and pending changes \
        become datastore records and deltas, everything else travels in the document's "briefcase" \
        member (Spec/datastore-mapping.md). A snapshot that breaks a datastore size limit is \
        refused unless --ignore-limits is given.

        dabriefcase → sqlite makes a real SQLite database: each table's current rows (pending \
        delta applied) under its exact name, beside _briefcase tables that give the file back \
        byte for byte (Spec/sqlite-mapping.md). Rows inserted, updated or deleted there with SQL \
        become, on the way back, pending changes of their table; a value that does not fit its \
        field is refused, naming table, row and field.

        A table whose bytes do not decode (while the header, properties and element index are \
        sound) stops the conversion with an error naming the file, the element and the offset, \
        and nothing is written. With --skip-damaged the other tables are converted, each element \
        left out is listed on standard error, and the exit status is 0.

        Examples:
          briefcase convert Orders.daBriefcase Orders.json
          briefcase convert Orders.json Orders.daBriefcase --force
          briefcase convert Orders.daBriefcase Orders.bin2
          briefcase convert Orders.daBriefcase - --to json
          briefcase convert Orders.daBriefcase Orders.json.gz      (gzip: a trailing .gz, in or out)
          briefcase convert Orders.daBriefcase Orders.snapshot.json
          briefcase convert Orders.snapshot.json Orders.daBriefcase
          briefcase convert Orders.daBriefcase Orders.sqlite
          briefcase convert Orders.sqlite Orders.daBriefcase --force   (SQL edits → pending changes)
          briefcase convert Damaged.daBriefcase Rescued.json --skip-damaged
        """
    )

    @OptionGroup var paths: ConversionPaths

    @OptionGroup var inputOptions: InputOptions

    @Flag(help: "Replace OUTPUT if it exists.")
    var force = false

    @Flag(help: "Write a snapshot even when it breaks a datastore size limit (with a warning).")
    var ignoreLimits = false

    @Flag(help: "Convert the readable tables of a damaged binary briefcase, leaving out (and listing) each element whose bytes do not decode; exit 0.")
    var skipDamaged = false

    @Flag(name: .shortAndLong, help: "No progress bar (it only appears for inputs over 8 MB when standard error is a terminal).")
    var quiet = false

    func validate() throws { try inputOptions.check([paths.input]) }

    func run() throws {
        let (input, output) = (paths.input, paths.output)
        let outputFormat = try paths.outputFormat(replacing: force)
        let inputFormat = try inputOptions.format(of: input)
        let progress = ProgressBar.make(for: input, quiet: quiet)
        progress?.attachToReads()
        defer { progress?.finish() }
        try Conversion(input: input, inputFormat: inputFormat, output: output, outputFormat: outputFormat,
                       encoding: inputOptions.encoding.codePage, skipDamaged: skipDamaged, jobs: inputOptions.jobs.count, ignoreLimits: ignoreLimits,
                       replacing: force, progress: progress).run()
    }
}

/// INPUT and OUTPUT of a command that writes a briefcase (`convert`, `fold`), and `--to`.
struct ConversionPaths: ParsableArguments {
    @Argument(help: "The briefcase to read (- for standard input).")
    var input: String

    @Argument(help: "Where to write (- for standard output).")
    var output: String

    @Option(help: "Output format. Default: from the output's extension.")
    var to: FileFormat?

    func validate() throws {
        if output == "-" && to == nil { throw ValidationError("writing standard output needs --to") }
    }

    /// The output's format, once writing there can lose nothing: a directory is replaced only by
    /// a folder briefcase, anything at OUTPUT only with `replacing` (`--force`).
    func outputFormat(replacing: Bool) throws -> FileFormat {
        try Self.outputFormat(output, to: to, input: input, replacing: replacing)
    }

    /// The same for any command that writes `output` from `input`.
    static func outputFormat(_ output: String, to: FileFormat?, input: String, replacing: Bool) throws -> FileFormat {
        let format = try FileFormat.ofOutput(output, explicit: to)
        try FolderOutput.checkDestination(output, format: format, input: input) // never lose a directory
        if output != "-" && !replacing && FileIO.exists(output) {
            throw UsageError("'\(output)' exists; use --force to replace it")
        }
        return format
    }
}
