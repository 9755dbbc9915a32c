// Datastore limits of a streamed snapshot, counted as the rows go by: the same violations, in
// the same order, as `ExportBuilder.checkLimits` finds on the whole snapshot. Record sizes are
// checked per row; count and size at the end. For the state after the pending changes, only
// the records the changes touch are kept (every other record is as it was, so its message was
// already given and would be dropped as a repeat): they are replayed in a small snapshot.

import BriefcaseKit
import DatastoreKit

struct StreamLimits {
    var recordCount = 0
    /// Σ record size, Bytes counted the conservative way.
    var recordsSize = 0
    /// Messages given (a repeat is not given again).
    var seen = Set<String>()
    /// The stored records a pending change updates or deletes, with their position in `rows`.
    var touched: [(position: Int, row: DatastoreRow)] = []

    mutating func addRecord(size: Int, tableID: String, recordID: String, display: String,
                            violations: inout [LimitViolation])
    {
        if let error = DatastoreLimits.violation(ofRecordSize: size, tableID: tableID, recordID: recordID),
           seen.insert(error.message).inserted
        {
            violations.append(LimitViolation(message: error.message, element: display))
        }
        recordCount += 1
        recordsSize += size
    }

    /// Keeps the stored records of the table just written (`ids`, `rows`) whose id is in `ids`.
    mutating func keepTouched(_ wanted: Set<String>, ids: [String], rows: [Row], state: TableState,
                              mapping: ValueMapping)
    {
        let first = recordCount - ids.count
        for (slot, id) in ids.enumerated() where wanted.contains(id) {
            let record = mapping.record(of: rows[slot], roles: state.roles)
            touched.append((first + slot, DatastoreRow(tableID: state.tid, recordID: id, record: record)))
        }
    }
}

extension SnapshotStreamer {
    func checkLimits() {
        let names = Dictionary(states.map { ($0.tid, $0.display) }, uniquingKeysWith: { first, _ in first })
        func give(_ error: DatastoreError?, prefix: String = "", element: String? = nil) {
            guard let error, limits.seen.insert(error.message).inserted else { return }
            violations.append(LimitViolation(message: prefix + error.message, element: element))
        }
        give(DatastoreLimits.violation(ofRecordCount: limits.recordCount))
        give(DatastoreLimits.violation(ofDatastoreSize: DatastoreSize.baseDatastore + limits.recordsSize))

        var snapshot = DatastoreSnapshot(rev: rev)
        for item in limits.touched.sorted(by: { $0.position < $1.position }) {
            do {
                try snapshot.insert(item.row)
            } catch {
                warnings.append("internal: the rows do not form a snapshot: \(error)")
                return
            }
        }
        let countBefore = snapshot.recordCount
        let sizeBefore = snapshot.size(.conservative)
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
        guard !deltas.isEmpty else { return }
        let prefix = "after the pending changes, "
        for row in snapshot.rows {
            give(DatastoreLimits.violation(ofRecord: row.record, tableID: row.tableID, recordID: row.recordID),
                 prefix: prefix, element: names[row.tableID])
        }
        give(DatastoreLimits.violation(ofRecordCount: limits.recordCount - countBefore + snapshot.recordCount), prefix: prefix)
        give(DatastoreLimits.violation(ofDatastoreSize: limits.recordsSize - sizeBefore + snapshot.size(.conservative)
                                       + DatastoreSize.baseDatastore), prefix: prefix)
    }
}
