// Pending changes while streaming: each delta is mapped right after its table's rows (while
// they are still in memory), as `ExportBuilder.deltaObject` maps it; grouping into datastore
// deltas waits for the end, when every change is known.

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
}

extension SnapshotStreamer {
    /// Maps `delta` over the current rows of `state`'s table (which it then replaces by the rows
    /// after the changes). `touched` gathers the ids of the stored records it updates or deletes.
    func mapDelta(_ delta: Delta, state: TableState, element: Int, touched: inout Set<String>) throws(BriefcaseError) {
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
        var entries: [JSONObject] = []
        var pendings: [StreamPending] = []
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
                touched.insert(id)
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
                    if let value = mapped(step.after, column, json: json) {
                        updates.append(FieldUpdate(fid, .put(value)))
                        seen.insert(fid)
                    } else if mapped(step.before, column, json: json) != nil {
                        updates.append(FieldUpdate(fid, .delete))
                        seen.insert(fid)
                    }
                }
                datastore = .update(tableID: state.tid, recordID: id, updates: updates)
            case .deleted:
                let id = slotIDs[step.slot!]
                touched.insert(id)
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
            pendings.append(StreamPending(element: element, index: index, tableName: tableName, recordID: change.recordID,
                                          datastore: datastore, state: state))
        }
        state.table.rows = replay.rows
        state.slotIDs = replay.slots.indices.compactMap { replay.slots[$0] == nil ? nil : slotIDs[$0] }
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
    func groupDeltas() {
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
            let nonce = group.nonce ?? ExportBuilder.nonce(changes, rev: deltaRev)
            deltas.append(DatastoreDelta(rev: deltaRev, changes: changes, nonce: nonce))
        }
    }

    private func patch(_ member: Int, rev: Int, change: Int) {
        let item = pending[member]
        guard let old = changeEntries[item.element]?[item.index] else { return }
        var entry = JSONObject()
        for m in old.members {
            entry.append(key: m.key, value: m.value)
            if m.key == "rowid" {
                entry.append(key: "rev", value: .integer(rev))
                entry.append(key: "change", value: .integer(change))
            }
        }
        changeEntries[item.element]![item.index] = entry  // in place: no copy of the delta's entries
    }
}
