import Foundation
import ArgumentParser
import BriefcaseKit

struct BriefcaseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "briefcase",
        abstract: "Read, check and convert Data Abstract briefcases, byte for byte.",
        discussion: """
        A briefcase is the offline data store of Data Abstract (RemObjects) apps: a single \
        .daBriefcase file (DABRC600 header, properties, Bin2 stream of tables and pending deltas), \
        a .briefcase folder, or a bare Bin2 stream.

        Formats: dabriefcase, folder (a .briefcase directory), bin2, json (this tool's lossless JSON \
        document; see Spec/json-format.md), snapshot (a Dropbox Datastore snapshot document; see \
        Spec/datastore-mapping.md), sqlite (an SQLite database: each table's current rows under its \
        own name; see Spec/sqlite-mapping.md).
        Formats are recognised by extension (.daBriefcase, .briefcase, .bin2, .json, .snapshot.json, .sqlite, .db), a directory, or content; --from and \
        --to always win.

        Exit status: 0 success, 1 invalid input or refused conversion, 2 usage, missing file or I/O error.

        Examples:
          briefcase info Orders.daBriefcase
          briefcase cat Orders.daBriefcase --table Customers --format csv
          briefcase convert Orders.daBriefcase Orders.json
          briefcase convert Orders.json Orders.daBriefcase
          briefcase query Orders.daBriefcase 'select * from Orders' --format table
        """,
        subcommands: [InfoCommand.self, ValidateCommand.self, CatCommand.self, ConvertCommand.self, QueryCommand.self,
                      DiffCommand.self, FoldCommand.self, ApplyCommand.self, MergeCommand.self, TextconvCommand.self, GitSetupCommand.self, GitDiffCommand.self]
    )
}

/// Options every command that reads 8-bit text shares.
struct EncodingOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Code page of 8-bit strings (names, String/Memo/FixedChar values, properties) when they are not UTF-8.",
        discussion: "For example gbk, windows-1252, shift_jis. Without it the tool decides by itself and says so on standard error when the result is not plain UTF-8.",
        valueName: "name"))
    var encoding: String?

    func validate() throws {
        if let encoding, CodePage(name: encoding) == nil {
            throw ValidationError("unknown code page '\(encoding)' (try utf-8, gbk, windows-1252, shift_jis, big5, euc-kr)")
        }
    }

    var codePage: CodePage? { encoding.flatMap(CodePage.init(name:)) }
}


/// How the commands read their input: `--from` (the format, when neither the name nor the
/// content says it), `--encoding` and `--jobs`.
struct InputOptions: ParsableArguments {
    @Option(help: "Input format: \(FileFormat.allCases.map(\.rawValue).joined(separator: ", ")). Default: from the extension or content.")
    var from: FileFormat?

    @OptionGroup var encoding: EncodingOption

    @OptionGroup var jobs: JobsOption

    /// Standard input (`-`) among `paths` needs `--from`: it has no name, and is read once.
    func check(_ paths: [String]) throws {
        if paths.contains("-") && from == nil { throw ValidationError("reading standard input needs --from") }
    }

    /// The format of `path`: `--from`, else from its extension or content.
    func format(of path: String) throws -> FileFormat { try FileFormat.ofInput(path, explicit: from) }

    /// `path` read as these options say, in `format`.
    func source(_ path: String, format: FileFormat) -> InputSource {
        InputSource(path: path, format: format, encoding: encoding.codePage, jobs: jobs.count)
    }
}

/// The cores a command that decodes a binary briefcase's elements uses (`info`, which decodes
/// only heads, takes it and ignores it, so every command reading a briefcase accepts it).
struct JobsOption: ParsableArguments {
    static let help = ArgumentHelp(
        "How many elements (tables and deltas) to read at once: decoded from a binary briefcase or folder, or parsed from JSON.",
        discussion: "Default: the number of cores. The output is byte for byte the same whatever the number — elements are written, and warnings reported, in their order; memory grows with it, to as many decoded tables at once. From a binary briefcase whose largest tables would hold too much memory that way, a JSON writer takes the elements one at a time instead and writes a large table's rows on that many threads at once. 1 decodes on one thread. info reads no rows and ignores it.",
        valueName: "n")

    @Option(help: help)
    var jobs: Int?

    /// The number asked for, else the cores this process may run on.
    var count: Int { jobs ?? ProcessInfo.processInfo.activeProcessorCount }

    func validate() throws {
        guard let jobs, jobs < 1 else { return }
        throw ValidationError("--jobs must be at least 1 (got \(jobs))")
    }
}
