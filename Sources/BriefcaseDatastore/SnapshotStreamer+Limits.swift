// Datastore limits of a streamed snapshot, counted as the rows go by: the violations, in that
// order, that `DatastoreLimits` would find in the whole snapshot, in each delta, and in the
// snapshot after them all (Spec/datastore-mapping.md §7). Record sizes are
// checked per row; count and size at the end; each delta's size as it is written. For the state
// after the pending changes, only the records the changes touch can give new messages (every
// other record is as it was, so its message was already given and would be dropped as a
// repeat): their sizes are followed change by change as the deltas are mapped
// (`TrackedRecord`), and once a table's deltas are done only sums and the records over the limit
// are kept (`settleTracked`), so memory holds one table's touched records, not the briefcase's.

import BriefcaseKit
import DatastoreKit

/// A record a pending change touches, as it stands after the changes mapped so far.
struct TrackedRecord {
    var tableID: String
    var recordID: String
    /// Its position among the stored records, or nil for a record a change inserted.
    var storedPosition: Int?
    /// The record size (`.conservative`), and whether the record still exists.
    var size: Int
    var alive = true
    /// For a record a change inserted: that change.
    var insertedBy: PendingChangeKey?
}

struct StreamLimits {
    var recordCount = 0
    /// Σ record size, Bytes counted the conservative way.
    var recordsSize = 0
    /// Messages given (a repeat is not given again).
    var seen = Set<String>()
    /// The records the changes of the tables being mapped touched, in the order first touched.
    var tracked: [TrackedRecord] = []
    /// Σ stored size of the stored records tracked, and how many there are.
    var storedTrackedSize = 0
    var storedTrackedCount = 0
    /// Σ size of the settled tracked records alive after the changes, and how many there are.
    var settledSize = 0
    var settledCount = 0
    /// Settled records alive after the changes and over the record limit: the stored ones, and
    /// the inserted ones by their insert.
    var oversizedStored: [TrackedRecord] = []
    var oversizedInserts: [PendingChangeKey: TrackedRecord] = [:]
    /// Delta-size violations, found as the deltas are written.
    var deltaViolations: [LimitViolation] = []

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

    /// Starts following a stored record (at `storedPosition`, of size `size`) or one a change
    /// inserted; returns its index in `tracked`.
    mutating func track(tableID: String, recordID: String, storedPosition: Int?, size: Int) -> Int {
        if storedPosition != nil {
            storedTrackedSize += size
            storedTrackedCount += 1
        }
        tracked.append(TrackedRecord(tableID: tableID, recordID: recordID, storedPosition: storedPosition, size: size))
        return tracked.count - 1
    }

    /// A record the insert `insertedBy` makes; returns its index in `tracked`.
    mutating func trackInsert(tableID: String, recordID: String, size: Int, insertedBy: PendingChangeKey) -> Int {
        tracked.append(TrackedRecord(tableID: tableID, recordID: recordID, storedPosition: nil, size: size,
                                     insertedBy: insertedBy))
        return tracked.count - 1
    }

    /// Once no change can touch the tracked records again (their tables' deltas are mapped):
    /// keeps their sums and the ones over the record limit, and forgets the rest.
    mutating func settleTracked() {
        for record in tracked where record.alive {
            settledSize += record.size
            settledCount += 1
            guard record.size > DatastoreLimits.recordSize else { continue }
            if let insert = record.insertedBy {
                oversizedInserts[insert] = record
            } else {
                oversizedStored.append(record)
            }
        }
        tracked = []
    }
}

extension SnapshotStreamer {
    /// - Parameter insertOrder: the oversized inserts in the order the deltas apply them.
    func checkLimits(insertOrder: [PendingChangeKey]) {
        let names = Dictionary(states.map { ($0.tid, $0.display) }, uniquingKeysWith: { first, _ in first })
        func give(_ error: DatastoreError?, prefix: String = "", element: String? = nil) {
            guard let error, limits.seen.insert(error.message).inserted else { return }
            violations.append(LimitViolation(message: prefix + error.message, element: element))
        }
        give(DatastoreLimits.violation(ofRecordCount: limits.recordCount))
        give(DatastoreLimits.violation(ofDatastoreSize: DatastoreSize.baseDatastore + limits.recordsSize))
        violations += limits.deltaViolations
        guard deltasWritten > 0 else { return }
        // The records after the changes as a snapshot orders them: the stored ones in their
        // order, then the inserted ones in the order the deltas apply them.
        let after = limits.oversizedStored.sorted { ($0.storedPosition ?? 0) < ($1.storedPosition ?? 0) }
            + insertOrder.compactMap { limits.oversizedInserts[$0] }
        let prefix = "after the pending changes, "
        for record in after {
            give(DatastoreLimits.violation(ofRecordSize: record.size, tableID: record.tableID, recordID: record.recordID),
                 prefix: prefix, element: names[record.tableID])
        }
        give(DatastoreLimits.violation(ofRecordCount: limits.recordCount - limits.storedTrackedCount + limits.settledCount),
             prefix: prefix)
        give(DatastoreLimits.violation(ofDatastoreSize: limits.recordsSize - limits.storedTrackedSize + limits.settledSize
                                       + DatastoreSize.baseDatastore), prefix: prefix)
    }
}
