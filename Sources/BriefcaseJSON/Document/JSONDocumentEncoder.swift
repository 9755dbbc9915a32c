import JSONCore
import BriefcaseKit

/// Writes the lossless JSON document of a briefcase (Spec/json-format.md), streaming: the
/// document is never built in memory; rows go to the sink one line each.
///
/// Everything the binary writer needs to reproduce the file byte for byte is in the document.
/// Text is shown as text where that is reversible; otherwise the exact bytes travel as base64.
public struct JSONDocumentEncoder<Sink: ByteSink> {
    /// The writer of the document (its sink is the output).
    public var writer: JSONWriter<Sink>
    /// The code page of 8-bit strings (names, properties, String/Memo/FixedChar values); as a
    /// sink, the one each `begin` names.
    public private(set) var codePage: CodePage
    /// Writes values and 8-bit strings straight into the writer's buffer (non-generic, no Strings).
    private(set) var emitter: JSONValueEmitter
    /// The memory of elements encoded ahead, used again by the next ones (`elementPreparation()`).
    private let encodedChunks = ChunkPool()
    /// Where a batch of rows kept as bytes is written (`encodeStoredRows`), used again by the next.
    private let rowBatch = JSONValueEmitter.Scratch()

    /// An encoder writing into `sink`, 8-bit strings decoded with `codePage` (the head's code page replaces it).
    public init(sink: Sink, codePage: CodePage) {
        self.writer = JSONWriter(sink: sink)
        self.codePage = codePage
        self.emitter = JSONValueEmitter(codePage: codePage)
    }

    /// `format` of the document: `briefcase-json`.
    public static var formatName: String { "briefcase-json" }
    /// `version` of the document.
    public static var formatVersion: Int64 { 1 }

    /// Writes a whole decoded briefcase as one document.
    public mutating func encode(_ document: BriefcaseDocument) throws {
        begin(container: document.container, properties: document.file.properties, headerPadding: document.file.headerPadding)
        for element in document.file.stream.elements { try encode(element) }
        try end()
    }

    // MARK: element by element

    /// How many elements were written since `begin` (the separators depend on it).
    var elementsWritten = 0

    /// Starts the document: everything up to the first element. Then `encode(_ element:)` for
    /// each element in file order and `end()`; the bytes are those `encode(_ document:)` gives
    /// for the document of those elements, and only one element need be in memory at a time.
    public mutating func begin(container: ContainerFormat, properties: [BriefcaseProperty], headerPadding: ByteString) {
        elementsWritten = 0
        writer.writeRaw("{\n  \"format\": ")
        writer.writeString(Self.formatName)
        writer.writeRaw(",\n  \"version\": ")
        writer.writeInt(Self.formatVersion)
        writer.writeRaw(",\n  \"container\": ")
        writer.writeString(container.rawValue)
        writer.writeRaw(",\n  \"encoding\": ")
        writer.writeString(codePage.name)
        if container == .dabriefcase {
            writer.writeRaw(",\n  \"properties\": [")
            for (i, property) in properties.enumerated() {
                writer.writeRaw(i == 0 ? "\n    [" : ",\n    [")
                writeAnsi(property.name)
                writer.writeRaw(", ")
                writeAnsi(property.value)
                writer.writeRaw("]")
            }
            writer.writeRaw(properties.isEmpty ? "]" : "\n  ]")
            if !headerPadding.isEmpty {
                writer.writeRaw(",\n  \"headerPadding\": ")
                writer.writeString(Base64.encode(headerPadding.bytes))
            }
        }
        writer.writeRaw(",\n  \"elements\": [")
    }

    /// Writes the next element (after `begin`).
    public mutating func encode(_ element: Element) throws {
        writeSeparator()
        try encodeBody(element)
    }

    /// What comes before the next element.
    mutating func writeSeparator() {
        writer.writeRaw(elementsWritten == 0 ? "\n    " : ",\n    ")
        elementsWritten += 1
    }

    /// The element's object.
    mutating func encodeBody(_ element: Element) throws {
        switch element {
        case .table(let table): try encodeTable(table)
        case .delta(let delta): try encodeDelta(delta)
        }
    }

    /// Ends the document and flushes the writer (the sink is not closed).
    public mutating func end() throws {
        writer.writeRaw(elementsWritten == 0 ? "]\n}\n" : "\n  ]\n}\n")
        try writer.flush()
    }

    // MARK: elements

