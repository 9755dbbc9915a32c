// Briefcase → datastore snapshot document (Spec/datastore-mapping.md §2–§5).

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

/// The snapshot document of a briefcase: its stored rows as the snapshot, its pending changes
/// as deltas, and everything a datastore cannot hold in the `briefcase` member, so that
/// `SnapshotImport` gives the briefcase back exactly.
public struct SnapshotExport: Sendable {
    /// The extra top-level member that carries the briefcase.
    public static let memberName = "briefcase"
    /// `format` of that member.
    public static let formatName = "briefcase-datastore"
    public static let formatVersion: Int64 = 1

    /// The snapshot's revision.
    public var rev: Int
    /// One row per stored briefcase row, table by table.
    public var rows: [DatastoreRow]
    /// The pending changes, one delta per briefcase change (unless the briefcase says how it
    /// was grouped), starting at `rev`.
    public var deltas: [DatastoreDelta]
    /// Extra top-level members: the `briefcase` member, after any extras a plain snapshot had.
    public var extras: JSONObject
    /// Changes that could not be matched to a row, logged fields that are not columns, hints
    /// that were ignored.
    public var warnings: [String]
    /// Every broken size or count limit (the caller decides whether to write anyway).
    public var limitViolations: [LimitViolation]

    /// Maps `document`, reading its 8-bit strings in `codePage`. Throws only for a model the
    /// JSON document could not hold either (values that do not fit their columns).
    public init(_ document: BriefcaseDocument, codePage: CodePage) throws(BriefcaseError) {
        let builder = ExportBuilder(document: document, codePage: codePage)
        do {
            try builder.build()
        } catch let error as BriefcaseError {
            throw error
        } catch {
            throw BriefcaseError(.invalidModel, "\(error)")
        }
        rev = builder.rev
        rows = builder.rows
        deltas = builder.deltas
        extras = builder.extras
        warnings = builder.warnings
        limitViolations = builder.violations
    }

    /// Streams the document (`rev`, `rows`, `deltas`, extras) into `writer`; the caller flushes.
    public func write<S: ByteSink>(to writer: inout JSONWriter<S>) throws(BriefcaseError) {
        var document = SnapshotDocumentWriter(rev: rev)
        do {
            for row in rows { try document.writeRow(row, to: &writer) }
            try document.beginDeltas(to: &writer)
            for delta in deltas { try document.writeDelta(delta, to: &writer) }
            for member in extras.members { try document.writeExtra(key: member.key, value: member.value, to: &writer) }
            try document.finish(to: &writer)
        } catch {
            throw BriefcaseError(.invalidModel, "internal: the snapshot document was refused: \(error)")
        }
    }

    /// The document's bytes.
    public func serialized() throws(BriefcaseError) -> [UInt8] {
        var writer = JSONWriter(sink: ArraySink())
        try write(to: &writer)
        try! writer.flush()  // an ArraySink never fails
        return writer.sink.bytes
    }

    /// The document as a model.
    public func snapshotDocument() throws(BriefcaseError) -> SnapshotDocument {
        do {
            return SnapshotDocument(snapshot: try DatastoreSnapshot(rev: rev, rows: rows), deltas: deltas, extras: extras)
        } catch {
            throw BriefcaseError(.invalidModel, "internal: \(error)")
        }
    }
}

// MARK: - the mapping

final class ExportBuilder {
    let document: BriefcaseDocument
    let codePage: CodePage
    let parts: JSONDocumentParts
    let mapping: ValueMapping
    let hints: SnapshotHints?

    var rev = 0
    var rows: [DatastoreRow] = []
    var deltas: [DatastoreDelta] = []
    var extras = JSONObject()
    var warnings: [String] = []
    var violations: [LimitViolation] = []

    private var states: [TableState] = []
    private var tableIDs = IDAllocator()
    /// The `briefcase` member's element objects, in element order.
    private var elementObjects: [JSONObject] = []
    /// The change entries of each delta element (patched with `rev`/`change` once grouped).
    private var changeEntries: [Int: [JSONObject]] = [:]

