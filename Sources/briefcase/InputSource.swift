import BriefcaseDatastore
import BriefcaseJSON
import BriefcaseKit
import BriefcaseSQLite

/// An input of any format opened as a source (README, "Architecture"): a binary briefcase on disk
/// (standard input and gzip spooled first) or a folder, read by offset element by element; a JSON
/// document mapped and read as it comes; a snapshot document read as a model. `convert`, `cat`
/// and `info` read through it.
struct InputSource {
    let path: String
    let format: FileFormat
    let encoding: CodePage?
    var skipDamaged = false
    /// Elements decoded at once (`--jobs`).
    var jobs = 1
    var progress: ProgressBar?
    /// The output, named in the `--skip-damaged` summary.
    var output: String?

    /// Reads the input into `sink`, reporting on standard error the code page chosen (when the
    /// output is text, `textOutput`), the decoding warnings and the elements left out. A sink
    /// that needs every head first gets a document read whole from a source that cannot give
    /// them first (JSON as it arrives), or from a damaged input with `skipDamaged`.
    /// For a sink that cannot fail itself (`cat`, `info`): every error names the input.
    func readNamingInput<Sink: BriefcaseSink>(into sink: inout Sink, textOutput: Bool) throws {
        do {
            try read(into: &sink, textOutput: textOutput)
        } catch let error as BriefcaseError where error.file == nil {
            throw error.inFile(path)
        }
    }

    func read<Sink: BriefcaseSink>(into sink: inout Sink, textOutput: Bool, canRestart: Bool = true) throws {
        switch format {
        case .dabriefcase, .bin2, .folder: try readElements(into: &sink, textOutput: textOutput, canRestart: canRestart)
        case .json: try readJSON(into: &sink)
        case .snapshot: try readSnapshot(into: &sink)
        case .sqlite: try readSQLite(into: &sink)
        }
    }


    /// A binary briefcase on disk (standard input and gzip spooled first) or a folder, read by
    /// offset element by element into the sink.
    private func readElements<Sink: BriefcaseSink>(into sink: inout Sink, textOutput: Bool, canRestart: Bool) throws {
        try readElements(try openElements(), into: &sink, textOutput: textOutput, canRestart: canRestart)
    }

    /// The same, the input opened already (`openElements`).
    func readElements<Sink: BriefcaseSink>(_ opened: Opened, into sink: inout Sink, textOutput: Bool, canRestart: Bool) throws {
        let (elements, given, folderNote, spooled) = (opened.elements, opened.given, opened.folderNote, opened.spooled)
        BriefcaseElements.keepFreedMemoryForReuse() // each table reuses the memory of the one before
        do throws(BriefcaseError) {
            if skipDamaged && sink.needs.headsFirst {
                // The heads of damaged elements cannot be read: the readable elements, whole.
                var collector = BriefcaseCollector()
                let result = try elements.read(into: &collector, encoding: given, skipDamaged: true, jobs: jobs)
                report(result, textOutput: textOutput, folderNote: folderNote, spooled: spooled)
                try collector.document!.read(into: &sink, codePage: result.codePage)
            } else {
                // A binary output writes bytes as they are: no code page to detect.
                let result = try elements.read(into: &sink, encoding: textOutput ? given : given ?? .utf8, skipDamaged: skipDamaged,
                                               canRestart: canRestart, jobs: jobs)
                report(result, textOutput: textOutput, folderNote: folderNote, spooled: spooled)
            }
        } catch {
            if let spooled, error.file == spooled.path { throw spooled.relabel(error) }
            throw error
        }
    }

    /// The input opened for reading element by element, the code page to write with when it is
    /// decided already (given, or a folder's), and the note a folder's code page gets. Standard
    /// input and gzip inputs cannot be read in place: they are spooled (inflated) into an unlinked
    /// temporary file first (`GzipInput.spool`), whose errors are told about the input.
    func openElements() throws -> Opened {
        do {
            if format == .folder {
                let briefcase = try Briefcase.openFolder(path, codePage: encoding)
                let note = encoding == nil && briefcase.codePage != .utf8
                    ? "\(path): 8-bit strings read as \(briefcase.codePage.name) (override with --encoding)" : nil
                return Opened(elements: BriefcaseElements(briefcase), given: briefcase.codePage, folderNote: note, spooled: nil)
            }
            let (readable, spooled) = try Self.readable(path, as: format)
            do throws(BriefcaseError) {
                return Opened(elements: try BriefcaseElements.open(readable, as: format.container!), given: encoding, folderNote: nil,
                              spooled: spooled)
            } catch {
                throw spooled?.relabel(error) ?? error
            }
        } catch let error as BriefcaseError {
            throw error.file == nil ? error.inFile(path) : error
        }
    }

    /// A binary input opened for reading element by element (`openElements`).
    struct Opened {
        let elements: BriefcaseElements
        /// The code page to write with when it is decided already (given, or a folder's).
        let given: CodePage?
        /// The note a folder's code page gets.
        let folderNote: String?
        /// The spooled copy of standard input or a gzip input.
        let spooled: SpooledInput?

