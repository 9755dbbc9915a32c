// Briefcase → datastore snapshot document (Spec/datastore-mapping.md §2–§5).
//
// There is one exporter: the streamed one (`SnapshotStreamer`, fed by `SnapshotExportStream`).
// What is here only feeds it a decoded document, in the order it wants, and collects the bytes
// for callers that want the document whole or as a model — never a second mapping.

import JSONCore
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit

/// A datastore limit the snapshot breaks.
public struct LimitViolation: Sendable, Equatable, CustomStringConvertible {
    /// What is over the limit, and by how much.
    public var message: String
    /// The briefcase table, as text.
    public var element: String?

    /// The message, after the table it concerns when there is one.
    public var description: String {
        BriefcaseError.describe(message, file: nil, element: element, offset: nil)
    }
}

/// The snapshot document of a decoded briefcase, whole: its stored rows as the snapshot, its
/// pending changes as deltas, and everything a datastore cannot hold in the `briefcase` member,
/// so that `SnapshotImport` gives the briefcase back exactly.
public struct SnapshotExport: Sendable {
    /// The extra top-level member that carries the briefcase.
    public static let memberName = "briefcase"
    /// `format` of that member.
    public static let formatName = "briefcase-datastore"
    /// `version` of that member.
    public static let formatVersion: Int64 = 1

    /// The document, as `stream(_:codePage:into:)` writes it.
    public let bytes: [UInt8]
    /// Its revision and counts, the warnings, and every broken size or count limit (the caller
    /// decides whether to write anyway).
    public let summary: SnapshotExportSummary

    /// Maps `document`, reading its 8-bit strings in `codePage`.
    public init(_ document: BriefcaseDocument, codePage: CodePage) throws(BriefcaseError) {
        let (output, summary) = try Self.stream(document, codePage: codePage, into: ArraySink())
        self.summary = summary
        bytes = output.bytes
    }

    /// The document as a model (its bytes parsed).
    public func snapshotDocument() throws(BriefcaseError) -> SnapshotDocument {
        do {
            return try SnapshotDocument(parsing: bytes)
        } catch {
            throw BriefcaseError(.invalidModel, "internal: the snapshot document was refused: \(error)")
        }
    }

    /// Maps `document` and writes its snapshot document into `output` as it goes (a
    /// `SnapshotSink` fed by the document): the output, flushed, and the summary.
    public static func stream<S: ResettableByteSink>(_ document: BriefcaseDocument, codePage: CodePage, into output: S,
                                                     bufferSize: Int = 1 << 16) throws(BriefcaseError) -> (output: S, summary: SnapshotExportSummary)
    {
        var sink = SnapshotSink(output: output, bufferSize: bufferSize)
        try document.read(into: &sink, codePage: codePage)
        return (sink.writer.sink, sink.summary!)
    }
}
