// Briefcase → snapshot document, written while it is mapped (Spec/datastore-mapping.md §2.3).
//
// The same document, byte for byte, as `SnapshotExport(…).serialized()` (which stays as the
// reference the tests compare against), but built table by table: each table's rows are
// mapped and written as they are read, its deltas mapped right after it, then it is dropped.
// What must wait for the end goes to a spool (`ByteSpool`: memory, then an unlinked temporary
// file): the `briefcase` member's element objects (already serialized, record ids and exact
// forms) and the pending changes (`SpooledChange`); memory keeps the limit tallies.

import BriefcaseJSON
import BriefcaseKit
import DatastoreKit

/// What a streamed export found, once the document is written.
public struct SnapshotExportSummary: Sendable {
    public var rev: Int
    public var rowCount: Int
    public var deltaCount: Int
    /// As `SnapshotExport.warnings`.
    public var warnings: [String]
    /// As `SnapshotExport.limitViolations`: known only at the end (the caller discards the
    /// output when it refuses them).
    public var limitViolations: [LimitViolation]
}

typealias ChunkEmitter = (UnsafeRawBufferPointer) -> Bool

final class SnapshotStreamer {
    let codePage: CodePage
    let parts: JSONDocumentParts
    let mapping: ValueMapping
    let hints: SnapshotHints?
    let container: ContainerFormat
    let properties: [BriefcaseProperty]
    let headerPadding: ByteString
    /// Every element without rows or changes, in stream order.
    let heads: [Element]

    /// The document being written; handed on in chunks of `chunkSize`.
    var out = JSONWriter(sink: ArraySink(), bufferSize: 1 << 16)
    static let chunkSize = 1 << 16
    /// Where chunks go (set by `SnapshotExportStream` for the duration of a call).
    var emit: ChunkEmitter = { _ in true }

    /// nil until the first row (or the end) decides it.
    var chosenRev: Int?
    var rev: Int { chosenRev ?? 0 }
    var rowCount = 0
    /// Datastore deltas written.
    var deltasWritten = 0
    var warnings: [String] = []
    var violations: [LimitViolation] = []

    var states: [TableState] = []
    /// The state of each table element, by stream position.
    var tableStates: [Int: TableState] = [:]
    var tableIDs = IDAllocator()
    /// The deltas of each table (stream positions), mapped right after its rows; the deltas
    /// with no table, mapped at the end.
    var deltasOfTable: [Int: [Int]] = [:]
    var orphans: [Int] = []
    /// Deltas received, waiting for their table (or the end).
    var received: [Int: Delta] = [:]
    var deltaCount = 0
    var changeCount = 0
    var tablesSeen = 0
    /// What the end of the document is written from: the table element objects of the
    /// `briefcase` member (by stream position) and the changes of each delta element.
    let spool = ByteSpool()
    var tableObjects: [Int: Range<Int>] = [:]
    var mappedDeltas: [Int: MappedDelta] = [:]
    /// The heads of the delta element objects (their changes are written at the end, once
    /// they know their revision).
    var deltaHeads: [Int: JSONObject] = [:]
    /// Writes the change objects of the `briefcase` member.
    var compact: CompactDocumentParts
    /// Warnings of each delta element, put in stream order at the end.
    var deltaWarnings: [Int: [String]] = [:]
    var limits = StreamLimits()

    init(heads: [Element], container: ContainerFormat, properties: [BriefcaseProperty], headerPadding: ByteString,
         codePage: CodePage)
    {
        self.heads = heads
        self.container = container
        self.properties = properties
        self.headerPadding = headerPadding
        self.codePage = codePage
        parts = JSONDocumentParts(codePage: codePage)
        mapping = ValueMapping(codePage: codePage)
        compact = CompactDocumentParts(codePage: codePage)
        hints = SnapshotHints(properties: properties, codePage: codePage)
        for (position, head) in heads.enumerated() {
            guard case .table(let table) = head else { continue }
            let state = makeState(table, keyDelta: firstDelta(named: table.name))
            states.append(state)
            tableStates[position] = state
        }
        // Each delta goes with the first table of its name; one without a table gets a table of
        // its logged fields at the end (in stream order, as the reference does).
        for (position, head) in heads.enumerated() {
            guard case .delta(let delta) = head else { continue }
            deltaCount += 1
            if let table = heads.indices.first(where: { tableStates[$0].map { namesMatch($0.name, delta.name) } ?? false }) {
                deltasOfTable[table, default: []].append(position)
            } else {
                orphans.append(position)
            }
        }
    }

    var summary: SnapshotExportSummary {
        SnapshotExportSummary(rev: rev, rowCount: rowCount, deltaCount: deltasWritten, warnings: warnings,
                              limitViolations: violations)
    }

