// The snapshot document as a sink (Spec/datastore-mapping.md §2.3): the streamed export fed by
// any source — a binary briefcase on disk element by element, or a decoded document.

import JSONCore
import BriefcaseJSON
import BriefcaseKit

/// Writes the snapshot document of what a source reads into `writer`: the export needs every
/// element's head first (table and field ids), and takes the elements in its own order
/// (`SnapshotExportStream.order(heads:)`: deltas counted first, then each table with its
/// deltas), so memory holds one table with its deltas. `finish` writes the end of the document,
/// flushes the writer and keeps the summary (limits broken, warnings); `abandon` forgets what was
/// written.
public struct SnapshotSink<Output: ResettableByteSink>: BriefcaseSink {
    /// The writer of the document (its sink is the output).
    public var writer: JSONWriter<Output>
    /// After `finish`: revision and counts, warnings, and every broken size or count limit.
    public private(set) var summary: SnapshotExportSummary?
    private var heads: [Element] = []
    private var export: SnapshotExportStream?

    /// `bufferSize`: how many bytes the writer gathers before handing them to `output`.
    public init(output: Output, bufferSize: Int = 1 << 16) {
        writer = JSONWriter(sink: output, bufferSize: bufferSize)
    }

    /// True: the export needs every element's head first (table and field ids).
    public var needs: SinkNeeds { SinkNeeds(headsFirst: true) }

    /// Keeps the heads and returns the order the export takes the elements in.
    public mutating func prepare(heads: [Element]) throws(BriefcaseError) -> [Int]? {
        self.heads = heads
        return SnapshotExportStream.order(heads: heads)
    }

    /// Writes the start of the document for the briefcase's head.
    public mutating func begin(_ head: BriefcaseHead) throws(BriefcaseError) {
        summary = nil
        export = SnapshotExportStream(heads: heads, container: head.container, properties: head.properties,
                                      headerPadding: head.headerPadding, codePage: head.codePage)
    }

    /// Writes one element's rows or changes (sources that know no positions).
    public mutating func element(_ element: Element) throws(BriefcaseError) {
        throw BriefcaseError(.invalidModel, "internal: a snapshot is written from a source that gives positions")
    }

    /// Writes the element at stream position `position`'s rows or changes.
    public mutating func element(_ element: Element, at position: Int) throws(BriefcaseError) {
        try export!.consume(position, element, to: &writer)
    }

    /// Writes the end of the document, flushes the writer and keeps the summary.
    public mutating func finish() throws(BriefcaseError) {
        summary = try export!.finish(to: &writer)
        do {
            try writer.flush()
        } catch {
            throw error as? BriefcaseError ?? BriefcaseError(.io, "cannot write: \(error)")
        }
    }

    /// Forgets what was written, so that the source can begin again.
    public mutating func abandon() {
        export = nil
        try? writer.reset()
    }
}
