// Pending changes while streaming: each delta is mapped right after its table's rows (while
// they are still in memory; Spec/datastore-mapping.md §2.2), straight to bytes:
// each change's datastore form (the bytes `DatastoreChange.write` gives) and its object in the
// `briefcase` member go to the spool with the few facts the end needs (`SpooledChange`), and
// each record's size is followed change by change (`StreamLimits`). Nothing per change stays in
// memory: no `DatastoreChange`, no dictionary of fields, no reverse mapping of values that the
// forward mapping already knows to be exact.

import JSONCore
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit

/// A delta element once mapped: its table and where its changes are in the spool.
struct MappedDelta {
    var state: TableState
    /// The delta's name as text (the `DatastoreSnapshot` property names changes by it).
    var tableName: String?
    var changeCount: Int
    var spooled: Range<Int>
}

/// What an update or insert did to one column of the record, for the `new` overrides.
private enum ColumnOutcome: UInt8 {
    case untouched
    /// A field was put, and its value comes back exactly in the column's type.
    case putExact
    case putInexact
    case deleted
}

extension SnapshotStreamer {
    /// Maps `delta` over the current rows of `state`'s table (which it then replaces by the rows
    /// after the changes), following the size of each record it touches (`StreamLimits`).
    func mapDelta(_ delta: Delta, state: TableState, element: Int) throws(BriefcaseError) {
        var delta = delta
        delta.changes.decodeStored()  // replayed, then mapped change by change: decoded once
        let columns: [Int?] = delta.loggedFields.map { logged in
            state.table.fields.firstIndex { namesMatch($0.name, logged.name) }
        }
        let loggedRoles: [ColumnRole] = columns.map { $0.map { state.roles[$0] } ?? .none }
        let types = delta.loggedFields.map(\.type)
        let replay = state.table.replaying(delta)
        var problems: [String] = []
        for problem in replay.problems {
            problems.append("table '\(state.display)': \(problem); it travels in the document's \"briefcase\" member only")
        }
        deltaWarnings[element] = problems

        let fields = streamColumns(of: state)
        let heads = ChangeHeads(tableID: state.tid)
        var slotIDs = state.slotIDs
        var slotSizes = state.slotSizes, slotPositions = state.slotPositions
        var slotTracked = state.slotTracked.count == slotIDs.count ? state.slotTracked : Array(repeating: -1, count: slotIDs.count)
        var outcomes = [ColumnOutcome](repeating: .untouched, count: fields.count)
        var bytes = RowBuffer(capacity: 1 << 12)
        var entry = JSONWriter(sink: ArraySink(), bufferSize: 1 << 12)
        var scratch: [UInt8] = []
        let start = spool.count
        // The change being mapped: what goes to the spool, and its record id.
        var spooled = SpooledChange(recordID: 0)
        var rowid = ""
        /// Starts the change's datastore form, `["U","tid","rowid"`.
        func begin(_ tag: UInt8, recordID: String) {
            spooled.tag = tag
            rowid = recordID
            heads.write(tag, rowid: recordID, to: &bytes)
        }
        /// Begins an update or a delete: returns the slot it touches, and its record's index in
        /// `limits.tracked` (followed from now on, from its size before the change).
        func touch(_ step: ChangeReplay, _ tag: UInt8) throws(BriefcaseError) -> (slot: Int, tracked: Int) {
            guard let slot = step.slot, slot < slotIDs.count, slot < slotSizes.count, slot < slotPositions.count,
                  slot < slotTracked.count else { throw Self.replayError(state) }
            if slotTracked[slot] < 0 {
                slotTracked[slot] = limits.track(tableID: state.tid, recordID: slotIDs[slot], storedPosition: slotPositions[slot],
                                                 size: slotSizes[slot])
            }
            begin(tag, recordID: slotIDs[slot])
            return (slot, slotTracked[slot])
        }
        for (index, change) in delta.changes.enumerated() {
            let step = replay.changes[index]
            for column in outcomes.indices { outcomes[column] = .untouched }
            bytes.count = 0
            spooled = SpooledChange(recordID: change.recordID)
            rowid = ""
            switch step.outcome {
            case .inserted:
                let after = step.after ?? []
                begin(SpooledChange.insert, recordID: recordID(for: after, in: state, fallback: "c\(change.recordID)"))
                bytes.append(",{")
                // An insert's change size is its record's: 100 + Σ (100 + value size).
                var fieldCount = 0
                for column in fields.indices {
                    let before = fieldCount
                    let exact = writeColumn(column < after.count ? after[column] : nil, fields[column], recordID: rowid,
                                            fields: &fieldCount, size: &spooled.size, scratch: &scratch, buffer: &bytes)
                    if fieldCount > before { outcomes[column] = exact ? .putExact : .putInexact }
                }
                bytes.append("}]")
                slotIDs.append(rowid)
                slotSizes.append(spooled.size)
                slotPositions.append(nil)
                slotTracked.append(limits.trackInsert(tableID: state.tid, recordID: rowid, size: spooled.size,
                                                      insertedBy: PendingChangeKey(element: element, index: index)))
            case .updated:
                let (slot, tracked) = try touch(step, SpooledChange.update)
                bytes.append(",{")
                var recordSize = slotSizes[slot]
                var fieldCount = 0
                // Only the logged columns are mapped (field ids are unique per table), not whole
                // records: a delta-heavy briefcase updates most rows. One operation per field.
                for (position, column) in columns.enumerated() {
                    guard let column, column < fields.count, case .field(_, let json) = fields[column].role,
                          outcomes[column] == .untouched else { continue }
                    let sent = position < change.newValues.count && change.newValues[position] != nil
                    guard sent || !delta.isReduced else { continue }
                    let old = step.before.flatMap { column < $0.count ? $0[column] : nil }.flatMap { fieldSize($0, json: json, scratch: &scratch) }
                    let value = step.after.flatMap { column < $0.count ? $0[column] : nil }
                    let before = fieldCount
                    var putSize = 0
                    let exact = writeColumn(value, fields[column], put: true, recordID: rowid, fields: &fieldCount,
                                            size: &putSize, scratch: &scratch, buffer: &bytes)
                    if fieldCount > before {
                        outcomes[column] = exact ? .putExact : .putInexact
                        spooled.size += putSize
                        recordSize += putSize - (old ?? 0)
                    } else if let old {
                        if fieldCount > 0 { bytes.append(",") }
                        bytes.append(fields[column].key)
                        bytes.append("[\"D\"]")
                        fieldCount += 1
                        outcomes[column] = .deleted
                        spooled.size += DatastoreSize.baseField
                        recordSize -= old
                    }
                }
                bytes.append("}]")
                limits.tracked[tracked].size = recordSize
                slotSizes[slot] = recordSize
            case .deleted:
                let (_, tracked) = try touch(step, SpooledChange.delete)
                bytes.append("]")
                limits.tracked[tracked].alive = false
                state.live.remove(rowid)
            case .notApplied:
                break
            }

            // The change's object in the `briefcase` member: head, rowid | (rev, change) | old, new.
            compact.writeOpenChangeHead(change, to: &entry)
            entry.writeRaw(",\"rowid\":")
            if spooled.isApplied { entry.writeString(rowid) } else { entry.writeNull() }
            let split = entry.sink.bytes.count + entry.bufferedCount
            entry.writeRaw(",\"old\":")
            compact.writeValues(change.oldValues, types: types, to: &entry)
            var overrides = JSONObject()
            for position in types.indices where !restores(position, change: change, step: step, applied: spooled.isApplied,
                                                          rowid: rowid, columns: columns, roles: loggedRoles, types: types,
                                                          fields: fields, outcomes: outcomes)
            {
                let value = position < change.newValues.count ? change.newValues[position] : nil
                overrides[String(position)] = value.map { parts.json($0, type: types[position]) } ?? .null
            }
            if !overrides.isEmpty {
                entry.writeRaw(",\"new\":")
                entry.writeValue(.object(overrides))
            }
            entry.writeByte(UInt8(ascii: "}"))
            try! entry.flush()  // an ArraySink never fails
            spooled.append(rowid: rowid, change: bytes.bytes, entry: entry.sink.bytes, split: split, to: spool)
            entry.sink.bytes.removeAll(keepingCapacity: true)
        }
        state.table.rows = Rows(replay.rows)
        let live = replay.slots.indices.filter { replay.slots[$0] != nil }
        state.slotIDs = live.map { slotIDs[$0] }
        state.slotSizes = live.map { slotSizes[$0] }
        state.slotPositions = live.map { slotPositions[$0] }
        state.slotTracked = live.map { slotTracked[$0] }
        mappedDeltas[element] = MappedDelta(state: state, tableName: codePage.decodeReversibly(delta.name),
                                            changeCount: delta.changes.count, spooled: start..<spool.count)

        deltaHeads[element] = try TableMapping.elementHead(tid: state.tid, columns: "loggedFields", roles: loggedRoles) {
            try parts.deltaHead(delta)
        }
    }

