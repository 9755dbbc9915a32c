// Pending changes while streaming: each delta is mapped right after its table's rows (while
// they are still in memory), as `ExportBuilder.deltaObject` maps it; grouping into datastore
// deltas waits for the end, when every change is known.

import JSONCore
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit

struct StreamPending {
    var element: Int
    var index: Int
    var tableName: String?
    var recordID: Int32
    var datastore: DatastoreChange?
    var state: TableState
    /// For an insert, its record in `StreamLimits.tracked`.
    var trackedInsert: Int?
}

extension SnapshotStreamer {
    /// Maps `delta` over the current rows of `state`'s table (which it then replaces by the rows
    /// after the changes), following the size of each record it touches (`StreamLimits`).
    func mapDelta(_ delta: Delta, state: TableState, element: Int) throws(BriefcaseError) {
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
        let tableName = codePage.decodeReversibly(delta.name)

        var slotIDs = state.slotIDs
        var slotSizes = state.slotSizes, slotPositions = state.slotPositions
        var entries = ChangeEntries()
        var pendings: [StreamPending] = []
        for (index, change) in delta.changes.enumerated() {
            let step = replay.changes[index]
            var datastore: DatastoreChange?
            var trackedInsert: Int?
            switch step.outcome {
            case .inserted:
                let after = step.after ?? []
                let id = recordID(for: after, in: state, fallback: "c\(change.recordID)")
                let record = mapping.record(of: after, roles: state.roles)
                let size = record.size(.conservative)
                slotIDs.append(id)
                slotSizes.append(size)
                slotPositions.append(nil)
                trackedInsert = limits.trackInsert(tableID: state.tid, recordID: id, size: size)
                datastore = .insert(tableID: state.tid, recordID: id, fields: record)
            case .updated:
                let slot = step.slot!
                let id = slotIDs[slot]
                var size = slotSizes[slot]
                // Only the logged columns are mapped (field ids are unique per table), not whole
                // records: a delta-heavy briefcase updates most rows.
                func mapped(_ row: Row?, _ column: Int, json: Bool) -> DatastoreValue? {
                    guard let row, column < row.count, let value = row[column] else { return nil }
                    return mapping.forward(value, json: json)
                }
                var updates: [FieldUpdate] = []
                var seen = Set<String>()
                for (position, column) in columns.enumerated() {
                    guard let column, case .field(let fid, let json) = state.roles[column], !seen.contains(fid) else { continue }
                    let sent = position < change.newValues.count && change.newValues[position] != nil
                    guard sent || !delta.isReduced else { continue }
                    let old = mapped(step.before, column, json: json)
                    if let value = mapped(step.after, column, json: json) {
                        updates.append(FieldUpdate(fid, .put(value)))
                        seen.insert(fid)
                        size += DatastoreSize.baseField + value.size(.conservative)
                        if let old { size -= DatastoreSize.baseField + old.size(.conservative) }
                    } else if let old {
                        updates.append(FieldUpdate(fid, .delete))
                        seen.insert(fid)
                        size -= DatastoreSize.baseField + old.size(.conservative)
                    }
                }
                let tracked = limits.track(tableID: state.tid, recordID: id, storedPosition: slotPositions[slot], size: slotSizes[slot])
                limits.tracked[tracked].size = size
                slotSizes[slot] = size
                datastore = .update(tableID: state.tid, recordID: id, updates: updates)
            case .deleted:
                let slot = step.slot!
                let id = slotIDs[slot]
                limits.trackDelete(limits.track(tableID: state.tid, recordID: id, storedPosition: slotPositions[slot], size: slotSizes[slot]))
                state.live.remove(id)
                datastore = .delete(tableID: state.tid, recordID: id)
            case .notApplied:
                datastore = nil
            }

            // The change's object in the `briefcase` member: head, rowid | (rev, change) | old, new.
            entries.bounds.append(entries.position)
            compact.writeOpenChangeHead(change, to: &entries.writer)
            entries.writer.writeRaw(",\"rowid\":")
            if let datastore { entries.writer.writeString(datastore.recordID) } else { entries.writer.writeNull() }
            entries.splits.append(entries.position)
            entries.writer.writeRaw(",\"old\":")
            compact.writeValues(change.oldValues, types: types, to: &entries.writer)
            let back = mapping.newValues(of: datastore, roles: loggedRoles, types: types)
            let overrides = differences(back, change.newValues, types: types)
            if !overrides.isEmpty {
                entries.writer.writeRaw(",\"new\":")
                entries.writer.writeValue(.object(overrides))
            }
            entries.writer.writeByte(UInt8(ascii: "}"))
            pendings.append(StreamPending(element: element, index: index, tableName: tableName, recordID: change.recordID,
                                          datastore: datastore, state: state, trackedInsert: trackedInsert))
        }
        state.table.rows = replay.rows
        let live = replay.slots.indices.filter { replay.slots[$0] != nil }
        state.slotIDs = live.map { slotIDs[$0] }
        state.slotSizes = live.map { slotSizes[$0] }
        state.slotPositions = live.map { slotPositions[$0] }
        entries.finish()
        changeEntries[element] = entries
        pendingByElement[element] = pendings

        var head: JSONObject
        do {
            head = try parts.deltaHead(delta)
        } catch let error as BriefcaseError {
            throw error
        } catch {
            throw BriefcaseError(.invalidModel, "\(error)")
        }
        head = TableMapping.inserting(tid: state.tid, into: head)
        head["loggedFields"] = TableMapping.annotate(head["loggedFields"], roles: loggedRoles)
        deltaHeads[element] = head
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

    // MARK: grouping

    /// One delta per applied change, or the grouping the `DatastoreSnapshot` property records.
    /// Returns the tracked inserts in the order the deltas apply them.
    func groupDeltas() -> [Int] {
        var insertOrder: [Int] = []
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
                if let tracked = pending[member].trackedInsert { insertOrder.append(tracked) }
            }
            let nonce = group.nonce ?? ExportBuilder.nonce(changes, rev: deltaRev)
            deltas.append(DatastoreDelta(rev: deltaRev, changes: changes, nonce: nonce))
        }
        return insertOrder
    }

    private func patch(_ member: Int, rev: Int, change: Int) {
        let item = pending[member]
        changeEntries[item.element]?.placed[item.index] = (rev, change)  // in place: no copy of the entries
    }
}

