import JSONCore
import BriefcaseKit

/// Pieces of the JSON document as compact JSON text, written straight into a `JSONWriter`: the
/// bytes that writing `JSONDocumentParts`' trees would give (`json(_:types:)`, `changeHead`),
/// without building a tree per value and serializing it again. The snapshot export writes one
/// such piece per pending change, so that cost was a tenth of its time on delta-heavy data.
///
/// The values are written by the document's own emitter and then compacted (the whitespace the
/// document puts after `:` and `,` is dropped; strings are copied as they are, their escapes being
/// the writer's own), so the forms are exactly the document's. Not `Sendable`: it keeps a scratch
/// buffer.
public struct CompactDocumentParts {
    private let emitter: JSONValueEmitter
    private var scratch: [UInt8] = []

    public init(codePage: CodePage) {
        emitter = JSONValueEmitter(codePage: codePage)
    }

    /// `[v,v,…]`: each value in its column's form (`null` for nil or a value without a type).
    public mutating func writeValues(_ values: [Value?], types: [DataType], to writer: inout JSONWriter<ArraySink>) {
        writer.writeByte(UInt8(ascii: "["))
        for (position, value) in values.enumerated() {
            if position > 0 { writer.writeByte(UInt8(ascii: ",")) }
            guard let value, position < types.count else { writer.writeNull(); continue }
            scratch.removeAll(keepingCapacity: true)
            emitter.writeValue(value, type: types[position], to: &scratch)
            writeCompacted(to: &writer)
        }
        writer.writeByte(UInt8(ascii: "]"))
    }

    /// An 8-bit string: text when the code page maps it reversibly, else `{"bytes":base64}`.
    public mutating func writeAnsi(_ string: ByteString, to writer: inout JSONWriter<ArraySink>) {
        scratch.removeAll(keepingCapacity: true)
        emitter.writeAnsi(string, to: &scratch)
        writeCompacted(to: &writer)
    }

    /// A change's head without its closing brace, so members can follow:
    /// `{"type":…,"recordID":…,"status":…,"message":…`.
    public mutating func writeOpenChangeHead(_ change: DeltaChange, to writer: inout JSONWriter<ArraySink>) {
        writer.writeRaw("{\"type\":")
        if change.type.isKnown { writer.writeString(change.type.description) } else { writer.writeInt(Int64(change.type.rawValue)) }
        writer.writeRaw(",\"recordID\":")
        writer.writeInt(Int64(change.recordID))
        writer.writeRaw(",\"status\":")
        if change.status.isKnown { writer.writeString(change.status.description) } else { writer.writeInt(Int64(change.status.rawValue)) }
        writer.writeRaw(",\"message\":")
        writeAnsi(change.message, to: &writer)
    }

    /// `scratch` without whitespace outside strings.
    private func writeCompacted(to writer: inout JSONWriter<ArraySink>) {
        var inString = false, escaped = false, start = 0
        scratch.withUnsafeBufferPointer { bytes in
            for (index, byte) in bytes.enumerated() {
                if inString {
                    if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                } else if byte == UInt8(ascii: "\"") {
                    inString = true
                } else if byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D {
                    if start < index { writer.writeRaw(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start..<index]))) }
                    start = index + 1
                }
            }
            if start < bytes.count { writer.writeRaw(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start...]))) }
        }
    }
}