    private static func replayError(_ state: TableState) -> BriefcaseError {
        BriefcaseError(.invalidModel, "internal: a change of table '\(state.display)' was replayed without its row")
    }

    /// Whether the new value the datastore change gives back for logged field `position` (what
    /// `ValueMapping.newValues` gives: an insert's field, an update's put, the record id in a
    /// record-id column, else NULL) is the change's own, which then needs no override. A value
    /// the forward mapping wrote as exact in its column's type is its own reverse; only the
    /// others are mapped back.
    private func restores(_ position: Int, change: DeltaChange, step: ChangeReplay, applied: Bool, rowid: String,
                          columns: [Int?], roles: [ColumnRole], types: [DataType], fields: [StreamColumn],
                          outcomes: [ColumnOutcome]) -> Bool
    {
        let actual = position < change.newValues.count ? change.newValues[position] : nil
        guard applied, step.outcome != .deleted else { return actual == nil }
        switch roles[position] {
        case .none:
            return actual == nil
        case .recordID:
            return mapping.reverse(.string(rowid), type: types[position]) == actual
        case .field(_, let json):
            guard let column = columns[position], column < outcomes.count,
                  outcomes[column] == .putExact || outcomes[column] == .putInexact,
                  let after = step.after, column < after.count, let value = after[column]
            else { return actual == nil }
            if outcomes[column] == .putExact && types[position].storage == fields[column].storage { return value == actual }
            return mapping.forward(value, json: json).flatMap { mapping.reverse($0, type: types[position], json: json) } == actual
        }
    }
}

/// `["I","tid","` (and U, D): the start of a change's datastore form, written once per delta.
private struct ChangeHeads {
    let insert: [UInt8], update: [UInt8], delete: [UInt8]

    init(tableID: String) {
        func head(_ tag: String) -> [UInt8] {
            var writer = JSONWriter(sink: ArraySink())
            writer.writeRaw("[\"" + tag + "\",")
            writer.writeString(tableID)
            writer.writeByte(UInt8(ascii: ","))
            try! writer.flush()  // an ArraySink never fails
            return writer.sink.bytes
        }
        insert = head("I")
        update = head("U")
        delete = head("D")
    }

    /// The head and the record id.
    func write(_ tag: UInt8, rowid: String, to buffer: inout RowBuffer) {
        buffer.append(tag == SpooledChange.insert ? insert : tag == SpooledChange.update ? update : delete)
        buffer.appendString(rowid)
    }
}