/// The `changes` of a delta element of the `briefcase` member, serialized as the delta is mapped.
/// Change `i` is `bytes[bounds[i]..<splits[i]]` (its head, up to its `rowid`), then
/// `,"rev":R,"change":C` once grouping has placed it in a datastore delta, then
/// `bytes[splits[i]..<bounds[i + 1]]`.
struct ChangeEntries {
    var writer = JSONWriter(sink: ArraySink(), bufferSize: 1 << 14)
    var bounds: [Int] = []
    var splits: [Int] = []
    var placed: [(rev: Int, change: Int)?] = []

    var position: Int { writer.sink.bytes.count + writer.bufferedCount }

    mutating func finish() {
        bounds.append(position)
        try! writer.flush()  // an ArraySink never fails
        placed = Array(repeating: nil, count: splits.count)
    }

    /// `[change,change,…]`.
    func write<S: ByteSink>(to out: inout JSONWriter<S>) {
        out.writeByte(UInt8(ascii: "["))
        writer.sink.bytes.withUnsafeBytes { bytes in
            for index in splits.indices {
                if index > 0 { out.writeByte(UInt8(ascii: ",")) }
                out.writeRaw(UnsafeRawBufferPointer(rebasing: bytes[bounds[index]..<splits[index]]))
                if let (rev, change) = placed[index] {
                    out.writeRaw(",\"rev\":")
                    out.writeInt(Int64(rev))
                    out.writeRaw(",\"change\":")
                    out.writeInt(Int64(change))
                }
                out.writeRaw(UnsafeRawBufferPointer(rebasing: bytes[splits[index]..<bounds[index + 1]]))
            }
        }
        out.writeByte(UInt8(ascii: "]"))
    }
}
