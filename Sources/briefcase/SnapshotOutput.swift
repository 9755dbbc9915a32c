import BriefcaseDatastore
import BriefcaseJSON
import BriefcaseKit

/// `convert … x.snapshot.json`: the briefcase as a datastore snapshot document
/// (Spec/datastore-mapping.md), streamed through the atomic output (gzip for a `.gz` name).
enum SnapshotOutput {
    static func write(_ loaded: LoadedBriefcase, to output: String, ignoreLimits: Bool, progress: ProgressBar?) throws {
        let export = try SnapshotExport(loaded.document, codePage: loaded.codePage)
        for warning in export.warnings { Console.warning("\(loaded.path): \(warning)") }
        if !export.limitViolations.isEmpty {
            if ignoreLimits {
                for violation in export.limitViolations {
                    Console.warning("\(output): \(violation) (written anyway: --ignore-limits)")
                }
            } else {
                for violation in export.limitViolations.dropLast() { Console.error("\(output): \(violation)") }
                var last = BriefcaseError(.invalidData, export.limitViolations.last!.message + "; refused (--ignore-limits writes it anyway)", file: output)
                last.element = export.limitViolations.last!.element
                throw last
            }
        }
        var atomic = try AtomicOutput(path: output)
        do {
            var sink = try AtomicOutputSink(output: atomic, gzip: GzipOutput.wanted(output))
            sink.progress = progress
            var writer = JSONWriter(sink: sink)
            try export.write(to: &writer)
            try writer.flush()
            try writer.sink.finish()
            atomic = writer.sink.output
            try atomic.commit()
        } catch {
            atomic.discard()
            throw error
        }
    }
}