        /// The same with `edits` made to its elements.
        func editing(_ edits: ElementEdits) throws(BriefcaseError) -> Opened {
            Opened(elements: try elements.edited(edits), given: given, folderNote: folderNote, spooled: spooled)
        }
    }

    /// The input as a file read in place: itself, or — standard input and gzip — spooled
    /// (inflated) into an unlinked temporary file first (`GzipInput.spool`). Every command that
    /// reads a file opens it here, `validate` too.
    static func readable(_ path: String, as format: FileFormat?) throws(BriefcaseError) -> (path: String, spooled: SpooledInput?) {
        guard path == "-" || GzipInput.isGzipped(path) else { return (path, nil) }
        let spooled = try GzipInput.spool(path, as: format)
        return (spooled.path, spooled)
    }

    /// The code page chosen (on text outputs), decoding warnings and the elements left out.
    func report(_ result: ElementConversionReport, textOutput: Bool, folderNote: String?, spooled: SpooledInput?) {
        if textOutput {
            if let folderNote { Console.note(folderNote) }
            if let detection = result.detection, detection.codePage != .utf8 {
                Console.note("\(path): 8-bit strings read as \(detection.codePage.name): \(detection.reason) (override with --encoding)")
                if let hint = detection.hint { Console.note("\(path): \(hint)") }
            }
        }
        for warning in result.warnings { Console.warning("\(path): \(warning.unescapedDescription)") }
        for var skipped in result.skipped {
            if let spooled { skipped.error = spooled.relabel(skipped.error) }
            Console.warning("\(skipped.error.file ?? path): \(skipped.unescapedDescription)")
        }
        if !result.skipped.isEmpty {
            Console.warning("\(path): --skip-damaged: \(result.skipped.count) damaged element(s) left out of '\(output ?? "the output")'")
        }
    }

    // MARK: JSON input

    /// The document mapped (standard input and gzip spooled first) and read as it comes, its
    /// pages dropped behind the reader; whole for a sink that needs every head first.
    private func readJSON<Sink: BriefcaseSink>(into sink: inout Sink) throws {
        try withMappedInput(as: .json) { mapped throws(BriefcaseError) in
            if sink.needs.headsFirst {
                let (document, named) = try JSONDocumentDecoder().decodeNamingCodePage(mapped.bytes)
                try document.read(into: &sink, codePage: encoding ?? named)
                return
            }
            let total = mapped.count
            var reader = JSONStreamReader(mapped.bytes)
            reader.jobs = jobs
            reader.scanned = { mapped.release($0) }
            reader.consumed = { offset in
                mapped.release(upTo: offset)
                progress?.update("converting", done: offset, total: total)
            }
            // The text is written in the code page given, else in the one the document names.
            var overriding = CodePageOverride(sink, codePage: encoding)
            defer { sink = overriding.inner }
            try reader.read(into: &overriding)
        }
    }

    /// A snapshot document mapped, its rows read as they come when this tool wrote it
    /// (`SnapshotImport.read`), its pages let go once read.
    private func readSnapshot<Sink: BriefcaseSink>(into sink: inout Sink) throws {
        try withMappedInput(as: .snapshot) { mapped throws(BriefcaseError) in
            let total = mapped.count
            let reading = try SnapshotImport.read(mapped.bytes, into: &sink, scanned: { mapped.release($0) }, read: { offset in
                mapped.release(upTo: offset)
                progress?.update("converting", done: offset, total: total)
            })
            for warning in reading.warnings { Console.warning("\(path): \(warning)") }
        }
    }

    /// The input mapped for `body` (standard input and gzip spooled first); the errors of a
    /// spooled copy are told about the input, their offsets in decompressed data.
    private func withMappedInput(as format: FileFormat, _ body: (MappedFile) throws(BriefcaseError) -> Void) throws {
        let spooled: SpooledInput?
        let mapped: MappedFile
        do {
            let readable: String
            (readable, spooled) = try Self.readable(path, as: format)
            mapped = try MappedFile(path: readable)!
        } catch {
            throw error.file == nil ? error.inFile(path) : error
        }
        do {
            try withExtendedLifetime(mapped) { () throws(BriefcaseError) in try body(mapped) }
        } catch {
            guard let spooled, error.file == nil || error.file == path else { throw error }
            throw error.kind == .invalidModel || error.kind == .io ? error : spooled.relabel(error)
        }
    }

    // MARK: SQLite input

    /// A database this mapping wrote, opened read-only; the edits made in its current-rows tables
    /// become pending changes (Spec/sqlite-mapping.md §5), each edited table told on standard error.
    private func readSQLite<Sink: BriefcaseSink>(into sink: inout Sink) throws {
        try GzipInput.refuseFolder(.sqlite, path)
        let source = try SQLiteSource(path: path)
        for edits in try source.read(into: &sink, encoding: encoding) {
            if edits.hasEdits {
                Console.note("\(path): table '\(edits.table)': \(edits.inserts) inserted, \(edits.updates) updated, \(edits.deletes) deleted row(s) recorded as pending changes")
            }
            for note in edits.notes { Console.note("\(path): \(note)") }
        }
    }
}
