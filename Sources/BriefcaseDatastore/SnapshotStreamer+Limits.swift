// Datastore limits of a streamed snapshot, counted as the rows go by: the same violations, in
// the same order, as `ExportBuilder.checkLimits` finds on the whole snapshot. Record sizes are
// checked per row; count and size at the end. For the state after the pending changes, only
// the records the changes touch can give new messages (every other record is as it was, so its
// message was already given and would be dropped as a repeat): their sizes are followed change
// by change as the deltas are mapped (`TrackedRecord`), without building the records.

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
}

struct StreamLimits {
    var recordCount = 0
    /// Σ record size, Bytes counted the conservative way.
    var recordsSize = 0
    /// Messages given (a repeat is not given again).
    var seen = Set<String>()
    /// Every record a change touched, in the order it was first touched.
    var tracked: [TrackedRecord] = []
    /// The live tracked record of each (table id, record id).
    var trackedIndex: [RecordKey: Int] = [:]
    /// Σ stored size of the stored records tracked, and how many there are.
    var storedTrackedSize = 0
    var storedTrackedCount = 0

    struct RecordKey: Hashable {
        var tableID: String
        var recordID: String
    }

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

    /// The tracked record an update or a delete touches: the live one of that id, or the stored
    /// record at `storedPosition` (of size `size`), tracked from now on.
    mutating func track(tableID: String, recordID: String, storedPosition: Int?, size: Int) -> Int {
        let key = RecordKey(tableID: tableID, recordID: recordID)
        if let index = trackedIndex[key] { return index }
        if storedPosition != nil {
            storedTrackedSize += size
            storedTrackedCount += 1
        }
        tracked.append(TrackedRecord(tableID: tableID, recordID: recordID, storedPosition: storedPosition, size: size))
        trackedIndex[key] = tracked.count - 1
        return tracked.count - 1
    }

    /// A record an insert makes; returns its index in `tracked`.
    mutating func trackInsert(tableID: String, recordID: String, size: Int) -> Int {
        tracked.append(TrackedRecord(tableID: tableID, recordID: recordID, storedPosition: nil, size: size))
        trackedIndex[RecordKey(tableID: tableID, recordID: recordID)] = tracked.count - 1
        return tracked.count - 1
    }

    mutating func trackDelete(_ index: Int) {
        tracked[index].alive = false
        trackedIndex[RecordKey(tableID: tracked[index].tableID, recordID: tracked[index].recordID)] = nil
    }
}

extension SnapshotStreamer {
    /// - Parameter insertOrder: the tracked inserts in the order the deltas apply them.
    func checkLimits(insertOrder: [Int]) {
        let names = Dictionary(states.map { ($0.tid, $0.display) }, uniquingKeysWith: { first, _ in first })
        func give(_ error: DatastoreError?, prefix: String = "", element: String? = nil) {
            guard let error, limits.seen.insert(error.message).inserted else { return }
            violations.append(LimitViolation(message: prefix + error.message, element: element))
        }
        give(DatastoreLimits.violation(ofRecordCount: limits.recordCount))
        give(DatastoreLimits.violation(ofDatastoreSize: DatastoreSize.baseDatastore + limits.recordsSize))
        for delta in deltas {
            if let error = DatastoreLimits.violation(ofDelta: delta) {
                violations.append(LimitViolation(message: error.message, element: delta.changes.first.flatMap { names[$0.tableID] }))
            }
        }
        guard !deltas.isEmpty else { return }
        // The records after the changes as a snapshot orders them: the stored ones in their
        // order, then the inserted ones in the order the deltas apply them.
        let stored = limits.tracked.indices.filter { limits.tracked[$0].storedPosition != nil && limits.tracked[$0].alive }
            .sorted { limits.tracked[$0].storedPosition! < limits.tracked[$1].storedPosition! }
        let after = stored + insertOrder.filter { limits.tracked[$0].alive }
        let prefix = "after the pending changes, "
        var size = 0
        for index in after {
            let record = limits.tracked[index]
            size += record.size
            give(DatastoreLimits.violation(ofRecordSize: record.size, tableID: record.tableID, recordID: record.recordID),
                 prefix: prefix, element: names[record.tableID])
        }
        give(DatastoreLimits.violation(ofRecordCount: limits.recordCount - limits.storedTrackedCount + after.count), prefix: prefix)
        give(DatastoreLimits.violation(ofDatastoreSize: limits.recordsSize - limits.storedTrackedSize + size
                                       + DatastoreSize.baseDatastore), prefix: prefix)
    }
}