    mutating func encodeTable(_ table: Table) throws {
        encodeTableHead(table)
        if rowJobs > 1, case let ranges = JSONElementParts.parts(of: table), ranges.count >= 2 {
            let parts = JSONElementParts(codePage: codePage, chunks: encodedChunks)
            try parts.streamRows(of: table, ranges, jobs: rowJobs) { writeEncoded($0) }
        } else {
            try encodeRows(of: table, table.rows.indices)
        }
        encodeTableEnd(table)
    }

    /// Threads that write one large table's rows at once, in row ranges handed to the output in
    /// order as each is done (`JSONElementParts.streamRows`): for elements that come one at a time
    /// on one thread. 1: the rows are written on the caller's thread.
    public var rowJobs = 1

    /// Writes JSON encoded on another thread (an element, or a range of a table's rows), gives its
    /// chunks back for more, and notes invalid UTF-8 in it as if written here.
    mutating func writeEncoded(_ encoded: EncodedJSONElement) {
        for chunk in encoded.chunks { writer.writeThrough(chunk) }
        encodedChunks.giveBack(encoded.chunks)
        if !encoded.validUTF8 { emitter.noteInvalidUTF8() }
    }

    /// A table's object up to its first row.
    mutating func encodeTableHead(_ table: Table) {
        writer.writeRaw("{\"kind\": \"table\", \"name\": ")
        writeAnsi(table.name)
        writer.writeRaw(",\n     \"schema\": ")
        if let schema = table.schema {
            writer.writeRaw("{\"fieldPropertyCount\": ")
            writer.writeInt(Int64(schema.fieldPropertyCount))
            writer.writeRaw(", \"fields\": ")
            writePropertyLists(schema.fields)
            writer.writeRaw(",\n       \"parameterPropertyCount\": ")
            writer.writeInt(Int64(schema.parameterPropertyCount))
            writer.writeRaw(", \"parameters\": ")
            writePropertyLists(schema.parameters)
            writer.writeRaw("}")
        } else {
            writer.writeRaw("null, \"schemaEnd\": ")
            writer.writeString(table.schemaEndWhenAbsent.rawValue)
        }
        writer.writeRaw(",\n     \"fields\": [")
        writeFields(table.fields.map { ($0.name, $0.type, $0.size) })
        writer.writeRaw("],\n     \"rows\": [")
    }

    /// The rows of `table` in `range`, each after its separator (the first row's differs): the
    /// rows of a table written in parts, one after another, are the rows written at once.
    mutating func encodeRows(of table: Table, _ range: Range<Int>) throws {
        let types = table.fields.map(\.type), storages = types.map(\.storage)
        if encodeStoredRows(of: table, range, storages: storages) { return }
        for r in range {
            if r == 0 { writer.writeRaw("\n      ") } else { writer.writeRaw(",\n      ") }
            do {
                try writeValues(table.rows[r], types, storages)
            } catch {
                throw BriefcaseError(.invalidModel, "row \(r): \(error.message)", element: codePage.decodeForDisplay(table.name))
            }
        }
    }

    /// The rows of `table` in `range` written from the bytes they are kept as (`Rows.visitStored`),
    /// the same text as from their values; false, nothing written, when they are not kept so.
    /// In batches, so that the writer drains between them: rows of blobs can be large.
    private mutating func encodeStoredRows(of table: Table, _ range: Range<Int>, storages: [ValueStorage?]) -> Bool {
        var visitor = JSONRowVisitor(emitter: emitter, rows: rowBatch, firstRow: range.lowerBound)
        var start = range.lowerBound, batch = 64
        repeat {
            let rows = start ..< min(range.upperBound, start + batch)
            guard table.rows.visitStored(rows, storages: storages, into: &visitor) else { return false }  // (the first batch, or none)
            let written = visitor.written
            writer.writeThrough(written)
            visitor.clear()
            // About 64–256 KiB a batch.
            if written.count > 1 << 18 { batch = max(1, batch / 2) } else if written.count < 1 << 16 { batch = min(1024, batch * 2) }
            start = rows.upperBound
        } while start < range.upperBound
        return true
    }

    /// The end of a table's object, after its last row.
    mutating func encodeTableEnd(_ table: Table) {
        writer.writeRaw(table.rows.isEmpty ? "]}" : "\n     ]}")
    }

