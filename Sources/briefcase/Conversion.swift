import ArgumentParser
import BriefcaseDatastore
import BriefcaseJSON
import BriefcaseKit
import BriefcaseSQLite

/// `convert`: the input opened as a source, the output made as a sink, and one read from the one
/// into the other (README, "Architecture"). Element by element wherever the formats allow it:
/// memory holds one table (and the input's index), not the whole briefcase. Only a sink that
/// needs every element's head first (folder, snapshot) of a source that cannot give them first
/// (a JSON document read as it arrives), or of a damaged input with `--skip-damaged`, gets a
/// document read whole.
struct Conversion {
    let input: String
    let inputFormat: FileFormat
    let output: String
    let outputFormat: FileFormat
    let encoding: CodePage?
    let skipDamaged: Bool
    let jobs: Int
    let ignoreLimits: Bool
    /// `--force`: the output may replace what is at OUTPUT (a folder only a folder briefcase).
    let replacing: Bool
    let progress: ProgressBar?
    /// What is written: the input as it is (`convert`), or something made of it.
    var content: Content = .input

    /// What a conversion writes.
    enum Content {
        /// The input as it is.
        case input
        /// The input read whole and made into another document, given its code page (`fold`, `apply`).
        case transformed((BriefcaseDocument, CodePage) throws -> BriefcaseDocument)
        /// A binary input, opened already, with some of its elements edited: read element by
        /// element as `convert` reads it (`merge`).
        case edited(InputSource.Opened, ElementEdits)
        /// A document made already, in its code page, in place of the input (which is not read).
        case document(BriefcaseDocument, CodePage)
    }

    func run() throws {
        // A JSON input shows its own progress (the offset read), not the bytes written.
        let writing = inputFormat == .json ? nil : progress
        let watch = InputWatch(input, format: inputFormat)
        defer { watch.stop() }
        switch outputFormat {
        case .dabriefcase, .bin2:
            var sink = try BinaryConversionOutput(path: output, container: outputFormat.container!, replacing: replacing)
            try convert(into: &sink, watching: watch)
        case .json:
            var sink = try JSONConversionOutput(path: output, replacing: replacing, progress: writing)
            try convert(into: &sink, watching: watch)
        case .folder:
            guard output != "-" else { throw ValidationError("a folder briefcase cannot be written to standard output") }
            var sink = try FolderConversionOutput(path: output, replacing: replacing)
            try convert(into: &sink, watching: watch)
        case .sqlite:
            var sink = try SQLiteConversionOutput(path: output, replacing: replacing)
            try convert(into: &sink, watching: watch)
            // Tables and fields whose own names SQL cannot take (Spec/sqlite-mapping.md §2).
            for name in sink.inner.derivedNames { Console.note("\(output): \(name)") }
        case .snapshot:
            var sink = try SnapshotConversionOutput(path: output, replacing: replacing, inputPath: input, ignoreLimits: ignoreLimits,
                                                    progress: writing)
            try convert(into: &sink, watching: watch)
        }
    }

    /// Reads the input into `sink`, then — the input unchanged — moves the output into place.
    private func convert<Sink: ConversionOutput>(into sink: inout Sink, watching watch: InputWatch) throws {
        let source = InputSource(path: input, format: inputFormat, encoding: encoding, skipDamaged: skipDamaged, jobs: jobs,
                                 progress: progress, output: output)
        do {
            let textOutput = outputFormat.container == nil
            switch content {
            case .input:
                try source.read(into: &sink, textOutput: textOutput, canRestart: output != "-")
            case .transformed(let transform):
                var collector = BriefcaseCollector()
                try source.read(into: &collector, textOutput: textOutput)
                let codePage = collector.head!.codePage
                try transform(collector.document!, codePage).read(into: &sink, codePage: codePage)
            case .edited(let opened, let edits):
                try source.readElements(opened.editing(edits), into: &sink, textOutput: textOutput, canRestart: output != "-")
            case .document(let document, let codePage):
                try document.read(into: &sink, codePage: codePage)
            }
            try watch.check()
            try sink.commit()
        } catch let error as BriefcaseError {
            sink.discard()
            // Something put at OUTPUT while converting, without --force: the answer to an OUTPUT there at the start.
            if error.isOutputExists { throw UsageError("'\(output)' exists; use --force to replace it") }
            // Errors of writing (the model refused by the writer, I/O) name the output; of reading, the input.
            guard error.file == nil else { throw error }
            throw error.kind == .invalidModel || error.kind == .io ? error.inFile(output) : error.inFile(input)
        } catch {
            sink.discard()
            throw error
        }
    }
}

extension Conversion {
    /// `content`, made of `input` (read as `options` say), written to `output` in `format` as
    /// `convert` writes: what `fold`, `apply` and `merge` run.
    init(_ content: Content, of input: String, into output: String, format: FileFormat, options: InputOptions, replacing: Bool) throws {
        self.init(input: input, inputFormat: try options.format(of: input), output: output, outputFormat: format,
                  encoding: options.encoding.codePage, skipDamaged: false, jobs: options.jobs.count, ignoreLimits: false,
                  replacing: replacing, progress: nil)
        self.content = content
    }
}

