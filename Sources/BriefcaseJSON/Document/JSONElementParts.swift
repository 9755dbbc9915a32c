import JSONCore
import BriefcaseKit

/// An element's JSON object encoded on worker threads (`JSONDocumentEncoder.elementPreparation()`),
/// into chunks of a `ChunkPool`: by the worker that decoded it, or — a table of many rows — in
/// row ranges encoded at once by up to `jobs` threads (`streamRows`, also what a writer that
/// takes elements one at a time uses: `JSONDocumentEncoder.rowJobs`).
///
/// Why parts: one large table can be a fifth of a briefcase or more. Encoded by one thread, it
/// keeps one core busy while the others, soon done with the small tables, wait for it (the writer
/// takes elements in order). Rows are independent and each row's text depends only on the row,
/// its position (the separator before it) and the code page, so the parts, joined, are the bytes
/// one thread writes — and the first failing row, in the first part that fails, is the error it
/// stops at.
struct JSONElementParts {
    let codePage: CodePage
    let chunks: ChunkPool

    /// Rows below which a part is not worth a thread: about 1 MB of JSON.
    static let rowsPerPart = 8192
    /// Bytes of rows kept as bytes above which a part is cut all the same (rows of blobs or long
    /// text: a few hundred of them can be a fifth of a briefcase).
    static let bytesPerPart = 1 << 20

    /// The ranges of `table`'s rows written as parts (`Rows.parts`): more than one when the table
    /// is worth sharing among threads.
    static func parts(of table: Table) -> [Range<Int>] {
        table.rows.parts(maximumRows: rowsPerPart, maximumBytes: bytesPerPart)
    }

    func encode(_ element: Element, jobs: Int) -> Result<EncodedJSONElement, BriefcaseError> {
        guard case .table(let table) = element, jobs > 1, case let ranges = Self.parts(of: table), ranges.count >= 2 else {
            return part { encoder throws(BriefcaseError) in try JSONDocumentEncoder<ChunkSink>.typed { try encoder.encodeBody(element) } }
        }
        // The head, the rows in ranges (`streamRows`), the end: their chunks one after another.
        var joined: [[UInt8]] = [], validUTF8 = true
        func add(_ encoded: EncodedJSONElement) {
            joined += encoded.chunks
            validUTF8 = validUTF8 && encoded.validUTF8
        }
        do throws(BriefcaseError) {
            add(try part { encoder in encoder.encodeTableHead(table) }.get())
            try streamRows(of: table, ranges, jobs: jobs, each: add)
            add(try part { encoder in encoder.encodeTableEnd(table) }.get())
        } catch {
            chunks.giveBack(joined)
            return .failure(error)
        }
        return .success(EncodedJSONElement(chunks: joined, validUTF8: validUTF8))
    }

    /// The rows of `table`, in `ranges` (`parts(of:)`) encoded by `jobs` threads at most a few
    /// ranges ahead, each handed to `each` in order as soon as it is done (its chunks the
    /// taker's, to write and give back, or keep): the bytes `encodeRows` writes on one thread,
    /// with the first failing row's error, and memory for about `jobs` ranges of JSON in flight.
    func streamRows(of table: Table, _ ranges: [Range<Int>], jobs: Int, each: (EncodedJSONElement) -> Void) throws(BriefcaseError) {
        let work = WorkDoneAhead<Result<EncodedJSONElement, BriefcaseError>>(sizes: Array(repeating: 1, count: ranges.count), jobs: jobs,
                                                                            name: "briefcase json rows") { [self] in
            { k in
                part { encoder throws(BriefcaseError) in
                    try JSONDocumentEncoder<ChunkSink>.typed { try encoder.encodeRows(of: table, ranges[k]) }
                }
            }
        }
        defer { work.stop() }
        for k in ranges.indices { each(try work.take(k).get()) }
    }

    /// What `body` writes, in chunks, and whether its 8-bit text was valid UTF-8.
    private func part(_ body: (inout JSONDocumentEncoder<ChunkSink>) throws(BriefcaseError) -> Void) -> Result<EncodedJSONElement, BriefcaseError> {
        var encoder = JSONDocumentEncoder<ChunkSink>(sink: ChunkSink(pool: chunks), codePage: codePage)
        do throws(BriefcaseError) {
            try body(&encoder)
            try JSONDocumentEncoder<ChunkSink>.typed { try encoder.writer.flush() }
        } catch {
            encoder.writer.sink.giveBack()
            return .failure(error)
        }
        return .success(EncodedJSONElement(chunks: encoder.writer.sink.chunks, validUTF8: !encoder.emitter.takeInvalidUTF8()))
    }
}
