// The end of the streamed document: `deltas`, the extra members a plain snapshot had, and the
// `briefcase` member, whose element objects were serialized table by table.

import JSONCore
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit

extension SnapshotStreamer {
    func writeDeltas() throws(BriefcaseError) {
        out.writeRaw(",\"deltas\":[")
        for (position, delta) in deltas.enumerated() {
            do {
                try delta.validate(at: JSONPath.root.appending(key: "deltas").appending(index: position))
            } catch {
                throw BriefcaseError(.invalidModel, "internal: the snapshot document was refused: \(error)")
            }
            out.writeRaw(position == 0 ? "\n" as StaticString : ",\n")
            delta.write(to: &out)
            try flushChunk()
        }
        out.writeRaw(deltas.isEmpty ? "]" as StaticString : "\n]")
    }

    func writeExtras() throws(BriefcaseError) {
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
        for position in heads.indices {
            if position > 0 { out.writeByte(UInt8(ascii: ",")) }
            if let bytes = elementBytes[position] {
                out.writeRaw(bytes)
                elementBytes[position] = nil
            } else if let object = deltaHeads[position] {
                if let entries = changeEntries[position] {
                    // The head's members (`deltaHead` has no `changes`), then `"changes":[…]`
                    // written from the serialized entries.
                    var text = JSONValue.object(object).serialized()
                    text.removeLast()  // its "}"
                    out.writeRaw(text)
                    out.writeRaw(object.members.isEmpty ? "\"changes\":" as StaticString : ",\"changes\":")
                    entries.write(to: &out)
                    out.writeByte(UInt8(ascii: "}"))
                    changeEntries[position] = nil
                } else {
                    out.writeValue(.object(object))
                }
            }
            try flushChunk()
        }
        out.writeRaw("]}")
    }
}