    mutating func encodeDelta(_ delta: Delta) throws {
        writer.writeRaw("{\"kind\": \"delta\", \"name\": ")
        writeAnsi(delta.name)
        switch delta.layout {
        case .full: break
        case .countOnly: writer.writeRaw(", \"layout\": \"countOnly\"")
        case .mismatchedCounts(let first):
            writer.writeRaw(", \"firstChangeCount\": ")
            writer.writeInt(Int64(first))
        }
        writer.writeRaw(",\n     \"loggedFields\": [")
        writeFields(delta.loggedFields.map { ($0.name, $0.type, nil) })
        writer.writeRaw("],\n     \"keyFields\": [")
        for (i, key) in delta.keyFields.enumerated() {
            if i > 0 { writer.writeRaw(", ") }
            writeAnsi(key)
        }
        writer.writeRaw("], \"reducedDelta\": ")
        writer.writeInt(Int64(delta.reducedDeltaFlag))
        writer.writeRaw(",\n     \"changes\": [")
        let types = delta.loggedFields.map(\.type)
        for (i, change) in delta.changes.enumerated() {
            if i == 0 { writer.writeRaw("\n      {\"type\": ") } else { writer.writeRaw(",\n      {\"type\": ") }
            writeCode(change.type.rawValue, known: change.type.isKnown, name: change.type.description)
            writer.writeRaw(", \"recordID\": ")
            writer.writeInt(Int64(change.recordID))
            writer.writeRaw(", \"status\": ")
            writeCode(change.status.rawValue, known: change.status.isKnown, name: change.status.description)
            writer.writeRaw(", \"message\": ")
            writeAnsi(change.message)
            do {
                writer.writeRaw(",\n       \"old\": ")
                try writeValues(change.oldValues, types, types.map(\.storage))
                writer.writeRaw(",\n       \"new\": ")
                try writeValues(change.newValues, types, types.map(\.storage))
            } catch {
                throw BriefcaseError(.invalidModel, "change \(i): \(error.message)", element: codePage.decodeForDisplay(delta.name))
            }
            writer.writeRaw("}")
        }
        writer.writeRaw(delta.changes.isEmpty ? "]}" : "\n     ]}")
    }

    /// The objects of a table's `fields` or a delta's `loggedFields` (no `size`: delta headers
    /// carry none), between the brackets.
    private mutating func writeFields(_ fields: [(name: ByteString, type: DataType, size: Int32?)]) {
        for (i, field) in fields.enumerated() {
            writer.writeRaw(i == 0 ? "{\"name\": " : ", {\"name\": ")
            writeAnsi(field.name)
            writer.writeRaw(", \"type\": ")
            writer.writeString(field.type.name)
            if let size = field.size {
                writer.writeRaw(", \"size\": ")
                writer.writeInt(Int64(size))
            }
            writer.writeRaw("}")
        }
    }

    private mutating func writeCode(_ raw: Int32, known: Bool, name: String) {
        if known { writer.writeString(name) } else { writer.writeInt(Int64(raw)) }
    }

    private mutating func writePropertyLists(_ lists: [[SchemaProperty]]) {
        writer.writeRaw("[")
        for (i, list) in lists.enumerated() {
            writer.writeRaw(i == 0 ? "\n        [" : ",\n        [")
            for (k, property) in list.enumerated() {
                writer.writeRaw(k == 0 ? "[" : ", [")
                writeAnsi(property.name)
                writer.writeRaw(", ")
                if let value = property.value {
                    if let text = value.utf8String {
                        writer.writeString(text)
                    } else {
                        writeBytesObject("bytes", value)
                    }
                } else {
                    writer.writeNull()
                }
                writer.writeRaw("]")
            }
            writer.writeRaw("]")
        }
        writer.writeRaw(lists.isEmpty ? "]" : "\n       ]")
    }

    // MARK: values

    /// A positional array; the model must match its columns (as decoded models always do).
    private mutating func writeValues(_ values: [Value?], _ types: [DataType], _ storages: [ValueStorage?]) throws(BriefcaseError) {
        try emitter.writeValues(values, types, storages: storages, to: &writer.buffer)
        writer.drainIfFull()
    }

    /// An 8-bit string: text when the code page maps it reversibly, else `{"bytes": base64}`.
    mutating func writeAnsi(_ string: ByteString) {
        emitter.writeAnsi(string, to: &writer.buffer)
        writer.drainIfFull()
    }

