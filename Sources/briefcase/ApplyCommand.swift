import ArgumentParser
import BriefcaseKit
import BriefcaseMerge

struct ApplyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Apply the pending changes of one briefcase to another's tables, as new pending changes.",
        discussion: """
        Each delta of CHANGES (a server's delta, a second device's briefcase, a snapshot's \
        deltas: any format) is replayed over the current rows of TARGET's table of its name, and \
        what it does to them is recorded in that table's delta, after TARGET's own pending \
        changes: the stored rows stay, so the result can still go to the server as one delta. \
        OUTPUT is TARGET with those deltas, in any format, as convert writes it (Spec/fold.md §5).

        A change that does not fit TARGET's current rows is a conflict, classed and handled as \
        by fold (DATA, NOTFOUND, CONFLICT; --on-conflict abort, omit or replace). A delta whose \
        table TARGET lacks is NOTFOUND throughout. 8-bit text is carried as its bytes: CHANGES \
        in another code page than TARGET, with 8-bit text that is not ASCII, is refused.

        Examples:
          briefcase apply Device1.daBriefcase Device2.daBriefcase Merged.daBriefcase
          briefcase apply Orders.daBriefcase ServerDelta.bin2 Orders-new.daBriefcase --on-conflict omit
        """
    )

    @Argument(help: "The briefcase the changes are applied to (- for standard input).")
    var target: String

    @Argument(help: "The briefcase whose pending changes are applied.")
    var changes: String

    @Argument(help: "Where to write (- for standard output).")
    var output: String

    @Option(help: "Output format. Default: from the output's extension.")
    var to: FileFormat?

    @OptionGroup var inputOptions: InputOptions

    @Option(help: "What to do with a change that does not fit: abort, omit or replace.")
    var onConflict: ConflictResolution = .abort

    @Flag(help: "Replace OUTPUT if it exists.")
    var force = false

    func validate() throws {
        try inputOptions.check([target, changes])
        if target == "-" && changes == "-" { throw ValidationError("standard input (-) can be read only once") }
        if output == "-" && to == nil { throw ValidationError("writing standard output needs --to") }
    }

    func run() throws {
        let outputFormat = try ConversionPaths.outputFormat(output, to: to, input: target, replacing: force)
        let changed = try ReadDocument(changes, options: inputOptions)
        try Conversion(.transformed { [target, changes, onConflict] document, codePage in
            if changed.codePage != codePage, let text = EightBitText.firstNonASCII(in: changed.document.file.stream.deltas.map(Element.delta)) {
                throw BriefcaseError(.invalidModel, "8-bit text of \(changes) is \(changed.codePage.name), of \(target) \(codePage.name): '\(text)' cannot be carried over as its bytes (give --encoding)")
            }
            let applied: BriefcaseApply.Result
            do throws(BriefcaseError) {
                applied = try BriefcaseApply.apply(changed.document, to: document, onConflict: onConflict)
            } catch {
                throw error.inFile(target)  // (a change TARGET cannot take is of the inputs, not of OUTPUT)
            }
            try FoldCommand.report(applied.conflicts, notes: applied.notes, of: changes, codePage: codePage, resolution: onConflict)
            return applied.document
        }, of: target, into: output, format: outputFormat, options: inputOptions, replacing: force).run()
    }
}
