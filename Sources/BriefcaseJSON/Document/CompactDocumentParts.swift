import JSONCore
import BriefcaseKit

/// Pieces of the JSON document as compact JSON text, written straight into a `JSONWriter`: the
/// bytes that writing `JSONDocumentParts`' trees would give (`json(_:types:)`, `changeHead`),
/// without building a tree per value and serializing it again. The snapshot export writes one
/// such piece per pending change, so that cost was a tenth of its time on delta-heavy data.
///
/// Each value is written by the document's own emitter into the writer's buffer, so the forms
/// are exactly the document's; only a value written as an object (`{"bytes": …}`,
/// `{"oleDate": …}`: the one form with whitespace outside strings) is then compacted in place
/// (the whitespace the document puts after `:` and `,` is dropped; strings are copied as they
/// are, their escapes being the writer's own).
public struct CompactDocumentParts {
    private let emitter: JSONValueEmitter

    /// Pieces for 8-bit strings in `codePage`.
    public init(codePage: CodePage) {
        emitter = JSONValueEmitter(codePage: codePage)
    }

    /// `[v,v,…]`: each value in its column's form (`null` for nil or a value without a type).
    public func writeValues(_ values: [Value?], types: [DataType], to writer: inout JSONWriter<ArraySink>) {
        writer.writeByte(UInt8(ascii: "["))
        for (position, value) in values.enumerated() {
            if position > 0 { writer.writeByte(UInt8(ascii: ",")) }
            guard let value, position < types.count else { writer.writeNull(); continue }
            let start = writer.buffer.count
            emitter.writeValue(value, type: types[position], to: &writer.buffer)
            compact(from: start, in: &writer)
        }
        writer.writeByte(UInt8(ascii: "]"))
    }

    /// An 8-bit string: text when the code page maps it reversibly, else `{"bytes":base64}`.
    public func writeAnsi(_ string: ByteString, to writer: inout JSONWriter<ArraySink>) {
        let start = writer.buffer.count
        emitter.writeAnsi(string, to: &writer.buffer)
        compact(from: start, in: &writer)
    }

    /// A change's head without its closing brace, so members can follow:
    /// `{"type":…,"recordID":…,"status":…,"message":…`.
    public func writeOpenChangeHead(_ change: DeltaChange, to writer: inout JSONWriter<ArraySink>) {
        writer.writeRaw("{\"type\":")
        if change.type.isKnown { writer.writeString(change.type.description) } else { writer.writeInt(Int64(change.type.rawValue)) }
        writer.writeRaw(",\"recordID\":")
        writer.writeInt(Int64(change.recordID))
        writer.writeRaw(",\"status\":")
        if change.status.isKnown { writer.writeString(change.status.description) } else { writer.writeInt(Int64(change.status.rawValue)) }
        writer.writeRaw(",\"message\":")
        writeAnsi(change.message, to: &writer)
    }

    /// Drops the whitespace outside strings from the value written at `start…` when it is an
    /// object (a string, number or literal has none), then lets the writer drain.
    private func compact(from start: Int, in writer: inout JSONWriter<ArraySink>) {
        if start < writer.buffer.count && writer.buffer[start] == UInt8(ascii: "{") {
            var inString = false, escaped = false, kept = start
            for index in start..<writer.buffer.count {
                let byte = writer.buffer[index]
                if inString {
                    if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                } else if byte == UInt8(ascii: "\"") {
                    inString = true
                } else if byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D {
                    continue
                }
                writer.buffer[kept] = byte
                kept += 1
            }
            writer.buffer.removeSubrange(kept...)
        }
        writer.drainIfFull()
    }
}
