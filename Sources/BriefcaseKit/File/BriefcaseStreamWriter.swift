/// Where a `BriefcaseStreamWriter` puts its bytes: appended in order, with one way back to
/// overwrite bytes already written (the Bin2 index position, known only at the end).
public protocol BriefcaseStreamOutput {
    /// Appends `bytes` after what was written.
    mutating func append(_ bytes: UnsafeRawBufferPointer) throws(BriefcaseError)
    /// Replaces `bytes.count` bytes at `offset`, which were appended before.
    mutating func overwrite(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(BriefcaseError)
    /// Forgets everything written, so the writer can start over.
    mutating func reset() throws(BriefcaseError)
    /// Appends what `encode` writes and returns how many bytes that was. By default they are
    /// encoded into a buffer of about `capacity()` bytes, then appended; an output that keeps its
    /// bytes in memory lets `encode` write there directly (no second copy of a large table). When
    /// `encode` throws, nothing is appended.
    mutating func appendEncoded(capacity: () -> Int, _ encode: (inout ByteWriter) throws(BriefcaseError) -> Void) throws(BriefcaseError) -> Int
}

extension BriefcaseStreamOutput {
    public mutating func appendEncoded(capacity: () -> Int, _ encode: (inout ByteWriter) throws(BriefcaseError) -> Void) throws(BriefcaseError) -> Int {
        var writer = ByteWriter(capacity: capacity())
        try encode(&writer)
        return try append(writer.bytes)
    }

    /// Appends `bytes` and returns their count.
    mutating func append(_ bytes: [UInt8]) throws(BriefcaseError) -> Int {
        try append(bytes[...])
    }

    /// Appends `bytes` (a part of an array, not copied) and returns their count.
    mutating func append(_ bytes: ArraySlice<UInt8>) throws(BriefcaseError) -> Int {
        let failure: BriefcaseError? = bytes.withUnsafeBytes { buffer in
            do throws(BriefcaseError) { try append(buffer) } catch { return error }
            return nil
        }
        if let failure { throw failure }
        return bytes.count
    }
}

/// Bytes kept in memory: the whole-document encoders' output, and outputs that cannot seek back
/// (standard output, gzip).
public struct MemoryStreamOutput: BriefcaseStreamOutput {
    private var writer: ByteWriter
    /// The bytes written so far.
    public var bytes: [UInt8] { writer.bytes }

    /// `capacity`: the bytes to reserve at once (an estimate of the whole output).
    public init(capacity: Int = 0) { writer = ByteWriter(capacity: capacity) }

    /// Appends `bytes` in memory.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) throws(BriefcaseError) {
        writer.writeBytes(bytes)
    }

    public mutating func overwrite(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(BriefcaseError) {
        guard writer.replace(at: offset, with: bytes) else {
            throw BriefcaseError(.invalidModel, "internal: overwrite past the end of the output")
        }
    }

    public mutating func reset() throws(BriefcaseError) { writer = ByteWriter() }

    public mutating func appendEncoded(capacity: () -> Int, _ encode: (inout ByteWriter) throws(BriefcaseError) -> Void) throws(BriefcaseError) -> Int {
        let start = writer.count
        do throws(BriefcaseError) {
            try encode(&writer)
        } catch {
            writer.truncate(to: start)
            throw error
        }
        return writer.count - start
    }
}

/// The writer of binary briefcases: a single file (`DABRC600`) or a bare Bin2 stream, written one
/// element at a time so that only the element being written needs to be in memory — the header
/// and properties first, then each element as it comes, then the index; the one field that
/// points forward (the index position after `DABIN200`) is overwritten at the end
/// (Spec/daBriefcase.md). Every binary output goes through here: the whole-document encoders
/// (`bytes(of:as:)`), the converters, and the lazy `Briefcase`, which copies tables it never
/// loaded as their raw bytes (`write(raw:of:)`).
public struct BriefcaseStreamWriter<Output: BriefcaseStreamOutput> {
    /// Where the bytes go.
    public private(set) var output: Output
    /// Bytes written so far: the absolute position of the next byte.
    public private(set) var count = 0
    private var streamStart = 0
    private var index: [(kind: ElementKind, name: ByteString, position: Int)] = []
    private var finished = false

