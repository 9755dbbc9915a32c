// libFuzzer target `snapshot`: datastore snapshot documents (Spec/datastore-format.md).
//
// The input is decoded with `SnapshotDocument(parsing:)`. What decodes must serialize (unless
// the writer refuses it with a `DatastoreError`) to text that decodes to the same document;
// the pending deltas are applied (`appliedSnapshot`), and the result, when they apply, must
// serialize and read back equal too.
//
// Scripts/fuzz.sh snapshot SECONDS

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
    }
    return 0
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
