// The snapshot of a briefcase on disk, read element by element (`BriefcaseElements`): memory
// holds the index and one table with its deltas, never the whole model. Same bytes as
// `SnapshotExport.stream` of the document `BriefcaseDocument.decode` gives (the elements come
// in that order, and the code page is detected as `CodePage.detect(in:)` would, starting over
// in the rare case a later element contradicts the choice made from the heads).

import JSONCore
import BriefcaseJSON
import BriefcaseKit

extension SnapshotExport {
    /// What `stream(_:into:encoding:canRestart:)` wrote and met.
    public struct ElementsResult<S: ResettableByteSink> {
        /// The output the document was written to (flushed).
        public var sink: S
        /// The document's revision and counts, its warnings and the limits it breaks.
        public var summary: SnapshotExportSummary
        /// The code page used, its detection and the decoding warnings.
        public var report: ElementConversionReport
    }

    /// Streams the snapshot document of `elements` into `output` (a `SnapshotSink` fed by the
    /// elements; emptied and written again when the code page must be chosen again).
    /// `encoding` forces the code page. Damaged elements stop it with their error (no
    /// `--skip-damaged` here: the CLI builds a document of the readable elements for that).
    /// `jobs`: elements decoded at once, as in `BriefcaseElements.read(into:…)` (same bytes).
    public static func stream<S: ResettableByteSink>(_ elements: BriefcaseElements, into output: S, encoding: CodePage?,
                                                     canRestart: Bool = true, jobs: Int = 1) throws(BriefcaseError) -> ElementsResult<S>
    {
        var sink = SnapshotSink(output: output)
        let report = try elements.read(into: &sink, encoding: encoding, skipDamaged: false, canRestart: canRestart, jobs: jobs)
        return ElementsResult(sink: sink.writer.sink, summary: sink.summary!, report: report)
    }
}
