/// Where a `BriefcaseStreamWriter` puts its bytes: appended in order, with one way back to
/// overwrite bytes already written (the Bin2 index position, known only at the end).
public protocol BriefcaseStreamOutput {
    mutating func append(_ bytes: UnsafeRawBufferPointer) throws(BriefcaseError)
    /// Replaces `bytes.count` bytes at `offset`, which were appended before.
    mutating func overwrite(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(BriefcaseError)
    /// Forgets everything written, so the writer can start over.
    mutating func reset() throws(BriefcaseError)
}

/// Bytes kept in memory: for outputs that cannot seek back (standard output, gzip).
public struct MemoryStreamOutput: BriefcaseStreamOutput {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public mutating func append(_ bytes: UnsafeRawBufferPointer) throws(BriefcaseError) {
        self.bytes.append(contentsOf: bytes)
    }

    public mutating func overwrite(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(BriefcaseError) {
        guard offset >= 0, offset + bytes.count <= self.bytes.count else {
            throw BriefcaseError(.invalidModel, "internal: overwrite past the end of the output")
        }
        for i in 0..<bytes.count { self.bytes[offset + i] = bytes[i] }
    }

    public mutating func reset() throws(BriefcaseError) { bytes.removeAll() }
}

extension AtomicOutput: BriefcaseStreamOutput {
    public mutating func append(_ bytes: UnsafeRawBufferPointer) throws(BriefcaseError) {
        try write(bytes)
    }
}

/// Writes a single-file briefcase (`DABRC600`) or a bare Bin2 stream one element at a time, so
/// that only the element being written needs to be in memory: the header and properties first,
/// then each element as it comes, then the index; the one field that points forward (the index
/// position after `DABIN200`) is overwritten at the end. The bytes are exactly those of
/// `BriefcaseFileCodec.encode` / `Bin2Encoder.encode` of the same document (Spec/daBriefcase.md).
public struct BriefcaseStreamWriter<Output: BriefcaseStreamOutput> {
    public private(set) var output: Output
    /// Bytes written so far: the absolute position of the next byte.
    public private(set) var count = 0
    private var streamStart = 0
    private var index: [(kind: ElementKind, name: ByteString, position: Int)] = []
    private var finished = false

    /// Writes the header (and, for a single file, the properties and header padding).
    /// A bare Bin2 stream cannot hold properties: refused as `BriefcaseDocument.encode` does.
    public init(output: Output, container: ContainerFormat, properties: [BriefcaseProperty] = [],
                headerPadding: ByteString = .empty) throws(BriefcaseError) {
        self.output = output
        var writer = ByteWriter()
        switch container {
        case .dabriefcase:
            writer.writeBytes(Array(BriefcaseFileCodec.signature.utf8))
            writer.writeInt32(0) // data offset, set below: the header is all in this buffer
            writer.writeInt32(try ByteWriter.int32(properties.count, "property count"))
            for property in properties {
                try writer.writeLengthPrefixed(property.name)
                try writer.writeLengthPrefixed(property.value)
            }
            writer.writeBytes(headerPadding.bytes)
            writer.setInt32(try ByteWriter.int32(writer.count, "data offset"), at: 8)
        case .bin2:
            guard properties.isEmpty, headerPadding.isEmpty else {
                throw BriefcaseError(.invalidModel, "a bare Bin2 stream cannot hold the \(properties.count) briefcase properties; convert to dabriefcase, folder or json instead")
            }
        }
        streamStart = writer.count
        writer.writeBytes(Array(ElementIndex.signature.utf8))
        writer.writeInt32(0) // index position, overwritten by `finish()`
        try emit(writer)
    }

    /// Writes one element after the previous ones.
    public mutating func write(_ element: Element) throws(BriefcaseError) {
        let position = count
        var writer = ByteWriter(capacity: Bin2Encoder.estimatedSize(Bin2Stream(elements: [element])))
        do throws(BriefcaseError) {
            switch element {
            case .table(let table):
                try Bin2Encoder.encodeTable(table, into: &writer)
                // The encoder wrote the schema-end position relative to this buffer; the file
                // needs it absolute (an absent schema with a zero marker stays 0).
                if table.schema != nil || table.schemaEndWhenAbsent == .position {
                    let relative = writer.bytes.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: 1, as: Int32.self).littleEndian) }
                    writer.setInt32(try ByteWriter.int32(position + relative, "schema end position"), at: 1)
                }
            case .delta(let delta):
                try Bin2Encoder.encodeDelta(delta, into: &writer)
            }
            _ = try ByteWriter.int32(position, "element position")
        } catch {
            throw error.inElement(String(decoding: element.name.bytes, as: UTF8.self))
        }
        try emit(writer)
        index.append((element.kind, element.name, position))
    }

    /// Writes the index and points the stream's header at it. Write nothing after this.
    public mutating func finish() throws(BriefcaseError) {
        guard !finished else { return }
        let indexPosition = try ByteWriter.int32(count, "index position")
        var writer = ByteWriter()
        writer.writeInt32(try ByteWriter.int32(index.count, "element count"))
        for entry in index {
            writer.writeInt32(entry.kind.rawValue)
            try writer.writeLengthPrefixed(entry.name)
            writer.writeInt32(Int32(entry.position)) // checked in `write`
        }
        try emit(writer)
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

    private mutating func emit(_ writer: ByteWriter) throws(BriefcaseError) {
        let failure: BriefcaseError? = writer.bytes.withUnsafeBytes { bytes in
            do throws(BriefcaseError) { try output.append(bytes) } catch { return error }
            return nil
        }
        if let failure { throw failure }
        count += writer.count
    }
}
