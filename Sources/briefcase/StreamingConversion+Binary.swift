import BriefcaseJSON
import BriefcaseKit
import Foundation

/// `convert` out of a binary briefcase on disk (dabriefcase, bin2, folder) element by element
/// (Spec/robustness.md, "Streaming conversion"): JSON and folder outputs are written as each
/// element is decoded, and so are snapshots (without `--skip-damaged`), so memory holds the
/// index and one table, not the whole model.
/// `--skip-damaged` (an element whose bytes do not decode is left out and listed) works for
/// every output: the formats not streamed get a document built from the readable elements.
enum StreamingConversion {
    enum Outcome {
        /// Written.
        case done
        /// The readable elements as a document, for an output written as a whole (its notes,
        /// warnings and skipped elements already reported).
        case loaded(LoadedBriefcase)
        /// Not for this path: read the input as a whole (`InputLoader`).
        case notStreamed
    }

    static func convert(input: String, format: FileFormat, output: String, outputFormat: FileFormat,
                        encoding: CodePage?, skipDamaged: Bool, ignoreLimits: Bool, progress: ProgressBar?) throws -> Outcome {
        // (A snapshot with --skip-damaged is made from the readable elements' document.)
        let streamed = outputFormat == .json || (outputFormat == .folder && output != "-") || (outputFormat == .snapshot && !skipDamaged)
        guard streamed || skipDamaged, [.dabriefcase, .bin2, .folder].contains(format) else { return .notStreamed }
        let announce = [.json, .folder, .snapshot].contains(outputFormat) // where text is written
        let (elements, given, folderNote, spooled) = try open(input, format: format, encoding: encoding)
        BriefcaseElements.keepFreedMemoryForReuse() // each table reuses the memory of the one before
        func report(_ result: ElementConversionReport) {
            if announce {
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
        do {
            switch outputFormat {
            case .json:
                report(try writeJSON(elements, to: output, encoding: given, skipDamaged: skipDamaged, progress: progress))
            case .snapshot where !skipDamaged:
                report(try SnapshotOutput.write(elements, encoding: given, inputPath: input, to: output,
                                                ignoreLimits: ignoreLimits, progress: progress))
            case .folder where output != "-":
                var result: ElementConversionReport?
                try FolderOutput.write(to: output) { temporary in
                    result = try elements.writeFolder(to: temporary, encoding: given, skipDamaged: skipDamaged)
                }
                report(result!)
            default:
                var collector = BriefcaseCollector()
                let result = try elements.read(into: &collector, encoding: given, skipDamaged: skipDamaged)
                report(result)
                return .loaded(LoadedBriefcase(path: input, format: format, document: collector.document!,
                                               codePage: result.codePage, warnings: []))
            }
        } catch let error as BriefcaseError {
            if let spooled, error.file == spooled.path { throw spooled.relabel(error) }
            throw error.file == nil ? error.inFile(output) : error
        }
        return .done
    }

    /// The input opened for reading element by element, the code page to write with when it is
    /// decided already (given, or a folder's), and the note a folder's code page gets. Standard
    /// input and gzip inputs cannot be read in place: they are spooled (inflated) into an unlinked
    /// temporary file first (`GzipInput.spool`), whose errors are told about the input.
    private static func open(_ path: String, format: FileFormat, encoding: CodePage?) throws
        -> (BriefcaseElements, CodePage?, String?, SpooledInput?) {
        do {
            if format == .folder {
                let briefcase = try Briefcase.openFolder(path, codePage: encoding)
                let note = encoding == nil && briefcase.codePage != .utf8
                    ? "\(path): 8-bit strings read as \(briefcase.codePage.name) (override with --encoding)" : nil
                return (BriefcaseElements(briefcase), briefcase.codePage, note, nil)
            }
            let container = format.container!
            guard path == "-" || GzipInput.isGzipped(path) else {
                return (try BriefcaseElements.open(path, as: container), encoding, nil, nil)
            }
            let spooled = try GzipInput.spool(path, as: format)
            do throws(BriefcaseError) {
                return (try BriefcaseElements.open(spooled.path, as: container), encoding, nil, spooled)
            } catch {
                throw spooled.relabel(error)
            }
        } catch let error as BriefcaseError {
            throw error.file == nil ? error.inFile(path) : error
        }
    }

    /// The JSON document, element by element, into an atomic output (temporary file + rename;
    /// gzip for a `.gz` name; `-` for standard output).
    static func writeJSON(_ elements: BriefcaseElements, to output: String, encoding: CodePage?, skipDamaged: Bool,
                          progress: ProgressBar?) throws -> ElementConversionReport {
        var atomic = try AtomicOutput(path: output)
        do {
            var target = try AtomicOutputSink(output: atomic, gzip: GzipOutput.wanted(output))
            target.progress = progress
            var encoder = JSONDocumentEncoder(sink: target, codePage: .utf8)
            let report = try elements.read(into: &encoder, encoding: encoding, skipDamaged: skipDamaged, canRestart: output != "-")
            try encoder.writer.sink.finish()
            atomic = encoder.writer.sink.output
            try atomic.commit()
            return report
        } catch {
            atomic.discard()
            throw error
        }
    }
}
