import JSONCore
import BriefcaseDatastore
import BriefcaseJSON
import BriefcaseKit

/// `convert … x.snapshot.json`: the briefcase as a datastore snapshot document
/// (Spec/datastore-mapping.md), mapped and written table by table through the atomic output
/// (gzip for a `.gz` name). Limit violations are known only at the end: when they are refused,
/// the output is discarded, so nothing is left behind.
enum SnapshotOutput {
    /// The snapshot of a binary briefcase on disk, element by element (memory: the index and one
    /// table with its deltas). For `StreamingConversion.convert` to call for a
    /// `.snapshot` output without `--skip-damaged`; the caller reports `report` (code page note,
    /// decoding warnings) as for JSON. Same bytes as `write(_ loaded:…)` of the decoded document.
    static func write(_ elements: BriefcaseElements, encoding: CodePage?, inputPath: String, to output: String,
                      ignoreLimits: Bool, progress: ProgressBar?) throws -> ElementConversionReport {
        var atomic = try AtomicOutput(path: output)
        do {
            var sink = try AtomicOutputSink(output: atomic, gzip: GzipOutput.wanted(output))
            sink.progress = progress
            var result = try SnapshotExport.stream(elements, into: sink, encoding: encoding, canRestart: output != "-")
            atomic = result.sink.output
            try check(result.summary, inputPath: inputPath, output: output, ignoreLimits: ignoreLimits)
            try result.sink.finish()
            try atomic.commit()
            return result.report
        } catch {
            atomic.discard()
            throw error
        }
    }

    /// Prints the mapping's warnings, and its limit violations: as warnings with
    /// `--ignore-limits`, else as errors, throwing the last (the caller discards the output).
    private static func check(_ summary: SnapshotExportSummary, inputPath: String, output: String, ignoreLimits: Bool) throws {
        for warning in summary.warnings { Console.warning("\(inputPath): \(warning)") }
        guard let last = summary.limitViolations.last else { return }
        if ignoreLimits {
            for violation in summary.limitViolations {
                Console.warning("\(output): \(violation) (written anyway: --ignore-limits)")
            }
        } else {
            for violation in summary.limitViolations.dropLast() { Console.error("\(output): \(violation)") }
            var error = BriefcaseError(.invalidData, last.message + "; refused (--ignore-limits writes it anyway)", file: output)
            error.element = last.element
            throw error
        }
    }

    static func write(_ loaded: LoadedBriefcase, to output: String, ignoreLimits: Bool, progress: ProgressBar?) throws {
        var atomic = try AtomicOutput(path: output)
        do {
            var sink = try AtomicOutputSink(output: atomic, gzip: GzipOutput.wanted(output))
            sink.progress = progress
            var (written, summary) = try SnapshotExport.stream(loaded.document, codePage: loaded.codePage, into: sink)
            atomic = written.output
            try check(summary, inputPath: loaded.path, output: output, ignoreLimits: ignoreLimits)
            try written.finish()
            try atomic.commit()
        } catch {
            atomic.discard()
            throw error
        }
    }
}
