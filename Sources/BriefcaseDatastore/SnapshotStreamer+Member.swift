// The end of the streamed document: `deltas`, the extra members a plain snapshot had, and the
// `briefcase` member, whose element objects were spooled table by table and delta by delta.
//
// Without a recorded grouping each applied change is its own delta, in briefcase order (delta
// elements in stream order, changes in stored order): both members are then written reading the
// spooled changes in that order, numbering the applied ones as they come, and nothing per change
// is held. A grouping the `DatastoreSnapshot` property recorded (a briefcase made from a snapshot)
// needs every change at once: `HintedDeltas` loads their headers.

import JSONCore
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit

/// The deltas of a grouping the `DatastoreSnapshot` property recorded.
struct HintedDeltas {
    var groups: [(nonce: String?, members: [Int])]
    /// Every change in briefcase order, and its place in the briefcase.
    var changes: [SpooledChange]
    var keys: [PendingChangeKey]
    /// Each change's place once grouped: (delta revision, index in the delta).
    var placed: [(rev: Int, change: Int)?]
}

extension SnapshotStreamer {
    /// The delta elements mapped, in stream order.
    var mappedDeltaElements: [Int] { heads.indices.filter { mappedDeltas[$0] != nil } }

    /// Calls `body` with each spooled change of the delta element at `element`, in order.
    func forEachChange(of element: Int, _ body: (Int, SpooledChange) throws(BriefcaseError) -> Void) throws(BriefcaseError) {
        guard let mapped = mappedDeltas[element] else { return }
        var offset = mapped.spooled.lowerBound
        for index in 0..<mapped.changeCount {
            let change = try SpooledChange.read(at: offset, from: spool)
            try body(index, change)
            offset = change.entryTail.upperBound
        }
    }

    /// The recorded grouping, when there is one and it describes these changes (else nil, with
    /// a warning when there was one).
    func hintedDeltas() throws(BriefcaseError) -> HintedDeltas? {
        guard let hinted = hints?.deltas else { return nil }
        var changes: [SpooledChange] = [], keys: [PendingChangeKey] = [], grouping: [DeltaGrouping.Change] = []
        for element in mappedDeltaElements {
            guard let mapped = mappedDeltas[element] else { continue }
            try forEachChange(of: element) { (index, change) throws(BriefcaseError) in
                changes.append(change)
                keys.append(PendingChangeKey(element: element, index: index))
                grouping.append(DeltaGrouping.Change(tableName: mapped.tableName, recordID: change.recordID,
                                                     applied: change.isApplied, table: ObjectIdentifier(mapped.state)))
            }
        }
        let (groups, hintsIgnored) = DeltaGrouping.groups(grouping, rev: rev, hinted: hinted)
        if hintsIgnored {
            warnings.append("the \(SnapshotHints.propertyName) property does not describe these changes; one delta per change instead")
            return nil
        }
        return HintedDeltas(groups: groups, changes: changes, keys: keys,
                            placed: Array(repeating: nil, count: changes.count))
    }

    /// Writes `deltas`; returns the oversized inserts in the order the deltas apply them.
    func writeDeltas(_ hinted: inout HintedDeltas?) throws(BriefcaseError) -> [PendingChangeKey] {
        out.writeRaw(",\"deltas\":[")
        var insertOrder: [PendingChangeKey] = []
        if var plan = hinted {
            for (position, group) in plan.groups.enumerated() {
                var delta = openDelta(rev: rev + position)
                for member in group.members where plan.changes[member].isApplied {
                    plan.placed[member] = (delta.rev, delta.count)
                    guard let state = mappedDeltas[plan.keys[member].element]?.state else { continue }
                    try add(plan.changes[member], key: plan.keys[member], of: state, tableID: Array(state.tid.utf8),
                            to: &delta, insertOrder: &insertOrder)
                }
                try close(delta, nonce: group.nonce)
            }
            hinted = plan
        } else {
            for element in mappedDeltaElements {
                guard let state = mappedDeltas[element]?.state else { continue }
                let tableID = Array(state.tid.utf8)
                try forEachChange(of: element) { (index, change) throws(BriefcaseError) in
                    guard change.isApplied else { return }
                    var delta = openDelta(rev: rev + deltasWritten)
                    try add(change, key: PendingChangeKey(element: element, index: index), of: state, tableID: tableID,
                            to: &delta, insertOrder: &insertOrder)
                    try close(delta, nonce: nil)
                }
            }
        }
        out.writeRaw(deltasWritten == 0 ? "]" as StaticString : "\n]")
        return insertOrder
    }

    /// A datastore delta being written: `{"rev":R,"changes":[` is out; its nonce, size (100 + Σ
    /// change size) and first table are gathered as its changes are.
    struct OpenDelta {
        var rev: Int
        var nonce: DeltaNonce
        var size = DatastoreSize.baseDelta
        var count = 0
        var display: String?
    }

