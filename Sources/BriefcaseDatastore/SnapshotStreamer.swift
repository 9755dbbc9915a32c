// Briefcase → snapshot document, written while it is mapped (Spec/datastore-mapping.md §2.3).
//
// The one exporter: the document is built table by table, each table's rows mapped and written
// as they are read, its deltas mapped right after it, then it is dropped (`SnapshotExport` and
// `SnapshotExportStream` only feed it).
// What must wait for the end goes to a spool (`ByteSpool`: memory, then an unlinked temporary
// file): the `briefcase` member's element objects (already serialized, record ids and exact
// forms) and the pending changes (`SpooledChange`); memory keeps the limit tallies.

import JSONCore
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit

/// What a streamed export found, once the document is written.
public struct SnapshotExportSummary: Sendable {
    /// The snapshot's revision: 1 with rows, 0 without, or the plain snapshot's the briefcase came from.
    public var rev: Int
    /// The rows written to the snapshot.
    public var rowCount: Int
    /// The deltas written (one per pending change, or as the plain snapshot grouped them).
    public var deltaCount: Int
    /// Changes that could not be matched to a row, logged fields that are not columns, hints
    /// that were ignored.
    public var warnings: [String]
    /// Every broken size or count limit, known only at the end (the caller discards the output
    /// when it refuses them).
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
    /// The order the elements come in (`SnapshotExportStream.order`): every delta to count its
    /// changes, then each table followed by its deltas again, then the deltas without a table.
    let plan: SnapshotExportStream.Plan
    /// Elements consumed so far (a position in `plan.order`).
    var given = 0
    var changeCount = 0
    /// The table whose deltas come next, and how many of them are still to come.
    var current: TableState?
    var deltasToCome = 0
    /// What the end of the document is written from: the table element objects of the
    /// `briefcase` member (by stream position) and the changes of each delta element.
    let spool = ByteSpool()
    var tableObjects: [Int: Range<Int>] = [:]
    var mappedDeltas: [Int: MappedDelta] = [:]
    /// The heads of the delta element objects (their changes are written at the end, once
    /// they know their revision).
    var deltaHeads: [Int: JSONObject] = [:]
    /// Writes the change objects of the `briefcase` member.
    let compact: CompactDocumentParts
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
        plan = SnapshotExportStream.Plan(heads: heads)
        for (position, head) in heads.enumerated() {
            guard case .table(let table) = head else { continue }
            let state = makeState(table, keyDelta: firstDelta(named: table.name))
            states.append(state)
            tableStates[position] = state
        }
    }

    var summary: SnapshotExportSummary {
        SnapshotExportSummary(rev: rev, rowCount: rowCount, deltaCount: deltasWritten, warnings: warnings,
                              limitViolations: violations)
    }

    func consume(_ position: Int, _ element: Element) throws(BriefcaseError) {
        guard given < plan.order.count, plan.order[given] == position, heads[position].kind == element.kind else {
            throw BriefcaseError(.invalidModel, "internal: element \(position) given to the snapshot export out of place")
        }
        let counting = given < plan.deltaCount
        given += 1
        switch element {
        case .delta(let delta) where counting:
            changeCount += delta.changes.count
        case .delta(let delta):
            if let state = current {
                try mapDelta(delta, state: state, element: position)
                deltasToCome -= 1
                if deltasToCome == 0 { try finishTable(state) }
            } else {
                // A delta without a table: they come last, in stream order (§2.3).
                let state = TableMapping.state(for: delta, in: &states, codePage: codePage, hints: hints, tableIDs: &tableIDs)
                try mapDelta(delta, state: state, element: position)
            }
        case .table(let table):
            guard let state = tableStates[position] else {
                throw BriefcaseError(.invalidModel, "internal: element \(position) given to the snapshot export out of place")
            }
            if !table.rows.isEmpty { writeHeader(rowsEmpty: false) }
            state.table = table
            try writeTable(state, element: position)
            deltasToCome = plan.deltasOfTable[position]?.count ?? 0
            if deltasToCome == 0 { try finishTable(state) } else { current = state }
        }
    }

    /// Once a table's deltas are mapped: nothing of its rows is kept.
    private func finishTable(_ state: TableState) throws(BriefcaseError) {
        current = nil
        limits.settleTracked()
        state.release()
        try flushChunk(force: true)
    }

    func finish() throws(BriefcaseError) {
        guard given == plan.order.count else {
            throw BriefcaseError(.invalidModel, "internal: the snapshot export ended before every element was given")
        }
        writeHeader(rowsEmpty: true)
        limits.settleTracked()  // the deltas without a table
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
