// Feeding a streamed snapshot export (Spec/datastore-mapping.md §2.3): the heads of every
// element first (names and columns, to choose the table and field ids), then the elements
// whole in `SnapshotExportStream.order(heads:)`: every delta, whose changes are only counted
// (the count fixes the revision written first), then each table in stream order followed by
// its deltas again, so that only one table's rows and changes need be in memory.

import JSONCore
import BriefcaseJSON
import BriefcaseKit

/// A streamed snapshot export fed element by element (e.g. by `BriefcaseElements.convert`,
/// decoding one element at a time from disk).
public final class SnapshotExportStream {
    let streamer: SnapshotStreamer

    /// `heads`: every element of the stream in stream order, tables without rows and deltas
    /// without changes (`Element.head`) — only names, schemas and columns are looked at.
    public init(heads: [Element], container: ContainerFormat, properties: [BriefcaseProperty],
                headerPadding: ByteString, codePage: CodePage)
    {
        streamer = SnapshotStreamer(heads: heads, container: container, properties: properties,
                                    headerPadding: headerPadding, codePage: codePage)
    }

    /// The order to feed the elements in: every delta (their changes are counted: the count
    /// bounds the revision written first), then each table followed by its deltas again (they are
    /// mapped while its rows are there, and dropped), then the deltas without a table; each group
    /// in stream order. Memory holds one table and its deltas, not every delta of the briefcase.
    public static func order(heads: [Element]) -> [Int] {
        Plan(heads: heads).order
    }

    /// Which deltas go with which table: each with the first table of its name.
    struct Plan {
        var order: [Int]
        var deltaCount: Int
        /// The deltas of each table (stream positions), mapped right after its rows.
        var deltasOfTable: [Int: [Int]] = [:]

        init(heads: [Element]) {
            let deltas = heads.indices.filter { heads[$0].kind == .delta }
            var orphans: [Int] = []
            for position in deltas {
                guard case .delta(let delta) = heads[position] else { continue }
                let table = heads.indices.first { index in
                    if case .table(let table) = heads[index] { return namesMatch(table.name, delta.name) }
                    return false
                }
                if let table { deltasOfTable[table, default: []].append(position) } else { orphans.append(position) }
            }
            order = deltas
            for position in heads.indices where heads[position].kind == .table {
                order.append(position)
                order += deltasOfTable[position] ?? []
            }
            order += orphans
            deltaCount = deltas.count
        }
    }

    /// Maps the element at stream position `position` (in `order(heads:)`), writing what it can.
    public func consume<S: ByteSink>(_ position: Int, _ element: Element, to writer: inout JSONWriter<S>) throws(BriefcaseError) {
        try run(into: &writer) { () throws(BriefcaseError) in try streamer.consume(position, element) }
    }

    /// Writes the rest of the document once every element was consumed; the caller flushes.
    public func finish<S: ByteSink>(to writer: inout JSONWriter<S>) throws(BriefcaseError) -> SnapshotExportSummary {
        try run(into: &writer) { () throws(BriefcaseError) in try streamer.finish() }
        return streamer.summary
    }

    /// Runs `body` with the streamer's chunks going into `writer` (only for the call's duration).
    private func run<S: ByteSink>(into writer: inout JSONWriter<S>, _ body: () throws(BriefcaseError) -> Void) throws(BriefcaseError) {
        let result: Result<Void, BriefcaseError> = withoutActuallyEscaping({ (chunk: UnsafeRawBufferPointer) -> Bool in
            writer.writeRaw(chunk)
            return writer.sinkError == nil
        }) { emit in
            streamer.emit = emit
            defer { streamer.emit = { _ in true } }
            do throws(BriefcaseError) {
                try body()
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        if case .failure(let error) = result {
            // A failed sink stops the export: report the sink's own error.
            if let sinkError = writer.sinkError {
                throw sinkError as? BriefcaseError ?? BriefcaseError(.io, "\(sinkError)")
            }
            throw error
        }
    }
}