    /// Writes the header (and, for a single file, the properties and header padding).
    /// A bare Bin2 stream cannot hold properties: refused.
    public init(output: Output, container: ContainerFormat, properties: [BriefcaseProperty] = [],
                headerPadding: ByteString = .empty) throws(BriefcaseError) {
        if container == .bin2, !properties.isEmpty || !headerPadding.isEmpty {
            throw BriefcaseError(.invalidModel, "a bare Bin2 stream cannot hold the \(properties.count) briefcase properties; convert to dabriefcase, folder or json instead")
        }
        self.output = output
        let headerSize = container == .bin2 ? 0 : properties.reduce(16 + headerPadding.count) { $0 + 8 + $1.name.count + $1.value.count }
        count = try self.output.appendEncoded(capacity: { headerSize + 12 }) { writer throws(BriefcaseError) in
            if container == .dabriefcase {
                let start = writer.count
                writer.writeBytes(Array(BriefcaseFileCodec.signature.utf8))
                writer.writeInt32(0) // data offset, set below: the header is all in this buffer
                writer.writeInt32(try ByteWriter.int32(properties.count, "property count"))
                for property in properties {
                    try writer.writeLengthPrefixed(property.name)
                    try writer.writeLengthPrefixed(property.value)
                }
                writer.writeBytes(headerPadding.bytes)
                writer.setInt32(try ByteWriter.int32(writer.count - start, "data offset"), at: start + 8)
            }
            writer.writeBytes(Array(ElementIndex.signature.utf8))
            writer.writeInt32(0) // index position, overwritten by `finish()`
        }
        streamStart = count - 12
    }

    /// Writes one element after the previous ones.
    public mutating func write(_ element: Element) throws(BriefcaseError) {
        let position = count
        try append(element.kind, element.name) { output throws(BriefcaseError) in
            try output.appendEncoded(capacity: { Bin2Encoder.estimatedSize(of: element) }) { writer throws(BriefcaseError) in
                switch element {
                case .table(let table): try Bin2Encoder.encodeTable(table, into: &writer, at: position)
                case .delta(let delta): try Bin2Encoder.encodeDelta(delta, into: &writer)
                }
            }
        }
    }

    /// Writes an element as the bytes it has in another stream (`bytes`, read from `stored`),
    /// without decoding it. A table's body holds one position, its schema end (bytes 1…4),
    /// which moves with the body.
    public mutating func write(raw bytes: consuming [UInt8], of stored: BriefcaseElements.Stored) throws(BriefcaseError) {
        var body = bytes
        if stored.kind == .table {
            try Self.moveSchemaEnd(in: &body, by: count - (stored.range.lowerBound - stored.positionBase))
        }
        try append(stored.kind, stored.name) { output throws(BriefcaseError) in try output.append(body) }
    }

    /// Writes an element encoded ahead, on another thread, as if it started at position 0
    /// (`Bin2Encoder.encodeAhead`): its schema end moves to where it lands. A failed encoding
    /// fails here, in the element's turn, as `write(_:)` would have.
    public mutating func write(encoded: Result<EncodedBin2Element, BriefcaseError>, kind: ElementKind, name: ByteString) throws(BriefcaseError) {
        let count = count
        try append(kind, name) { output throws(BriefcaseError) in
            let done = try encoded.get()
            let body = done.bytes
            var written: Int
            if kind == .table, body.count >= 5 {
                // The first five bytes patched apart: changing the body in place would copy it
                // whole (the caller still holds it).
                var start = Array(body[0 ..< 5])
                try Self.moveSchemaEnd(in: &start, by: count)
                written = try output.append(start) + output.append(body[5...])
            } else {
                written = try output.append(body)
            }
            // A table's rows kept apart come last, as they were.
            if !done.storedRows.isEmpty { written += try output.append(done.storedRows) }
            return written
        }
    }

