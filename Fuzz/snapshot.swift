// libFuzzer target `snapshot`: datastore snapshot documents (Spec/datastore-format.md).
//
// The input is decoded with `SnapshotDocument(parsing:)`. What decodes must serialize (unless
// the writer refuses it with a `DatastoreError`) to text that decodes to the same document;
// the pending deltas are applied (`appliedSnapshot`), and the result, when they apply, must
// serialize and read back equal too. When they apply, the document (LOCAL) is merged
// (`SnapshotMerge`) over its rows without deltas (BASE) with the first half of its deltas
// (REMOTE): no trap, and a merge that fails says so with a `Failure`; merged with BASE itself it
// gives LOCAL's records.
//
// Scripts/fuzz.sh snapshot SECONDS

import BriefcaseMerge
import DatastoreKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let document = try? SnapshotDocument(parsing: bytes) else { return 0 }
    checkRoundTrip(document)
    _ = document.snapshot.size()
    if let deltas = document.deltas {
        for delta in deltas { _ = delta.size() }
    }
    if let applied = try? document.appliedSnapshot() {
        _ = applied.size()
        checkRoundTrip(SnapshotDocument(snapshot: applied, extras: document.extras))
        checkMerges(document, applied)
    }
    return 0
}

private func checkMerges(_ local: SnapshotDocument, _ applied: DatastoreSnapshot) {
    let deltas = local.deltas ?? []
    let base = SnapshotDocument(snapshot: local.snapshot)
    let remote = SnapshotDocument(snapshot: local.snapshot, deltas: Array(deltas.prefix(deltas.count / 2)))
    _ = try? SnapshotMerge.merge(base: base, local: local, remote: remote)
    _ = try? SnapshotMerge.merge(base: base, local: remote, remote: local, rules: ThreeWayMerge.Rules(defaultRule: .sum))
    do {
        var merged = try SnapshotMerge.merge(base: base, local: local, remote: base).document.appliedSnapshot()
        merged.rev = applied.rev
        guard merged == applied else { fuzzFailure("a snapshot merged with an unchanged side is not the other side") }
    } catch {
        fuzzFailure("a snapshot merged with an unchanged side fails: \(error)")
    }
}

private func checkRoundTrip(_ document: SnapshotDocument) {
    guard let text = try? document.serialized() else { return }
    let again: SnapshotDocument
    do {
        again = try SnapshotDocument(parsing: text)
    } catch {
        fuzzFailure("a serialized snapshot document does not read back: \(error)")
    }
    guard again == document else { fuzzFailure("snapshot document round trip changed the document") }
}
