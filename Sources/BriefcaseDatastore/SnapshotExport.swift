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
    public var message: String
    /// The briefcase table, as text.
    public var element: String?

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
    public static let formatVersion: Int64 = 1

    /// The document, as `stream(_:codePage:to:)` writes it.
    public let bytes: [UInt8]
    /// Its revision and counts, the warnings, and every broken size or count limit (the caller
    /// decides whether to write anyway).
    public let summary: SnapshotExportSummary

    /// Maps `document`, reading its 8-bit strings in `codePage`.
    public init(_ document: BriefcaseDocument, codePage: CodePage) throws(BriefcaseError) {
        var writer = JSONWriter(sink: ArraySink())
        summary = try Self.stream(document, codePage: codePage, to: &writer)
        try! writer.flush()  // an ArraySink never fails
        bytes = writer.sink.bytes
    }

    /// The document as a model (its bytes parsed).
    public func snapshotDocument() throws(BriefcaseError) -> SnapshotDocument {
        do {
            return try SnapshotDocument(parsing: bytes)
        } catch {
            throw BriefcaseError(.invalidModel, "internal: the snapshot document was refused: \(error)")
        }
    }

    /// Maps `document` and writes its snapshot document into `writer` as it goes (the caller
    /// flushes): its elements are given to the streamed export in the order it asks for.
    public static func stream<S: ByteSink>(_ document: BriefcaseDocument, codePage: CodePage,
                                           to writer: inout JSONWriter<S>) throws(BriefcaseError) -> SnapshotExportSummary
    {
        let elements = document.file.stream.elements
        let heads = elements.map { element -> Element in
            switch element {
            case .table(var table): table.rows = []; return .table(table)
            case .delta(var delta): delta.changes = []; return .delta(delta)
            }
        }
        let stream = SnapshotExportStream(heads: heads, container: document.container, properties: document.file.properties,
                                          headerPadding: document.file.headerPadding, codePage: codePage)
        for position in SnapshotExportStream.order(heads: heads) {
            try stream.consume(position, elements[position], to: &writer)
        }
        return try stream.finish(to: &writer)
    }
}
