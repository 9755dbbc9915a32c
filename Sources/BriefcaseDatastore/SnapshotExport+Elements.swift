// The snapshot of a briefcase on disk, read element by element (`BriefcaseElements`): memory
// holds the index and one table with its deltas, never the whole model. Same bytes as
// `SnapshotExport.stream` of the document `BriefcaseDocument.decode` gives (the elements come
// in that order, and the code page is detected as `CodePage.detect(in:)` would, starting over
// in the rare case a later element contradicts the choice made from the heads).

import JSONCore
import BriefcaseJSON
import BriefcaseKit

extension SnapshotExport {
    /// What `stream(_:encoding:makeSink:discard:)` wrote and met.
    public struct ElementsResult<S: ByteSink> {
        /// The sink the document was written to (flushed).
        public var sink: S
        public var summary: SnapshotExportSummary
        /// The code page used, its detection and the decoding warnings.
        public var report: ElementConversionReport
    }

    /// Streams the snapshot document of `elements` into a sink made by `makeSink` (made again
    /// after `discard` when the code page must be chosen again). `encoding` forces the code page.
    /// Damaged elements stop it with their error (no `--skip-damaged` here: the CLI builds a
    /// document of the readable elements for that).
    public static func stream<S: ByteSink>(_ elements: BriefcaseElements, encoding: CodePage?, canRestart: Bool = true,
                                           makeSink: () throws -> S, discard: (inout S) -> Void) throws -> ElementsResult<S>
    {
        let heads = try elements.elements.indices.map { (i) throws(BriefcaseError) in try elements.head(i) }
        var writer: JSONWriter<S>?
        var export: SnapshotExportStream?
        let report = try elements.convert(
            encoding: encoding, skipDamaged: false, canRestart: canRestart, order: SnapshotExportStream.order(heads: heads),
            start: { codePage in
                writer = JSONWriter(sink: try makeSink())
                export = SnapshotExportStream(heads: heads, container: elements.container, properties: elements.properties,
                                              headerPadding: elements.headerPadding, codePage: codePage)
            },
            consume: { index, element in try export!.consume(index, element, to: &writer!) },
            abandon: {
                if writer != nil { discard(&writer!.sink) }
                writer = nil
                export = nil
            })
        guard let export, var written = writer else {
            throw BriefcaseError(.invalidModel, "internal: the conversion of the elements did not start")
        }
        do {
            let summary = try export.finish(to: &written)
            try written.flush()
            return ElementsResult(sink: written.sink, summary: summary, report: report)
        } catch {
            discard(&written.sink)
            throw error
        }
    }
}