    /// Adds `delta` to the schema-end position of a table body (bytes 1…4), unless the table has
    /// no schema and a zero there (which stays 0): the one absolute position a body holds.
    static func moveSchemaEnd(in body: inout [UInt8], by delta: Int) throws(BriefcaseError) {
        guard body.count >= 5 else { return }
        let schemaEnd = Int(ByteReader(bytes: body).getInteger(at: 1, as: Int32.self)!)
        guard body[0] != 0 || schemaEnd != 0 else { return }
        let moved = try ByteWriter.int32(schemaEnd + delta, "schema end position")
        withUnsafeBytes(of: moved.littleEndian) { for i in 0..<4 { body[1 + i] = $0[i] } }
    }

    /// Appends one element (`write` appends its bytes and returns their count) and notes it for the index.
    private mutating func append(_ kind: ElementKind, _ name: ByteString,
                                 _ write: (inout Output) throws(BriefcaseError) -> Int) throws(BriefcaseError) {
        let position = count
        do throws(BriefcaseError) {
            _ = try ByteWriter.int32(position, "element position")
            let written = try write(&output)
            count += written
        } catch {
            // (A failing output is not the element's fault.)
            throw error.kind == .io ? error : error.inElement(String(decoding: name.bytes, as: UTF8.self))
        }
        // The name's own bytes: a decoded name shares the buffer of its element, which would
        // otherwise stay in memory until the index is written (every element's bytes, when they
        // come one at a time from an SQLite database: 1.3 GB for the 1 GB briefcase).
        index.append((kind, ByteString(name.array), position))
    }

    /// Writes the index and points the stream's header at it. Write nothing after this.
    public mutating func finish() throws(BriefcaseError) {
        guard !finished else { return }
        let indexPosition = try ByteWriter.int32(count, "index position")
        let entries = index
        let written = try output.appendEncoded(capacity: { entries.reduce(4) { $0 + 12 + $1.name.count } }) { writer throws(BriefcaseError) in
            writer.writeInt32(try ByteWriter.int32(entries.count, "element count"))
            for entry in entries {
                writer.writeInt32(entry.kind.rawValue)
                try writer.writeLengthPrefixed(entry.name)
                writer.writeInt32(Int32(entry.position)) // checked in `append`
            }
        }
        count += written
        var field = ByteWriter()
        field.writeInt32(indexPosition)
        let at = streamStart + 8
        let failure: BriefcaseError? = field.bytes.withUnsafeBytes { bytes in
            do throws(BriefcaseError) { try output.overwrite(bytes, at: at) } catch { return error }
            return nil
        }
        if let failure { throw failure }
        finished = true
    }
}

extension BriefcaseStreamWriter where Output == MemoryStreamOutput {
    /// The bytes of `file` as `container`: what the whole-document encoders return, written
    /// element by element into memory reserved once for the whole output.
    static func bytes(of file: BriefcaseFile, as container: ContainerFormat) throws(BriefcaseError) -> [UInt8] {
        let header = file.properties.reduce(28 + file.headerPadding.count) { $0 + 8 + $1.name.count + $1.value.count }
        let capacity = file.stream.elements.reduce(header) { $0 + Bin2Encoder.estimatedSize(of: $1) }
        var writer = try BriefcaseStreamWriter(output: MemoryStreamOutput(capacity: capacity), container: container,
                                               properties: file.properties, headerPadding: file.headerPadding)
        for element in file.stream.elements { try writer.write(element) }
        try writer.finish()
        return writer.output.bytes
    }
}

extension BriefcaseStreamWriter where Output == SharedAtomicOutput {
    /// Writes the single file at `path` (properties, then the elements `write` writes, then the
    /// index) into a temporary file that takes its place only once complete and flushed:
    /// replacing what is there only when `replacing` (`AtomicOutput`; dropped unfinished, it
    /// removes itself).
    static func writeFile(_ path: String, replacing: Bool, removingStale: Bool = true, properties: [BriefcaseProperty] = [],
                          headerPadding: ByteString = .empty, _ write: (inout Self) throws(BriefcaseError) -> Void) throws(BriefcaseError) {
        let output = try SharedAtomicOutput(path: path, replacing: replacing, removingStale: removingStale)
        var writer = try Self(output: output, container: .dabriefcase, properties: properties, headerPadding: headerPadding)
        try write(&writer)
        try writer.finish()
        try output.commit()
    }
}