    private struct Pending {
        var element: Int
        var index: Int
        var tableName: String?
        var recordID: Int32
        var datastore: DatastoreChange?
        var state: TableState
    }
    private var pending: [Pending] = []

    init(document: BriefcaseDocument, codePage: CodePage) {
        self.document = document
        self.codePage = codePage
        parts = JSONDocumentParts(codePage: codePage)
        mapping = ValueMapping(codePage: codePage)
        hints = SnapshotHints(properties: document.file.properties, codePage: codePage)
    }

    func build() throws {
        let elements = document.file.stream.elements
        // Tables first: their stored rows are the snapshot.
        for case .table(let table) in elements {
            states.append(makeState(table, delta: document.file.stream.delta(named: table.name)))
        }
        // Stored rows of every table, then the changes in element order, whatever the order of
        // tables and deltas in the stream (.NET writes a delta before its table).
        var objects: [Int: JSONObject] = [:]
        var tableCursor = 0
        for (position, element) in elements.enumerated() {
            guard case .table(let table) = element else { continue }
            objects[position] = try tableObject(table, state: states[tableCursor])
            tableCursor += 1
        }
        for (position, element) in elements.enumerated() {
            guard case .delta(let delta) = element else { continue }
            objects[position] = try deltaObject(delta, element: position)
        }
        elementObjects = elements.indices.map { objects[$0]! }
        rev = chooseRev()
        groupDeltas()
        extras = makeExtras()
        checkLimits()
    }

    // MARK: tables

    private func makeState(_ table: Table, delta: Delta?) -> TableState {
        TableMapping.makeState(table, keyDelta: delta, codePage: codePage, hints: hints, tableIDs: &tableIDs)
    }

    private func recordID(for row: Row, in state: TableState, fallback: @autoclosure () -> String) -> String {
        TableMapping.recordID(for: row, in: state, codePage: codePage, parts: parts, fallback: fallback())
    }

    private func tableObject(_ table: Table, state: TableState) throws -> JSONObject {
        let types = table.fields.map(\.type)
        var ids: [JSONValue] = []
        var exact = JSONObject()
        for (index, row) in table.rows.enumerated() {
            let id = recordID(for: row, in: state, fallback: "r\(index)")
            state.slotIDs.append(id)
            let record = mapping.record(of: row, roles: state.roles)
            rows.append(DatastoreRow(tableID: state.tid, recordID: id, record: record))
            ids.append(.string(id))
            let back = mapping.row(of: record, recordID: id, roles: state.roles, types: types)
            let overrides = differences(back, row, types: types)
            if !overrides.isEmpty { exact[id] = .object(overrides) }
        }
        var head = try parts.tableHead(table)
        head = TableMapping.inserting(tid: state.tid, into: head)
        head["fields"] = TableMapping.annotate(head["fields"], roles: state.roles)
        head["rows"] = .array(ids)
        if !exact.isEmpty { head["exact"] = .object(exact) }
        return head
    }

    /// `{"<position>": exact form or null}` where `back` differs from `actual`.
    private func differences(_ back: [Value?], _ actual: [Value?], types: [DataType]) -> JSONObject {
        var result = JSONObject()
        for position in types.indices {
            let value = position < actual.count ? actual[position] : nil
            let restored = position < back.count ? back[position] : nil
            if restored != value {
                result[String(position)] = value.map { parts.json($0, type: types[position]) } ?? .null
            }
        }
        return result
    }

    // MARK: deltas

