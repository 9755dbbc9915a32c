// The snapshot document (see Spec/datastore-format.md):
//
//   {"rev": r, "rows": [{"tid","rowid","data"}, …], "deltas": [{"rev","changes","nonce"}, …], …}
//
// `rev` and `rows` are exactly a `get_snapshot` response; `deltas` (optional) are pending
// changes exactly as `get_deltas` returns them, the first at the snapshot's `rev` and each next
// one at the following revision; any other top-level key is kept as it is, in order, for a
// higher layer.

import JSONCore

/// A datastore snapshot with its pending deltas and any extra top-level members.
public struct SnapshotDocument: Equatable, Sendable {
    /// The rows at revision `rev`.
    public var snapshot: DatastoreSnapshot
    /// Pending deltas; nil when the document has no `deltas` key (an empty array is kept as such).
    public var deltas: [DatastoreDelta]?
    /// Top-level members other than `rev`, `rows` and `deltas`, in document order.
    public var extras: JSONObject

    /// The keys the document itself defines.
    public static let reservedKeys: Set<String> = ["rev", "rows", "deltas"]

    /// A document of `snapshot`, optional `deltas` and extra top-level members.
    public init(snapshot: DatastoreSnapshot, deltas: [DatastoreDelta]? = nil, extras: JSONObject = JSONObject()) {
        self.snapshot = snapshot
        self.deltas = deltas
        self.extras = extras
    }

    // MARK: reading

    /// Parses and decodes a document. JSON syntax errors are `malformedJSON` (with the byte offset).
    public init(parsing bytes: [UInt8]) throws(DatastoreError) {
        self = try bytes.withUnsafeBytes { buf in Result { () throws(DatastoreError) in try SnapshotDocument(parsing: buf) } }.get()
    }

    /// The same, of bytes that stay valid meanwhile (a mapped file).
    public init(parsing bytes: UnsafeRawBufferPointer) throws(DatastoreError) {
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            throw DatastoreError(.malformedJSON, "not valid JSON: \(error.message)", offset: error.offset)
        }
        try self.init(json: json)
    }

    /// Parses a snapshot document from text.
    public init(parsing text: String) throws(DatastoreError) {
        try self.init(parsing: Array(text.utf8))
    }

    /// Decodes a parsed document. Checks everything the format says (shapes, values, ids,
    /// duplicate records, `rev ≥ 1` when there are rows, the deltas' revision sequence) but does
    /// not apply the deltas (see `appliedSnapshot()`).
    public init(json: JSONValue) throws(DatastoreError) {
        let object = try Wire.object(json, what: "a snapshot document", at: .root)
        guard let revJSON = object["rev"] else {
            throw DatastoreError(.invalidStructure, "a snapshot document has no \"rev\"")
        }
        guard let rowsJSON = object["rows"] else {
            throw DatastoreError(.invalidStructure, "a snapshot document has no \"rows\"")
        }
        let revPath = JSONPath.root.appending(key: "rev")
        let rev = try Wire.nonNegativeInt(revJSON, what: "rev", at: revPath)
        let rowsPath = JSONPath.root.appending(key: "rows")
        let rowArray = try Wire.array(rowsJSON, what: "rows", at: rowsPath)
        if rev == 0 && !rowArray.isEmpty {
            throw DatastoreError(.invalidStructure,
                "rev is 0 but there are \(rowArray.count) rows; a datastore with records is at revision 1 or later",
                at: revPath)
        }
        var snapshot = DatastoreSnapshot(rev: rev)
        for (position, rowJSON) in rowArray.enumerated() {
            let rowPath = rowsPath.appending(index: position)
            do {
                try snapshot.insert(try DatastoreRow(wire: rowJSON))
            } catch {
                throw error.prefixed(by: rowPath)
            }
        }
        self.snapshot = snapshot

        if let deltasJSON = object["deltas"] {
            let deltasPath = JSONPath.root.appending(key: "deltas")
            let array = try Wire.array(deltasJSON, what: "deltas", at: deltasPath)
            var deltas: [DatastoreDelta] = []
            deltas.reserveCapacity(array.count)
            for (position, deltaJSON) in array.enumerated() {
                let deltaPath = deltasPath.appending(index: position)
                let delta: DatastoreDelta
                do {
                    delta = try DatastoreDelta(wire: deltaJSON)
                } catch {
                    throw error.prefixed(by: deltaPath)
                }
                try SnapshotDocument.checkSequence(delta, position: position, snapshotRev: rev, at: deltaPath)
                deltas.append(delta)
            }
            self.deltas = deltas
        } else {
            deltas = nil
        }
        extras = JSONObject(object.members.filter { !SnapshotDocument.reservedKeys.contains($0.key) })
    }

    /// Checks that the delta at `position` is at revision `snapshotRev + position`.
    static func checkSequence(_ delta: DatastoreDelta, position: Int, snapshotRev: Int, at path: JSONPath)
        throws(DatastoreError)
    {
        // (A document at revision Int.max can hold only one delta: the next would be beyond it.)
        let (expected, overflow) = snapshotRev.addingReportingOverflow(position)
        guard !overflow else {
            throw DatastoreError(.revisionMismatch,
                "a delta after revision \(Int.max) is impossible (the previous delta ends there)",
                at: path.appending(key: "rev"))
        }
        guard delta.rev == expected else {
            let why = position == 0
                ? "the first delta must be at the snapshot's revision \(snapshotRev)"
                : "each delta follows the previous one, so this one must be at revision \(expected)"
            throw DatastoreError(.revisionMismatch, "the delta is at revision \(delta.rev); \(why)",
                at: path.appending(key: "rev"))
        }
    }

    /// The snapshot with all pending deltas applied (errors at `$.deltas[i]…`).
    public func appliedSnapshot() throws(DatastoreError) -> DatastoreSnapshot {
        var result = snapshot
        for (position, delta) in (deltas ?? []).enumerated() {
            do {
                try result.apply(delta)
            } catch {
                throw error.prefixed(by: JSONPath.root.appending(key: "deltas").appending(index: position))
            }
        }
        return result
    }

    // MARK: writing

    /// Writes the document: `rev`, `rows` (one row per line), `deltas` if not nil (one delta per
    /// line), then the extras, and a final newline. Throws, before writing anything wrong, for
    /// what cannot be read back: invalid ids in deltas, a broken revision sequence, extras
    /// named `rev`/`rows`/`deltas` or twice, `rev` 0 with rows.
    public func write<S: ByteSink>(to writer: inout JSONWriter<S>) throws(DatastoreError) {
        var documentWriter = SnapshotDocumentWriter(rev: snapshot.rev)
        for row in snapshot.rows {
            try documentWriter.writeRow(row, to: &writer)
        }
        if let deltas {
            try documentWriter.beginDeltas(to: &writer)
            for delta in deltas { try documentWriter.writeDelta(delta, to: &writer) }
        }
        for member in extras.members {
            try documentWriter.writeExtra(key: member.key, value: member.value, to: &writer)
        }
        try documentWriter.finish(to: &writer)
    }

    /// The document's text as UTF-8.
    public func serialized() throws(DatastoreError) -> [UInt8] {
        var writer = JSONWriter(sink: ArraySink())
        try write(to: &writer)
        try! writer.flush()  // an ArraySink never fails
        return writer.sink.bytes
    }
}
