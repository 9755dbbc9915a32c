import ArgumentParser
import BriefcaseDiff
import BriefcaseKit
import BriefcaseSQLite

/// One side of `diff` as printed: its label, the code page of its 8-bit text, and its elements'
/// heads (names and fields: what the SQL layout of its export needs).
struct DiffSide {
    let path: String
    let codePage: CodePage
    let heads: Bin2Stream
}

/// An input of `diff` and `merge` (Spec/diff.md §1, §8; Spec/merge.md §3): a binary briefcase on
/// disk — a `.daBriefcase`, a bare Bin2 stream, a folder; standard input and gzip spooled first —
/// read table by table as the comparison or the merge reaches it, each table let go once done
/// with; any other format read whole.
struct TablesInput {
    let label: String
    let compared: BriefcaseTables
    let reading: Reading

    enum Reading {
        /// Read whole: its code page known, its notes and warnings told.
        case whole(BriefcaseDocument, CodePage)
        /// Read table by table: told once compared.
        case elements(InputSource, InputSource.Opened)
    }

    /// `path` opened as `options` say, shown as `label` (default: the path); its code page
    /// checked as it is read, or — not `checkingAsRead` — when asked (`codePage(telling:)`).
    init(_ path: String, options: InputOptions, label: String? = nil, checkingAsRead: Bool = true) throws {
        self.label = label ?? path
        let source = options.source(path, format: try options.format(of: path))
        switch source.format {
        case .dabriefcase, .bin2, .folder:
            let opened = try source.openElements()
            compared = BriefcaseTables(opened.elements, encoding: opened.given, checkingAsRead: checkingAsRead)
            reading = .elements(source, opened)
        case .json, .snapshot, .sqlite:
            let read = try ReadDocument(path, options: options)
            compared = BriefcaseTables(read.document)
            reading = .whole(read.document, read.codePage)
        }
    }

    /// The briefcase read whole (as `convert` reads it: its code page from every string) into a
    /// database in memory (`query`, when a table's strings contradicted its heads); what reading
    /// it met told as `convert` tells it.
    func written() throws -> SQLiteDatabase {
        var sink = SQLiteSink(path: nil)
        switch reading {
        case .whole(let document, let codePage):
            try document.read(into: &sink, codePage: codePage)
        case .elements(let source, let opened):
            do {
                try source.readElements(opened, into: &sink, textOutput: true, canRestart: true)
            } catch let error as BriefcaseError where error.file == nil {
                throw error.inFile(source.path)
            }
        }
        return sink.database!
    }

    /// An empty briefcase (what is not there), shown as `label`.
    init(empty label: String) {
        self.label = label
        let empty = BriefcaseDocument(container: .dabriefcase, file: BriefcaseFile())
        compared = BriefcaseTables(empty)
        reading = .whole(empty, .utf8)
    }

    /// `a` and `b` compared as `options` say, and each side as printed; its notes and warnings
    /// told on standard error, A's then B's. Trouble — an input that cannot be read, an element
    /// that cannot be decoded — is told as `diff(1)` tells it: one line, exit 2.
    static func compare(_ a: TablesInput, _ b: TablesInput, options: DiffOptions) throws -> (DiffSide, DiffSide, [BriefcaseDifference]) {
        do throws(BriefcaseError) {
            let differences = try BriefcaseComparison.differences(a.compared, b.compared, options: options)
            return (try a.side(), try b.side(), differences)
        } catch {
            throw trouble(a.relabel(b.relabel(error)))
        }
    }

    /// The same, `a` and `b` opened first.
    static func compare(_ a: String, _ b: String, inputOptions: InputOptions, options: DiffOptions) throws -> (DiffSide, DiffSide, [BriefcaseDifference]) {
        let old: TablesInput, new: TablesInput
        do {
            old = try TablesInput(a, options: inputOptions)
            new = try TablesInput(b, options: inputOptions)
        } catch let error as BriefcaseError {
            throw trouble(error)
        }
        return try compare(old, new, options: options)
    }

    /// `error` told, and the exit status of trouble.
    static func trouble(_ error: BriefcaseError) -> ExitCode {
        Console.error(error.description)
        return ExitCode(2)
    }

    /// The side as printed, once compared: what reading it met told, as `convert` tells it.
    private func side() throws(BriefcaseError) -> DiffSide {
        DiffSide(path: label, codePage: try codePage(telling: true), heads: Bin2Stream(elements: compared.heads.compactMap { $0 }))
    }

    /// The code page of its 8-bit text, once read; with `telling`, what reading it met told as
    /// `convert` tells it (an input read whole told it then).
    func codePage(telling: Bool) throws(BriefcaseError) -> CodePage {
        switch reading {
        case .whole(_, let codePage):
            return codePage
        case .elements(let source, let opened):
            let report = try compared.readingReport() ?? ElementConversionReport(codePage: .utf8)
            if telling { source.report(report, textOutput: true, folderNote: opened.folderNote, spooled: opened.spooled) }
            return report.codePage
        }
    }

    /// What reading it met told as `convert` tells it to a binary output: its warnings, no code
    /// page looked for (an input read whole told them then).
    func tellWarnings() throws(BriefcaseError) {
        guard case .elements(let source, let opened) = reading, let warnings = try compared.readingWarnings() else { return }
        var report = ElementConversionReport(codePage: .utf8)
        report.warnings = warnings
        source.report(report, textOutput: false, folderNote: nil, spooled: opened.spooled)
    }

    /// An error of the spooled copy of standard input or a gzip input, told about the input.
    func relabel(_ error: BriefcaseError) -> BriefcaseError {
        guard case .elements(_, let opened) = reading, let spooled = opened.spooled, error.file == spooled.path else { return error }
        return spooled.relabel(error)
    }
}

/// An input read whole (`textconv`; `diff` of a format not read table by table), and the code
/// page its 8-bit text is in.
struct ReadDocument {
    let path: String
    let document: BriefcaseDocument
    let codePage: CodePage

    /// `path` read as `options` say.
    init(_ path: String, options: InputOptions) throws {
        var collector = BriefcaseCollector()
        try options.source(path, format: try options.format(of: path)).readNamingInput(into: &collector, textOutput: true)
        self.path = path
        document = collector.document!
        codePage = collector.head!.codePage
    }

    /// The document as `DiffPrinter` prints a side.
    var side: DiffSide { DiffSide(path: path, codePage: codePage, heads: document.file.stream) }
}