    private func deltaObject(_ delta: Delta, element: Int) throws -> JSONObject {
        let state = TableMapping.state(for: delta, in: &states, codePage: codePage, hints: hints, tableIDs: &tableIDs)
        let columns: [Int?] = delta.loggedFields.map { logged in
            state.table.fields.firstIndex { namesMatch($0.name, logged.name) }
        }
        let loggedRoles: [ColumnRole] = columns.map { $0.map { state.roles[$0] } ?? .none }
        let types = delta.loggedFields.map(\.type)
        let replay = state.table.replaying(delta)
        for problem in replay.problems {
            warnings.append("table '\(state.display)': \(problem); it travels in the document's \"briefcase\" member only")
        }
        let tableName = codePage.decodeReversibly(delta.name)

        var slotIDs = state.slotIDs
        var entries: [JSONObject] = []
        for (index, change) in delta.changes.enumerated() {
            let step = replay.changes[index]
            var datastore: DatastoreChange?
            switch step.outcome {
            case .inserted:
                let after = step.after ?? []
                let id = recordID(for: after, in: state, fallback: "c\(change.recordID)")
                slotIDs.append(id)
                datastore = .insert(tableID: state.tid, recordID: id, fields: mapping.record(of: after, roles: state.roles))
            case .updated:
                let id = slotIDs[step.slot!]
                let before = mapping.record(of: step.before ?? [], roles: state.roles)
                let after = mapping.record(of: step.after ?? [], roles: state.roles)
                var updates: [FieldUpdate] = []
                var seen = Set<String>()
                for (position, column) in columns.enumerated() {
                    guard let column, case .field(let fid, _) = state.roles[column], !seen.contains(fid) else { continue }
                    let sent = position < change.newValues.count && change.newValues[position] != nil
                    guard sent || !delta.isReduced else { continue }
                    if let value = after[fid] {
                        updates.append(FieldUpdate(fid, .put(value)))
                        seen.insert(fid)
                    } else if before[fid] != nil {
                        updates.append(FieldUpdate(fid, .delete))
                        seen.insert(fid)
                    }
                }
                datastore = .update(tableID: state.tid, recordID: id, updates: updates)
            case .deleted:
                let id = slotIDs[step.slot!]
                state.live.remove(id)
                datastore = .delete(tableID: state.tid, recordID: id)
            case .notApplied:
                datastore = nil
            }

            var entry = parts.changeHead(change)
            entry["rowid"] = datastore.map { .string($0.recordID) } ?? .null
            entry["old"] = parts.json(change.oldValues, types: types)
            let back = mapping.newValues(of: datastore, roles: loggedRoles, types: types)
            let overrides = differences(back, change.newValues, types: types)
            if !overrides.isEmpty { entry["new"] = .object(overrides) }
            entries.append(entry)
            pending.append(Pending(element: element, index: index, tableName: tableName, recordID: change.recordID,
                                   datastore: datastore, state: state))
        }
        state.table.rows = replay.rows
        state.slotIDs = replay.slots.indices.compactMap { replay.slots[$0] == nil ? nil : slotIDs[$0] }
        changeEntries[element] = entries

        var head = try parts.deltaHead(delta)
        head = TableMapping.inserting(tid: state.tid, into: head)
        head["loggedFields"] = TableMapping.annotate(head["loggedFields"], roles: loggedRoles)
        return head
    }

    // MARK: revision, grouping, extras

    private func chooseRev() -> Int {
        // The deltas count up from rev: it must leave room for them.
        let room = max(pending.count, hints?.deltas?.count ?? 0)
        if let hinted = hints?.rev, hinted >= (rows.isEmpty ? 0 : 1), hinted <= Int.max - room { return hinted }
        return rows.isEmpty ? 0 : 1
    }

    /// One delta per applied change, or the grouping the `DatastoreSnapshot` property records.
    private func groupDeltas() {
        let changes = pending.map {
            DeltaGrouping.Change(tableName: $0.tableName, recordID: $0.recordID, applied: $0.datastore != nil,
                                 table: ObjectIdentifier($0.state))
        }
        let (groups, hintsIgnored) = DeltaGrouping.groups(changes, rev: rev, hinted: hints?.deltas)
        if hintsIgnored {
            warnings.append("the \(SnapshotHints.propertyName) property does not describe these changes; one delta per change instead")
        }
        for (position, group) in groups.enumerated() {
            let deltaRev = rev + position
            var changes: [DatastoreChange] = []
            for member in group.members {
                guard let change = pending[member].datastore else { continue }
                patch(member, rev: deltaRev, change: changes.count)
                changes.append(change)
            }
            let nonce = group.nonce ?? Self.nonce(changes, rev: deltaRev)
            deltas.append(DatastoreDelta(rev: deltaRev, changes: changes, nonce: nonce))
        }
    }