    private func openDelta(rev deltaRev: Int) -> OpenDelta {
        out.writeRaw(deltasWritten == 0 ? "\n" as StaticString : ",\n")
        out.writeRaw("{\"rev\":")
        out.writeInt(Int64(deltaRev))
        out.writeRaw(",\"changes\":[")
        return OpenDelta(rev: deltaRev, nonce: DeltaNonce(rev: deltaRev))
    }

    private func add(_ change: SpooledChange, key: PendingChangeKey, of state: TableState, tableID: [UInt8],
                     to delta: inout OpenDelta, insertOrder: inout [PendingChangeKey]) throws(BriefcaseError) {
        if delta.count > 0 { out.writeByte(UInt8(ascii: ",")) }
        out.writeRaw(try spool.bytes(change.change))
        delta.nonce.add(tag: CollectionOfOne(change.tag), tableID: tableID, recordID: try spool.bytes(change.rowid))
        delta.size += change.size
        if delta.count == 0 { delta.display = state.display }
        delta.count += 1
        if change.tag == SpooledChange.insert, !limits.oversizedInserts.isEmpty, limits.oversizedInserts[key] != nil {
            insertOrder.append(key)
        }
    }

    private func close(_ delta: OpenDelta, nonce: String?) throws(BriefcaseError) {
        out.writeRaw("],\"nonce\":")
        out.writeString(nonce ?? delta.nonce.text)
        out.writeByte(UInt8(ascii: "}"))
        if let error = DatastoreLimits.violation(ofDeltaSize: delta.size, rev: delta.rev) {
            limits.deltaViolations.append(LimitViolation(message: error.message, element: delta.display))
        }
        deltasWritten += 1
        try flushChunk()
    }

    func writeExtras(_ hinted: HintedDeltas?) throws(BriefcaseError) {
        var written = Set<String>()
        for member in hints?.extras.members ?? [] {
            if SnapshotDocument.reservedKeys.contains(member.key) || member.key == SnapshotExport.memberName
                || !written.insert(member.key).inserted
            {
                continue
            }
            out.writeByte(UInt8(ascii: ","))
            out.writeString(member.key)
            out.writeByte(UInt8(ascii: ":"))
            out.writeValue(member.value)
        }

        var meta = JSONObject()
        meta["format"] = .string(SnapshotExport.formatName)
        meta["version"] = .integer(SnapshotExport.formatVersion)
        meta["container"] = .string(container.rawValue)
        meta["encoding"] = .string(codePage.name)
        if container == .dabriefcase {
            meta["properties"] = .array(properties.map { [parts.json(ansi: $0.name), parts.json(ansi: $0.value)] })
            if !headerPadding.isEmpty {
                meta["headerPadding"] = .string(Base64.encode(headerPadding.bytes))
            }
        }
        var metaText = JSONValue.object(meta).serialized()
        metaText.removeLast()  // its "}": `elements` follows
        out.writeByte(UInt8(ascii: ","))
        out.writeString(SnapshotExport.memberName)
        out.writeByte(UInt8(ascii: ":"))
        out.writeRaw(metaText)
        out.writeRaw(",\"elements\":[")
        var applied = 0  // without a recorded grouping: the applied changes so far, one delta each
        var flat = 0     // with one: the position of the next change in `hinted.changes`
        for position in heads.indices {
            if position > 0 { out.writeByte(UInt8(ascii: ",")) }
            if let range = tableObjects[position] {
                out.writeRaw(try spool.bytes(range))
            } else if let object = deltaHeads[position] {
                // The head's members (`deltaHead` has no `changes`), then `"changes":[…]` written
                // from the spooled objects, each placed in its delta.
                var text = JSONValue.object(object).serialized()
                text.removeLast()  // its "}"
                out.writeRaw(text)
                out.writeRaw(object.members.isEmpty ? "\"changes\":[" as StaticString : ",\"changes\":[")
                try forEachChange(of: position) { (index, change) throws(BriefcaseError) in
                    if index > 0 { out.writeByte(UInt8(ascii: ",")) }
                    out.writeRaw(try spool.bytes(change.entryHead))
                    var place: (rev: Int, change: Int)?
                    if let hinted {
                        place = flat < hinted.placed.count ? hinted.placed[flat] : nil
                        flat += 1
                    } else if change.isApplied {
                        place = (rev + applied, 0)
                        applied += 1
                    }
                    if let place {
                        out.writeRaw(",\"rev\":")
                        out.writeInt(Int64(place.rev))
                        out.writeRaw(",\"change\":")
                        out.writeInt(Int64(place.change))
                    }
                    out.writeRaw(try spool.bytes(change.entryTail))
                    try flushChunk()
                }
                out.writeRaw("]}")
            }
            try flushChunk()
        }
        out.writeRaw("]}")
    }
}
