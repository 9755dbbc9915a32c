import ArgumentParser
import BriefcaseKit
import BriefcaseMerge

extension ConflictResolution: ExpressibleByArgument {}

struct FoldCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fold",
        abstract: "Make the pending changes stored rows: each table's current rows stored, no delta left.",
        discussion: """
        What Delphi's TClientDataSet.MergeChangeLog does, for a whole briefcase: each table's \
        pending changes are replayed into its stored rows (the rows briefcase cat shows), and its \
        delta is removed. Everything else — properties, the other tables, schemas — is written as \
        it was. OUTPUT may be of any format, as for convert (Spec/fold.md).

        A change that does not fit the stored rows is a conflict, classed as SQLite's session \
        extension classes them: DATA, an update or delete whose row (found by its key) holds \
        other values than the change's old ones; NOTFOUND, an update or delete that finds no \
        single row (or a change of a delta without a table); CONFLICT, an insert whose key a row \
        holds already. --on-conflict says what is done with them: abort (the default: every \
        conflict listed, nothing written, exit 1), omit (the change is left out, listed as a \
        warning) or replace (DATA: applied anyway; CONFLICT: the row holding the key replaced; \
        NOTFOUND: left out, as there is nothing to replace).

        Examples:
          briefcase fold Orders.daBriefcase Orders-folded.daBriefcase
          briefcase fold Orders.daBriefcase Orders.json --on-conflict omit
        """
    )

    @OptionGroup var paths: ConversionPaths

    @OptionGroup var inputOptions: InputOptions

    @Option(help: "What to do with a change that does not fit: abort, omit or replace.")
    var onConflict: ConflictResolution = .abort

    @Flag(help: "Replace OUTPUT if it exists.")
    var force = false

    func validate() throws { try inputOptions.check([paths.input]) }

    func run() throws {
        let (input, output) = (paths.input, paths.output)
        let outputFormat = try paths.outputFormat(replacing: force)
        try Conversion(.transformed { [input, onConflict] document, codePage in
            let folded = BriefcaseFold.fold(document, onConflict: onConflict)
            try Self.report(folded.conflicts, notes: folded.notes, of: input, codePage: codePage, resolution: onConflict)
            return folded.document
        }, of: input, into: output, format: outputFormat, options: inputOptions, replacing: force).run()
    }

    /// Tells the conflicts and notes of the changes of `path` on standard error: with `abort`,
    /// each as an error, then their count, and exit 1 (nothing is written); else each as a
    /// warning with what was done.
    static func report(_ conflicts: [ChangeConflict], notes: [String], of path: String, codePage: CodePage,
                       resolution: ConflictResolution) throws {
        for note in notes { Console.warning("\(path): \(note)") }
        for conflict in conflicts {
            let line = "\(path): " + conflict.line(tableName: codePage.decodeForDisplay(conflict.table))
            if resolution == .abort { Console.error(line) } else { Console.warning(line + " (\(outcome(conflict.kind, resolution)))") }
        }
        if resolution == .abort && !conflicts.isEmpty {
            Console.error("\(path): \(conflicts.count) conflict(s): nothing written (--on-conflict omit or replace goes on)")
            throw ExitCode(1)
        }
    }

    /// What `resolution` did with a conflict of `kind`.
    static func outcome(_ kind: ChangeConflict.Kind, _ resolution: ConflictResolution) -> String {
        resolution == .replace && kind != .notFound ? "replaced" : "left out"
    }
}