    private func patch(_ member: Int, rev: Int, change: Int) {
        let item = pending[member]
        guard var entries = changeEntries[item.element] else { return }
        var entry = JSONObject()
        for m in entries[item.index].members {
            entry.append(key: m.key, value: m.value)
            if m.key == "rowid" {
                entry.append(key: "rev", value: .integer(rev))
                entry.append(key: "change", value: .integer(change))
            }
        }
        entries[item.index] = entry
        changeEntries[item.element] = entries
    }

    /// The nonce of a delta of `changes` at `rev` (`DeltaNonce`).
    static func nonce(_ changes: [DatastoreChange], rev: Int) -> String {
        var nonce = DeltaNonce(rev: rev)
        for change in changes { nonce.add(tag: change.tag.utf8, tableID: change.tableID.utf8, recordID: change.recordID.utf8) }
        return nonce.text
    }

    private func makeExtras() -> JSONObject {
        var result = JSONObject()
        for member in hints?.extras.members ?? [] {
            if SnapshotDocument.reservedKeys.contains(member.key) || member.key == SnapshotExport.memberName || result[member.key] != nil {
                continue
            }
            result.append(key: member.key, value: member.value)
        }
        var meta = JSONObject()
        meta["format"] = .string(SnapshotExport.formatName)
        meta["version"] = .integer(SnapshotExport.formatVersion)
        meta["container"] = .string(document.container.rawValue)
        meta["encoding"] = .string(codePage.name)
        if document.container == .dabriefcase {
            meta["properties"] = .array(document.file.properties.map { [parts.json(ansi: $0.name), parts.json(ansi: $0.value)] })
            if !document.file.headerPadding.isEmpty {
                meta["headerPadding"] = .string(Base64.encode(document.file.headerPadding.bytes))
            }
        }
        meta["elements"] = .array(elementObjects.enumerated().map { position, object in
            var object = object
            if let entries = changeEntries[position] { object["changes"] = .array(entries.map { .object($0) }) }
            return .object(object)
        })
        result.append(key: SnapshotExport.memberName, value: .object(meta))
        return result
    }

    // MARK: limits

    private func checkLimits() {
        var snapshot: DatastoreSnapshot
        do {
            snapshot = try DatastoreSnapshot(rev: rev, rows: rows)
        } catch {
            warnings.append("internal: the rows do not form a snapshot: \(error)")
            return
        }
        let names = Dictionary(states.map { ($0.tid, $0.display) }, uniquingKeysWith: { first, _ in first })
        var seen = Set<String>()
        func report(_ errors: [DatastoreError], in snapshot: DatastoreSnapshot, prefix: String) {
            let ordered = Array(snapshot.rows)
            for error in errors where seen.insert(error.message).inserted {
                var element: String?
                if error.path.components.count == 2, case .index(let i) = error.path.components[1], i < ordered.count {
                    element = names[ordered[i].tableID]
                }
                violations.append(LimitViolation(message: prefix + error.message, element: element))
            }
        }
        report(DatastoreLimits.violations(in: snapshot), in: snapshot, prefix: "")
        for delta in deltas {
            if let error = DatastoreLimits.violation(ofDelta: delta) {
                violations.append(LimitViolation(message: error.message, element: delta.changes.first.flatMap { names[$0.tableID] }))
            }
            do {
                try snapshot.apply(delta)
            } catch {
                warnings.append("internal: delta \(delta.rev) does not apply: \(error)")
                return
            }
        }
        if !deltas.isEmpty {
            report(DatastoreLimits.violations(in: snapshot), in: snapshot, prefix: "after the pending changes, ")
        }
    }
}
