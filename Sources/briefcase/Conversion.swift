import ArgumentParser
import BriefcaseDatastore
import BriefcaseJSON
import BriefcaseKit

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
    let ignoreLimits: Bool
    let progress: ProgressBar?

    func run() throws {
        // A JSON input shows its own progress (the offset read), not the bytes written.
        let writing = inputFormat == .json ? nil : progress
        switch outputFormat {
        case .dabriefcase, .bin2:
            var sink = try BinaryConversionOutput(path: output, container: outputFormat.container!)
            try convert(into: &sink)
        case .json:
            var sink = try JSONConversionOutput(path: output, encoding: encoding, progress: writing)
            try convert(into: &sink)
        case .folder:
            guard output != "-" else { throw ValidationError("a folder briefcase cannot be written to standard output") }
            var sink = FolderConversionOutput(path: output)
            try convert(into: &sink)
        case .snapshot:
            var sink = try SnapshotConversionOutput(path: output, inputPath: input, ignoreLimits: ignoreLimits, progress: writing)
            try convert(into: &sink)
        }
    }

    private func convert<Sink: ConversionOutput>(into sink: inout Sink) throws {
        do {
            switch inputFormat {
            case .dabriefcase, .bin2, .folder: try readElements(into: &sink)
            case .json: try readJSON(into: &sink)
            case .snapshot:
                let loaded = try SnapshotInput.load(input)
                try loaded.document.read(into: &sink, codePage: loaded.codePage)
            }
        } catch let error as BriefcaseError {
            sink.discard()
            // Errors of writing (the model refused by the writer, I/O) name the output; of reading, the input.
            guard error.file == nil else { throw error }
            throw error.kind == .invalidModel || error.kind == .io ? error.inFile(output) : error.inFile(input)
        } catch {
            sink.discard()
            throw error
        }
    }

    // MARK: binary and folder inputs

    /// A binary briefcase on disk (standard input and gzip spooled first) or a folder, read by
    /// offset element by element into the sink.
    private func readElements<Sink: BriefcaseSink>(into sink: inout Sink) throws {
        let (elements, given, folderNote, spooled) = try openElements()
        BriefcaseElements.keepFreedMemoryForReuse() // each table reuses the memory of the one before
        let textOutput = outputFormat.container == nil
        do throws(BriefcaseError) {
            if skipDamaged && sink.needsHeads {
                // The heads of damaged elements cannot be read: the readable elements, whole.
                var collector = BriefcaseCollector()
                let result = try elements.read(into: &collector, encoding: given, skipDamaged: true)
                report(result, folderNote: folderNote, spooled: spooled)
                try collector.document!.read(into: &sink, codePage: result.codePage)
            } else {
                // A binary output writes bytes as they are: no code page to detect.
                let result = try elements.read(into: &sink, encoding: textOutput ? given : given ?? .utf8, skipDamaged: skipDamaged,
                                               canRestart: output != "-")
                report(result, folderNote: textOutput ? folderNote : nil, spooled: spooled)
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
    private func openElements() throws -> (BriefcaseElements, CodePage?, String?, SpooledInput?) {
        do {
            if inputFormat == .folder {
                let briefcase = try Briefcase.openFolder(input, codePage: encoding)
                let note = encoding == nil && briefcase.codePage != .utf8
                    ? "\(input): 8-bit strings read as \(briefcase.codePage.name) (override with --encoding)" : nil
                return (BriefcaseElements(briefcase), briefcase.codePage, note, nil)
            }
            let container = inputFormat.container!
            guard input == "-" || GzipInput.isGzipped(input) else {
                return (try BriefcaseElements.open(input, as: container), encoding, nil, nil)
            }
            let spooled = try GzipInput.spool(input, as: inputFormat)
            do throws(BriefcaseError) {
                return (try BriefcaseElements.open(spooled.path, as: container), encoding, nil, spooled)
            } catch {
                throw spooled.relabel(error)
            }
        } catch let error as BriefcaseError {
            throw error.file == nil ? error.inFile(input) : error
        }
    }

    /// The code page chosen (on text outputs), decoding warnings and the elements left out.
    private func report(_ result: ElementConversionReport, folderNote: String?, spooled: SpooledInput?) {
        if outputFormat.container == nil {
            if let folderNote { Console.note(folderNote) }
            if let detection = result.detection, detection.codePage != .utf8 {
                Console.note("\(input): 8-bit strings read as \(detection.codePage.name): \(detection.reason) (override with --encoding)")
                if let hint = detection.hint { Console.note("\(input): \(hint)") }
            }
        }
        for warning in result.warnings { Console.warning("\(input): \(warning)") }
        for var skipped in result.skipped {
            if let spooled { skipped.error = spooled.relabel(skipped.error) }
            Console.warning("\(skipped.error.file ?? input): \(skipped)")
        }
        if !result.skipped.isEmpty {
            Console.warning("\(input): --skip-damaged: \(result.skipped.count) damaged element(s) left out of '\(output)'")
        }
    }

    // MARK: JSON input

    /// The document mapped (standard input and gzip spooled first) and read as it comes, its
    /// pages dropped behind the reader; whole for a sink that needs every head first.
    private func readJSON<Sink: BriefcaseSink>(into sink: inout Sink) throws {
        let spooled: SpooledInput?
        let mapped: MappedFile
        do {
            spooled = input == "-" || GzipInput.isGzipped(input) ? try GzipInput.spool(input, as: .json) : nil
            mapped = try MappedFile(path: spooled?.path ?? input)!
        } catch {
            throw error.file == nil ? error.inFile(input) : error
        }
        do {
            try withExtendedLifetime(mapped) { () throws(BriefcaseError) in
                if sink.needsHeads {
                    let (document, named) = try JSONDocumentDecoder().decodeNamingCodePage(mapped.bytes)
                    try document.read(into: &sink, codePage: encoding ?? named)
                    return
                }
                let total = mapped.count
                var reader = JSONStreamReader(mapped.bytes)
                reader.consumed = { offset in
                    mapped.release(upTo: offset)
                    progress?.update("converting", done: offset, total: total)
                }
                try reader.read(into: &sink)
            }
        } catch {
            // Errors of the spooled copy are told about the input, their offsets in decompressed data.
            guard let spooled, error.file == nil || error.file == input else { throw error }
            throw error.kind == .invalidModel || error.kind == .io ? error : spooled.relabel(error)
        }
    }
}
