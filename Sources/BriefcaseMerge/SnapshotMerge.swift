import DatastoreKit
import JSONCore

/// A three-way merge of datastore snapshots (Spec/merge.md §5): records paired by table id and
/// record id, each side's changes since BASE resolved against the other's as the Dropbox
/// Datastore's client resolved its unsynced changes against the server's — record by record,
/// field by field with the fields' rules, list fields by operational transform.
public enum SnapshotMerge {
    /// Something both sides changed, and how it came out (one line of `--report`).
    public struct Conflict: Sendable, Equatable {
        /// The table id.
        public var tableID: String
        /// The record id.
        public var recordID: String
        /// The field both changed; nil for a record one side deleted while the other updated it.
        public var field: String?
        /// The field's value in BASE's current records (nil: absent, or a record conflict).
        public var base: DatastoreValue?
        /// The field's value in LOCAL's current records.
        public var local: DatastoreValue?
        /// The field's value in REMOTE's current records.
        public var remote: DatastoreValue?
        /// The rule that decided (nil where the Datastore's precedence did: a put or delete
        /// against a list operation, a delete of a list element the other side put or moved).
        public var rule: MergeRule?
        /// What the field holds now: `local` or `remote` (the value of that side), `sum`, `merged`
        /// (both sides' list operations), or `deleted` for a record conflict.
        public var outcome: String
    }

    /// The merged document and the conflicts met on the way.
    public struct Result: Sendable {
        /// BASE with one more delta that takes its records to the merged ones (none when nothing
        /// changed); with `asStored`, the merged records at the revision that delta would give.
        public var document: SnapshotDocument
        /// The delta added: REMOTE's changes since BASE, then LOCAL's transformed to follow them.
        public var changes: [DatastoreChange]
        /// Every conflict, in the order LOCAL changed the records.
        public var conflicts: [Conflict]
    }

    /// Which input an error is about.
    public enum Input: String, Sendable {
        /// The common ancestor.
        case base = "BASE"
        /// This side.
        case local = "LOCAL"
        /// The other side, whose changes the merge takes first.
        case remote = "REMOTE"
    }

    /// A merge that cannot be made: an input whose deltas do not apply, or (never expected) a
    /// merged change that does not apply, with the input nil.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// The input at fault; nil for the merged changes.
        public var input: Input?
        /// What is wrong, with its path in that input (or in the merged delta's changes).
        public var error: DatastoreError

        /// `LOCAL: <path>: <message>` (or `the merged changes: …`).
        public var description: String {
            (input.map { "\($0.rawValue): " } ?? "the merged changes: ") + error.description
        }
    }

    /// Merges what LOCAL and REMOTE changed since BASE. A side's changes are its deltas past
    /// BASE's when it holds BASE's records and deltas (or BASE's deltas folded in) — list
    /// operations kept — else the difference of its current records from BASE's (Spec/merge.md
    /// §5). The result holds BASE's records and deltas and one delta more.
    public static func merge(base: SnapshotDocument, local: SnapshotDocument, remote: SnapshotDocument,
                             rules: ThreeWayMerge.Rules = ThreeWayMerge.Rules(), asStored: Bool = false) throws(Failure) -> Result {
        let baseCurrent = try current(base, .base)
        let localCurrent = try current(local, .local), remoteCurrent = try current(remote, .remote)
        let ours = try SideChanges(local, current: localCurrent, base: base, baseCurrent: baseCurrent, input: .local)
        let theirs = try SideChanges(remote, current: remoteCurrent, base: base, baseCurrent: baseCurrent, input: .remote)

        // Records both changed: LOCAL's changes transformed to follow REMOTE's.
        var localOut: [DatastoreChange?] = ours.changes
        var transforms: [RecordTransform] = []
        for key in ours.recordOrder {
            guard let remotePositions = theirs.byRecord[key] else { continue }
            var transform = RecordTransform(tableID: key.tableID, recordID: key.recordID, rules: rules)
            let localPositions = ours.byRecord[key]!
            let transformed = transform.transform(
                local: localPositions.map { LocalChange(ours.changes[$0], position: $0, before: ours.befores[$0]) },
                remote: remotePositions.map { theirs.changes[$0] })
            for position in localPositions { localOut[position] = nil }
            for change in transformed { localOut[change.position] = change.change(tableID: key.tableID, recordID: key.recordID) }
            transforms.append(transform)
        }
        let changes = theirs.changes + localOut.compactMap { $0 }
        var merged = baseCurrent
        for (position, change) in changes.enumerated() {
            do {
                try merged.apply(change)
            } catch {
                throw Failure(input: nil, error: error.prefixed(by: JSONPath.root.appending(index: position)))
            }
        }
        let conflicts = transforms.flatMap { $0.conflicts(base: baseCurrent, local: localCurrent, remote: remoteCurrent, merged: merged) }
        return Result(document: output(base: base, current: baseCurrent, merged: merged, changes: changes, asStored: asStored),
                      changes: changes, conflicts: conflicts)
    }

    /// A document's records with its deltas applied.
    static func current(_ document: SnapshotDocument, _ input: Input) throws(Failure) -> DatastoreSnapshot {
        do {
            return try document.appliedSnapshot()
        } catch {
            throw Failure(input: input, error: error)
        }
    }

    /// BASE with a delta of `changes` after its own (or, `asStored`, the merged records).
    static func output(base: SnapshotDocument, current: DatastoreSnapshot, merged: DatastoreSnapshot,
                       changes: [DatastoreChange], asStored: Bool) -> SnapshotDocument {
        var document = base
        if asStored {
            var records = merged
            records.rev = current.rev + (changes.isEmpty ? 0 : 1)
            document.snapshot = records
            document.deltas = base.deltas.map { _ in [] }
        } else if !changes.isEmpty {
            document.deltas = (base.deltas ?? [])
                + [DatastoreDelta(rev: current.rev, changes: changes, nonce: DatastoreDelta.derivedNonce(rev: current.rev, changes: changes))]
        }
        return document
    }
}

extension ThreeWayMerge.Rules {
    /// The rule of field `field` of datastore table `tableID`: the last `--rule` whose
    /// `TABLE.FIELD` text is `tableID.field` exactly (ids are case-sensitive, and may hold dots),
    /// else `max` for `:info`'s `mtime` (as the Datastore's client did), else the default.
    public func rule(tableID: String, field: String) -> MergeRule {
        let text = Array("\(tableID).\(field)".utf8)
        if let named = byField.last(where: { Array($0.table.bytes) + [UInt8(ascii: ".")] + Array($0.field.bytes) == text }) {
            return named.rule
        }
        if tableID == DatastoreIdentifier.infoTable && field == DatastoreIdentifier.infoModifiedTimeField { return .max }
        return defaultRule
    }
}