    func consume(_ position: Int, _ element: Element) throws(BriefcaseError) {
        guard position < heads.count, heads[position].kind == element.kind, received[position] == nil else {
            throw BriefcaseError(.invalidModel, "internal: element \(position) given to the snapshot export out of place")
        }
        switch element {
        case .delta(let delta):
            guard tablesSeen == 0 else {
                throw BriefcaseError(.invalidModel, "internal: the snapshot export needs every delta before the tables")
            }
            changeCount += delta.changes.count
            received[position] = delta
        case .table(let table):
            guard received.count == deltaCount, let state = tableStates[position] else {
                throw BriefcaseError(.invalidModel, "internal: the snapshot export needs every delta before the tables")
            }
            tablesSeen += 1
            if !table.rows.isEmpty { writeHeader(rowsEmpty: false) }
            state.table = table
            try writeTable(state, element: position)
            for deltaPosition in deltasOfTable[position] ?? [] {
                guard let delta = received[deltaPosition], case .delta(let head) = heads[deltaPosition] else { continue }
                received[deltaPosition] = head  // done: keep nothing of its element's bytes
                try mapDelta(delta, state: state, element: deltaPosition)
            }
            limits.settleTracked()
            state.release()
            try flushChunk(force: true)
        }
    }

    func finish() throws(BriefcaseError) {
        guard received.count == deltaCount, tablesSeen == tableStates.count else {
            throw BriefcaseError(.invalidModel, "internal: the snapshot export ended before every element was given")
        }
        writeHeader(rowsEmpty: true)
        for position in orphans {
            guard let delta = received[position] else { continue }
            let state: TableState
            if let existing = states.first(where: { namesMatch($0.name, delta.name) }) {
                state = existing
            } else {
                let table = Table(name: delta.name, fields: delta.loggedFields.map { FieldDescriptor(name: $0.name, type: $0.type) })
                state = makeState(table, keyDelta: delta)
                states.append(state)
            }
            try mapDelta(delta, state: state, element: position)
        }
        limits.settleTracked()
        received = [:]
        out.writeRaw(rowCount == 0 ? "]" as StaticString : "\n]")

        for position in heads.indices {
            warnings += deltaWarnings[position] ?? []
        }
        var hinted = try hintedDeltas()
        let insertOrder = try writeDeltas(&hinted)
        try writeExtras(hinted)
        out.writeRaw("}\n")
        try flushChunk(force: true)
        checkLimits(insertOrder: insertOrder)
    }

    /// `{"rev":…,"rows":[`, once: at the first row, or at the end when there are none.
    private func writeHeader(rowsEmpty: Bool) {
        guard chosenRev == nil else { return }
        let rev = chooseRev(rowsEmpty: rowsEmpty, pendingCount: changeCount)
        chosenRev = rev
        out.writeRaw("{\"rev\":")
        out.writeInt(Int64(rev))
        out.writeRaw(",\"rows\":[")
    }

    /// The head of the first delta named `name` (its key fields choose record ids).
    private func firstDelta(named name: ByteString) -> Delta? {
        for case .delta(let delta) in heads where namesMatch(delta.name, name) { return delta }
        return nil
    }

    /// Hands the written bytes on once there are `chunkSize` of them (all of them if `force`).
    func flushChunk(force: Bool = false) throws(BriefcaseError) {
        if force || out.bufferedCount >= Self.chunkSize { try! out.flush() }  // an ArraySink never fails
        guard !out.sink.bytes.isEmpty else { return }
        let going = out.sink.bytes.withUnsafeBytes { emit($0) }
        out.sink.bytes.removeAll(keepingCapacity: true)
        if !going { throw BriefcaseError(.io, "the output failed") }
    }

    // MARK: tables

    func makeState(_ table: Table, keyDelta: Delta?) -> TableState {
        TableMapping.makeState(table, keyDelta: keyDelta, codePage: codePage, hints: hints, tableIDs: &tableIDs)
    }

    func recordID(for row: Row, in state: TableState, fallback: @autoclosure () -> String) -> String {
        TableMapping.recordID(for: row, in: state, codePage: codePage, parts: parts, fallback: fallback())
    }

    private func chooseRev(rowsEmpty: Bool, pendingCount: Int) -> Int {
        // The deltas count up from rev: it must leave room for them.
        let room = max(pendingCount, hints?.deltas?.count ?? 0)
        if let hinted = hints?.rev, hinted >= (rowsEmpty ? 0 : 1), hinted <= Int.max - room { return hinted }
        return rowsEmpty ? 0 : 1
    }
}