    private mutating func writeBytesObject(_ key: StaticString, _ bytes: ByteString) {
        writer.writeRaw("{\"")
        writer.writeRaw(key)
        writer.writeRaw("\": ")
        writer.writeString(Base64.encode(bytes.bytes))
        writer.writeRaw("}")
    }

    mutating func writeValue(_ value: Value, type: DataType) {
        emitter.writeValue(value, type: type, to: &writer.buffer)
        writer.drainIfFull()
    }
}

/// As a sink: the document of what a source reads (`begin` writes the head in the code page it
/// names, each element as it comes, `finish` closes the document and flushes; `abandon`
/// forgets what was written, in the writer and in its sink).
extension JSONDocumentEncoder: BriefcaseSink where Sink: ResettableByteSink {
    /// Writes the document's head: format, code page, container, properties.
    public mutating func begin(_ head: BriefcaseHead) throws(BriefcaseError) {
        if head.codePage != codePage {
            codePage = head.codePage
            emitter = JSONValueEmitter(codePage: head.codePage)
        }
        begin(container: head.container, properties: head.properties, headerPadding: head.headerPadding)
    }

    /// Writes one element: a table with its rows, or a delta with its changes.
    public mutating func element(_ element: Element) throws(BriefcaseError) {
        try Self.typed { () throws in try encode(element) }
    }

    /// Closes the document and flushes the writer.
    public mutating func finish() throws(BriefcaseError) {
        try Self.typed { () throws in try end() }
    }

    /// Forgets what was written, so that the source can begin again.
    public mutating func abandon() {
        try? writer.reset()
    }

    /// Each element encoded on the thread that decoded it (its JSON object, and whether its
    /// 8-bit strings were valid UTF-8), in the code page of the last `begin`.
    public func elementPreparation() -> ElementPreparation<Result<EncodedJSONElement, BriefcaseError>>? {
        let codePage = codePage, chunks = encodedChunks
        return ElementPreparation(needsRows: false, jobs: { element, jobs in
            JSONElementParts(codePage: codePage, chunks: chunks).encode(element, jobs: jobs)
        })
    }

    /// Rows kept as bytes are written from them (`encodeStoredRows`); a large table's rows on
    /// several threads (`rowJobs`); every 8-bit string checked as it is written as UTF-8.
    public var needs: SinkNeeds { SinkNeeds(rowsFromTheirBytes: true, jobsWithinElements: true, checksUTF8: true) }

    /// Writes a large table's rows on `jobs` threads at once (`rowJobs`).
    public mutating func useJobsWithinElements(_ jobs: Int) {
        rowJobs = jobs
    }

    /// Writes an element encoded on another thread: the bytes `element(_:)` would write.
    public mutating func element(_ element: Element, prepared encoded: Result<EncodedJSONElement, BriefcaseError>,
                                 at position: Int) throws(BriefcaseError) {
        writeSeparator()
        writeEncoded(try encoded.get())
    }

    /// Writes the element; whether every 8-bit string it wrote as UTF-8 was valid.
    public mutating func elementCheckingUTF8(_ element: Element, at position: Int) throws(BriefcaseError) -> Bool {
        _ = emitter.takeInvalidUTF8()  // (what came before was answered for already)
        try self.element(element, at: position)
        return !emitter.takeInvalidUTF8()
    }

    /// Writes the element encoded on another thread; whether its 8-bit strings were valid UTF-8.
    public mutating func elementCheckingUTF8(_ element: Element, prepared: Result<EncodedJSONElement, BriefcaseError>,
                                             at position: Int) throws(BriefcaseError) -> Bool {
        _ = emitter.takeInvalidUTF8()
        try self.element(element, prepared: prepared, at: position)
        return !emitter.takeInvalidUTF8()
    }

    /// Errors of the encoder (its model errors) and of the sink (I/O) as they are, anything else
    /// as an I/O error.
    static func typed(_ body: () throws -> Void) throws(BriefcaseError) {
        do {
            try body()
        } catch let error as BriefcaseError {
            throw error
        } catch {
            throw BriefcaseError(.io, "cannot write: \(error)")
        }
    }
}

/// One element's JSON object, encoded ahead on another thread (`JSONDocumentEncoder.elementPreparation()`).
public struct EncodedJSONElement: Sendable {
    /// The object's bytes, in order, in chunks of `ChunkPool`'s.
    let chunks: [[UInt8]]
    /// Whether every 8-bit string written as UTF-8 text was valid UTF-8.
    let validUTF8: Bool
}
