// A snapshot document read into a sink element by element (Spec/datastore-mapping.md §6.1):
// each table's rows read from the document's bytes, handed on, and let go before the next.

import JSONCore
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit

/// What reading a snapshot document into a sink found, beside the elements it gave.
public struct SnapshotReading: Sendable {
    /// The code page of the briefcase's 8-bit strings (UTF-8 for an inferred briefcase).
    public var codePage: CodePage
    /// True when the briefcase came from the `briefcase` member; false when inferred.
    public var restored: Bool
    /// Rows or changes of the datastore that the `briefcase` member does not account for.
    public var warnings: [String]
}

extension SnapshotImport {
    /// Reads the snapshot document `bytes` into `sink`: the same briefcase, warnings and errors
    /// as `init(parsing:)`. A document this tool wrote, its rows as it wrote them, goes to the
    /// sink table by table as its rows are read from the bytes (only one table alive); a sink
    /// that needs every head first gets the briefcase whole (its rows read from the bytes when
    /// they can be); any other document is read whole, then given.
    /// `scanned` hears of stretches of the document read through and not needed again until
    /// the rows are read, `read` of the offset up to which the rows have been read (a caller that
    /// mapped the document lets those pages go). On an error the sink is abandoned.
    public static func read<Sink: BriefcaseSink>(_ bytes: UnsafeRawBufferPointer, into sink: inout Sink,
                                                 scanned: ((Range<Int>) -> Void)? = nil,
                                                 read: ((Int) -> Void)? = nil) throws(BriefcaseError) -> SnapshotReading
    {
        let buf = bytes.assumingMemoryBound(to: UInt8.self)
        let imported: SnapshotImport
        if sink.needs.headsFirst, let fromBytes = readingRowsFromBytes(buf) {
            // A sink that needs every head first: the briefcase whole, its rows read from the bytes.
            imported = fromBytes
        } else if !sink.needs.headsFirst, let reading = try streamingRows(buf, into: &sink, scanned: scanned, read: read) {
            return reading
        } else {
            imported = try SnapshotImport(parsingWhole: bytes)
        }
        try imported.document.read(into: &sink, codePage: imported.codePage)
        return SnapshotReading(codePage: imported.codePage, restored: imported.restored, warnings: imported.warnings)
    }

    /// The elements into `sink` as the member's restorer makes them, the rows read from the
    /// bytes; nil (the sink abandoned if begun) when the rows cannot be read so — the reading of
    /// the whole document then decides. An error of the sink itself is thrown as it is.
    private static func streamingRows<Sink: BriefcaseSink>(_ buf: UnsafeBufferPointer<UInt8>, into sink: inout Sink,
                                                           scanned: ((Range<Int>) -> Void)?,
                                                           read: ((Int) -> Void)?) throws(BriefcaseError) -> SnapshotReading?
    {
        guard var restorer = RowBytes.restorer(buf, scanned: scanned, read: read) else { return nil }
        var begun = false
        var sinkFailure: BriefcaseError?
        do {
            _ = try restorer.restore(begin: { head throws(BriefcaseError) in
                // The member refuses a bin2 briefcase with properties only after its elements:
                // left to the whole reading, which refuses it before the sink has anything.
                if head.container == .bin2, !head.properties.isEmpty || !head.headerPadding.isEmpty { throw RowBytes.declined }
                do throws(BriefcaseError) { try sink.begin(head) } catch { sinkFailure = error; throw error }
                begun = true
            }, element: { position, element throws(BriefcaseError) in
                do throws(BriefcaseError) { try sink.element(element, at: position) } catch { sinkFailure = error; throw error }
            })
        } catch {
            if begun { sink.abandon() }
            if let sinkFailure { throw sinkFailure }
            return nil
        }
        do {
            try sink.finish()
        } catch {
            sink.abandon()
            throw error
        }
        return SnapshotReading(codePage: restorer.codePage, restored: true, warnings: restorer.warnings)
    }
}
