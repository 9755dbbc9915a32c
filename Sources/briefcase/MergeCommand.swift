import ArgumentParser
import BriefcaseJSON
import BriefcaseKit
import BriefcaseMerge
import JSONCore

extension MergeRule: ExpressibleByArgument {}

struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge what LOCAL and REMOTE each changed since BASE, with the Datastore's rules.",
        discussion: """
        Rows are paired by primary key in each briefcase's current rows (stored rows with pending \
        changes applied). A row only one side changed takes that side's; a row both changed \
        follows the Dropbox Datastore's cases: a delete beats an update, two deletes delete, two \
        inserts of one key are merged field by field. Field by field, a field one side changed \
        takes that side's value; a field both changed to different values is resolved by its \
        rule: remote (the default), local, max, min (the Datastore's order of values) or sum \
        (REMOTE's value plus LOCAL's change, for numbers). Spec/merge.md gives every rule.

        OUTPUT holds BASE's stored rows and pending changes that take them to the merged rows, so \
        it can still go to the server as one delta; --as-stored stores the merged rows instead. \
        BASE, LOCAL and REMOTE may be of any format; they must have the same tables with the same \
        fields, each table a key.

        Three datastore snapshots (not written by this tool from a briefcase) are merged as the \
        Datastore merged: records by table and record id, each side's changes being its deltas \
        past BASE's (or how its records differ from BASE's); list fields by operational transform \
        (two inserts at one place put REMOTE's element first; a delete beats a put of the element; \
        a put or delete of the whole field beats list operations). The output is BASE with one \
        delta more: REMOTE's changes, then LOCAL's made to follow them. --rule TABLE.FIELD names \
        a table id and a field exactly; :info's mtime takes max unless named.

        Exit status: 0 merged, 1 merged but --strict and a rule resolved a conflict, 2 trouble.

        Examples:
          briefcase merge Base.daBriefcase Mine.daBriefcase Theirs.daBriefcase -o Merged.daBriefcase
          briefcase merge Base.daBriefcase Mine.daBriefcase Theirs.daBriefcase -o Merged.daBriefcase \\
            --rule Orders.Quantity=sum --default-rule local --report conflicts.jsonl
        """
    )

    @Argument(help: "The common ancestor.")
    var base: String

    @Argument(help: "This side's briefcase.")
    var local: String

    @Argument(help: "The other side's briefcase.")
    var remote: String

    @Option(name: .shortAndLong, help: "Where to write the merged briefcase (- for standard output).")
    var output: String

    @Option(help: "Output format. Default: from the output's extension, else BASE's format.")
    var to: FileFormat?

    @OptionGroup var inputOptions: InputOptions

    @Option(name: .customLong("rule"), help: ArgumentHelp("The rule of one field: TABLE.FIELD=remote|local|max|min|sum (repeatable).", valueName: "rule"))
    var rules: [String] = []

    @Option(help: "The rule of every other field.")
    var defaultRule: MergeRule = .remote

    @Option(help: ArgumentHelp("Write one JSON line per conflict to FILE.", valueName: "file"))
    var report: String?

    @Flag(help: "Exit 1 when a rule resolved a conflict (the output is written all the same).")
    var strict = false

    @Flag(help: "Store the merged rows instead of recording them as pending changes.")
    var asStored = false

    @Flag(help: "Replace OUTPUT (and the report) if it exists.")
    var force = false

    func validate() throws {
        try inputOptions.check([base, local, remote])
        if [base, local, remote].filter({ $0 == "-" }).count > 1 { throw ValidationError("standard input (-) can be read only once") }
        if output == "-" && to == nil { throw ValidationError("writing standard output needs --to") }
        _ = try parsedRules()
    }

    /// `--rule` and `--default-rule` as the library takes them.
    func parsedRules() throws -> ThreeWayMerge.Rules {
        var parsed = ThreeWayMerge.Rules(defaultRule: defaultRule)
        for text in rules {
            guard let equals = text.lastIndex(of: "="), let dot = text[..<equals].firstIndex(of: "."),
                  let rule = MergeRule(rawValue: String(text[text.index(after: equals)...])), dot != text.startIndex,
                  text.index(after: dot) != equals else {
                throw ValidationError("--rule takes TABLE.FIELD=RULE, RULE one of \(MergeRule.allCases.map(\.rawValue).joined(separator: ", ")); not '\(text)'")
            }
            parsed.byField.append((ByteString(utf8: String(text[..<dot])), ByteString(utf8: String(text[text.index(after: dot) ..< equals])), rule))
        }
        return parsed
    }

    func run() throws {
        do {
            try merge()
        } catch let error as BriefcaseError {
            // Trouble is exit 2, whatever its kind (git's merge drivers read any other non-zero
            // status as a conflict left to the user).
            throw TablesInput.trouble(error)
        }
    }

    private func merge() throws {
        // An OUTPUT whose name says no format (git's merge driver writes to `.merge_file_…`) gets BASE's.
        let format = try to ?? (FileFormat.fromExtension(output) == nil && output != "-" ? inputOptions.format(of: base) : nil)
        let outputFormat = try ConversionPaths.outputFormat(output, to: format, input: base, replacing: force)
        if let report, !force && FileIO.exists(report) { throw UsageError("'\(report)' exists; use --force to replace it") }
        if let snapshots = try plainSnapshots() { return try mergeSnapshots(snapshots, into: outputFormat) }
        // Each table of BASE merged with the sides' of its name, read table by table (binary
        // inputs mapped, each table let go once merged); then BASE written as `convert` writes
        // it, its edited elements (deltas, or stored rows) in place of its own. BASE's strings
        // are checked for its code page as they are read; the sides' only as needed (below).
        let inputs = try [base, local, remote].enumerated().map { try TablesInput($1, options: inputOptions, checkingAsRead: $0 == 0) }
        let rules = try parsedRules()
        let plan: ThreeWayMerge.Plan
        do throws(BriefcaseError) {
            plan = try ThreeWayMerge.merge(base: inputs[0].compared, local: inputs[1].compared, remote: inputs[2].compared,
                                           rules: rules, asStored: asStored, jobs: inputOptions.jobs.count,
                                           sidesChecked: inputs[0].compared.headsDetection)
        } catch {
            let relabeled = inputs.reduce(error) { $1.relabel($0) }
            throw relabeled.file == nil ? relabeled.inFile(base) : relabeled  // (what cannot be merged is of the inputs)
        }
        let codePage = try sameCodePage(inputs, plan)
        for input in inputs.dropFirst() { try input.tellWarnings() }
        let content: Conversion.Content
        switch inputs[0].reading {
        case .elements(_, let opened):
            content = .edited(opened, plan.edits)
        case .whole(var document, let codePage):
            document.file.stream.elements = plan.edits.applied(to: document.file.stream.elements)
            content = .document(document, codePage)
        }
        try Conversion(content, of: base, into: output, format: outputFormat, options: inputOptions, replacing: force).run()
        try finish(report: Self.reportLines(plan.conflicts, codePage: codePage), conflicts: plan.conflicts.count,
                   resolvedByRule: plan.conflicts.filter { $0.field != nil }.count)
    }

    /// BASE's code page, after making sure that the 8-bit text the merge carries from a side into
    /// OUTPUT or the report means there what it meant on its side (Spec/merge.md §3): when there
    /// is such text, both sides must read in BASE's code page. A side whose heads agree with
    /// BASE's does when all of it that is not BASE's bytes keeps to them (`Plan.sidesHold`, and
    /// its elements the merge did not read), BASE's own strings keeping to them too; else its
    /// code page is detected as `convert` detects it.
    private func sameCodePage(_ inputs: [TablesInput], _ plan: ThreeWayMerge.Plan) throws -> CodePage {
        let basePage = try inputs[0].codePage(telling: false)
        guard let text = EightBitText.firstNonASCII(in: plan) else { return basePage }
        let heads = inputs[0].compared.headsDetection
        for (index, path) in [(1, local), (2, remote)] {
            let side = inputs[index].compared
            let holds = index == 1 ? plan.sidesHold.local : plan.sidesHold.remote
            if let heads, heads.detection.codePage == basePage, holds, let sideHeads = side.headsDetection, sideHeads.agrees(with: heads),
               try side.unreadElementsHold(heads) {
                continue
            }
            let sidePage = try inputs[index].codePage(telling: false)
            guard sidePage == basePage else {
                throw BriefcaseError(.invalidModel, "\(path) reads as \(sidePage.name), \(base) as \(basePage.name): 8-bit text such as '\(text)' would not mean the same (give --encoding)")
            }
        }
        return basePage
    }

    /// Writes the report, tells the conflicts, and exits 1 under `--strict` when a rule resolved one.
    func finish(report lines: String, conflicts: Int, resolvedByRule: Int) throws {
        if let report { try FileIO.writeAtomically(Array(lines.utf8), to: report, replacing: force) }
        if conflicts > 0 {
            Console.note("\(output): \(conflicts) conflict(s) resolved (\(resolvedByRule) by a field's rule)" + (report.map { "; see \($0)" } ?? ""))
        }
        if strict && resolvedByRule > 0 { throw ExitCode(1) }
    }

    /// One JSON object per conflict: table, key (its fields and values), field, base, local,
    /// remote, rule, outcome; values as the JSON document writes them.
    static func reportLines(_ conflicts: [ThreeWayMerge.Conflict], codePage: CodePage) -> String {
        func name(_ bytes: ByteString) -> String { string(codePage.decodeForDisplay(bytes)) }
        return conflicts.map { conflict in
            func value(_ v: Value?) -> String { conflict.field.map { JSONDocumentValue.text(v, type: $0.type, codePage: codePage) } ?? "null" }
            let key = "{" + zip(conflict.keyFields, conflict.key).map { "\(name($0.name)): \(JSONDocumentValue.text($1, type: $0.type, codePage: codePage))" }
                .joined(separator: ", ") + "}"
            let members = [("table", name(conflict.table)), ("key", key), ("field", conflict.field.map { name($0.name) } ?? "null"),
                           ("base", value(conflict.base)), ("local", value(conflict.local)), ("remote", value(conflict.remote)),
                           ("rule", conflict.rule.map { string($0.rawValue) } ?? "null"), ("outcome", string(conflict.outcome))]
            return reportLine(members)
        }.joined()
    }

    /// One report line: the members in order, values already JSON.
    static func reportLine(_ members: [(String, String)]) -> String {
        "{" + members.map { "\(string($0.0)): \($0.1)" }.joined(separator: ", ") + "}\n"
    }

    /// `text` as a JSON string.
    static func string(_ text: String) -> String {
        var out: [UInt8] = []
        JSONEmit.appendString(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
