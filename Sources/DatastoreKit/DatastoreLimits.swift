// The API's limits. A size equal to its limit is allowed; one above it is not.

import JSONCore

/// Size and count limits of a datastore, and checks against them.
///
/// Reading and applying never enforce limits (the data may come from elsewhere, and a caller
/// may choose to go over them); ask for the violations explicitly.
public enum DatastoreLimits {
    /// 100 KiB per record.
    public static let recordSize = 100 * 1024
    /// 10 MiB per datastore.
    public static let datastoreSize = 10 * 1024 * 1024
    /// Records per datastore.
    public static let recordCount = 100_000
    /// 2 MiB per delta (the Python SDK's limit on pending changes).
    public static let deltaSize = 2 * 1024 * 1024

    /// Every broken limit of `snapshot`, as `limitExceeded` errors: each oversized record
    /// (path `$.rows[i]`, its position in `rows`), then too many records (`$.rows`), then the
    /// datastore size (`$`). Sizes count Bytes values by `accounting` (conservative by default).
    public static func violations(in snapshot: DatastoreSnapshot, accounting: BytesAccounting = .conservative)
        -> [DatastoreError]
    {
        var errors: [DatastoreError] = []
        for (position, row) in snapshot.rows.enumerated() {
            if let error = violation(ofRecord: row.record, tableID: row.tableID, recordID: row.recordID,
                                     accounting: accounting)
            {
                errors.append(error.prefixed(by: JSONPath.root.appending(key: "rows").appending(index: position)))
            }
        }
        if let error = violation(ofRecordCount: snapshot.recordCount) { errors.append(error) }
        if let error = violation(ofDatastoreSize: snapshot.size(accounting)) { errors.append(error) }
        return errors
    }

    /// The record-count violation of a datastore of `count` records (path `$.rows`), or nil.
    /// (A writer that streams rows counts them itself and asks at the end.)
    public static func violation(ofRecordCount count: Int) -> DatastoreError? {
        guard count > recordCount else { return nil }
        return DatastoreError(.limitExceeded, "the datastore has \(count) records; at most \(recordCount) are allowed",
                              at: JSONPath.root.appending(key: "rows"))
    }

    /// The violation of a datastore of size `size` (1000 + Σ record size; path `$`), or nil.
    public static func violation(ofDatastoreSize size: Int) -> DatastoreError? {
        guard size > datastoreSize else { return nil }
        return DatastoreError(.limitExceeded, "the datastore size is \(size) bytes; at most \(datastoreSize) are allowed")
    }

    /// The record-size violation of one record (path `$`), or nil.
    public static func violation(ofRecord record: DatastoreRecord, tableID: String, recordID: String,
                                 accounting: BytesAccounting = .conservative) -> DatastoreError?
    {
        violation(ofRecordSize: record.size(accounting), tableID: tableID, recordID: recordID)
    }

    /// The violation of a record of size `size` (100 + Σ field sizes; path `$`), or nil.
    public static func violation(ofRecordSize size: Int, tableID: String, recordID: String) -> DatastoreError? {
        guard size > recordSize else { return nil }
        return DatastoreError(.limitExceeded,
            "the record \(JSONPath.quoted(recordID)) of table \(JSONPath.quoted(tableID)) has size \(size) bytes; "
                + "at most \(recordSize) are allowed")
    }

    /// The delta-size violation of `delta` (path `$`), or nil.
    public static func violation(ofDelta delta: DatastoreDelta, accounting: BytesAccounting = .conservative)
        -> DatastoreError?
    {
        violation(ofDeltaSize: delta.size(accounting), rev: delta.rev)
    }

    /// The violation of the delta for revision `rev` of size `size` (100 + Σ change size; path
    /// `$`), or nil. (A writer that streams deltas tallies their sizes itself.)
    public static func violation(ofDeltaSize size: Int, rev: Int) -> DatastoreError? {
        guard size > deltaSize else { return nil }
        return DatastoreError(.limitExceeded,
            "the delta for revision \(rev) has size \(size) bytes; at most \(deltaSize) are allowed")
    }
}
