/// The stored rows of one table, decoded one at a time as they are iterated, so a table of any
/// size is read without its model in memory: from a file, the rows are read in windows of about
/// 1 MiB (`pread`), each row decoded from its window when it is asked for. A row's strings and
/// blobs point into the window they were read from, so a row kept keeps its window (1 MiB, or
/// the row's size when that is larger) alive; rows let go are freed with it.
///
/// The same rows as `Table.rows` of the decoded element, with the same errors: a row that is
/// not plainly valid is decoded by the checking reader, which throws naming its offset.
///
/// ```swift
/// var cursor = try briefcase.storedRows(ofTableAt: 0).makeIterator()
/// while let row = try cursor.nextRow() { … }      // or: for result in rows { let row = try result.get() }
/// ```
public struct StoredRows: Sequence, Sendable {
    /// The table without its rows (schema, fields), and how many rows it stores.
    public let head: TableHead

    enum Storage: Sendable {
        /// A dataset element: where its rows start and where it ends, in its file or buffer.
        case element(BriefcaseSource, rows: Range<Int>, label: String)
        case memory(Rows)
    }
    let storage: Storage

    /// The rows of a table held in memory (a table added, or one stored only as its delta).
    public init(_ table: Table) {
        var head = table
        head.rows = []
        self.head = TableHead(table: head, rowCount: table.rows.count)
        storage = .memory(table.rows)
    }

    init(head: TableHead, storage: Storage) {
        self.head = head
        self.storage = storage
    }

    /// A cursor over the rows, from the first (each iteration reads them anew).
    public func makeIterator() -> StoredRowCursor { StoredRowCursor(self) }
}

/// Reads `StoredRows` row by row: `nextRow()` throws the first decoding error; as an iterator,
/// each element is a row or that error, after which iteration ends.
public struct StoredRowCursor: IteratorProtocol, Sendable {
    /// The window a file's rows are read in (more when one row is larger).
    static let windowSize = 1 << 20

    /// The table without its rows, and how many rows it stores.
    public let head: TableHead
    private let storage: StoredRows.Storage
    /// How each field's values are stored (worked out once, not for every row).
    private let storages: [ValueStorage?]
    /// How many rows were read so far.
    public private(set) var rowsRead = 0
    private var window: [UInt8] = []
    /// The file offset of `window[0]`, and of the next row.
    private var windowStart = 0
    private var position = 0
    private var failed = false

    init(_ rows: StoredRows) {
        head = rows.head
        storage = rows.storage
        storages = rows.head.fields.map(\.type.storage)
        if case .element(let source, let range, _) = storage {
            position = range.lowerBound
            windowStart = range.lowerBound
            if case .memory(let bytes) = source { window = bytes; windowStart = 0 }
        }
    }

    /// The next row, or nil after the last one.
    public mutating func nextRow() throws(BriefcaseError) -> Row? {
        guard !failed, rowsRead < head.rowCount else { return nil }
        switch storage {
        case .memory(let rows):
            rowsRead += 1
            return rows[rowsRead - 1]
        case .element(let source, let range, let label):
            do throws(BriefcaseError) {
                let row = try decodeRow(source, end: range.upperBound)
                rowsRead += 1
                if rowsRead == head.rowCount, position != range.upperBound {
                    throw BriefcaseError(.invalidData, "table ends here but \(range.upperBound - position) more bytes lie before the next element",
                                         offset: position)
                }
                return row
            } catch {
                failed = true
                let located = error.inElement(label)
                guard located.file == nil, let path = source.path else { throw located }
                throw located.inFile(path)
            }
        }
    }

    /// The next row or the error reading it (after which there is none); nil after the last.
    public mutating func next() -> Result<Row, BriefcaseError>? {
        do throws(BriefcaseError) {
            return try nextRow().map { .success($0) }
        } catch {
            return .failure(error)
        }
    }

    /// Decodes the row at `position`: from the window as it is when the row is plainly valid
    /// and complete there, else with the checking reader, reading a larger window when the
    /// row runs past its end (and the element does not end there).
    private mutating func decodeRow(_ source: BriefcaseSource, end: Int) throws(BriefcaseError) -> Row {
        while true {
            let windowEnd = min(end, windowStart + window.count)
            if position >= windowStart, position < windowEnd || head.fields.isEmpty {
                var index = position - windowStart
                var collector = RecordCollector()
                let read = window.withUnsafeBufferPointer { buffer in
                    Bin2Decoder.fastRow(buffer, ByteSource(window), position: &index, end: windowEnd - windowStart, storages: storages, into: &collector)
                }
                if read {
                    position = windowStart + index
                    return collector.record
                }
                var reader = ByteReader(bytes: window, base: windowStart, readerIndex: position, endIndex: windowEnd)
                var decoder = Bin2Decoder(bytes: window, base: windowStart)
                let rowIndex = rowsRead
                do throws(BriefcaseError) {
                    let row = try decoder.decodeValues(&reader, head.fields, setBitIsValue: false, mask: "NULL mask of row \(rowIndex)",
                                                       element: head.name, place: { "row \(rowIndex), " })
                    position = reader.readerIndex
                    return row
                } catch {
                    // A row that runs past the window's end reads as too long a value (or a
                    // truncated one): only a window that reaches the element's end can tell.
                    guard windowEnd < end else { throw error }
                }
            }
            // Read on from the row's start: a window, or twice the last when the row did not fit
            // (at most up to the element's end, so a damaged length reads no more than that).
            let size = min(end - position, max(Self.windowSize, window.count * 2))
            let (bytes, base) = try source.bytes(position ..< position + size)
            (window, windowStart) = (bytes, base)
        }
    }
}

extension BriefcaseElements {
    /// The stored rows of dataset element `i`, decoded one at a time as they are iterated (the
    /// head is read now, the rows as they are asked for).
    public func storedRows(_ i: Int) throws(BriefcaseError) -> StoredRows {
        try readHead(i) { stored, decoder, reader throws(BriefcaseError) in
            guard stored.kind == .table else {
                throw BriefcaseError(.invalidModel, "element \(i) is a delta, which stores no rows")
            }
            let head = try decoder.decodeTableHead(&reader, name: stored.name, positionBase: stored.positionBase, elementEnd: stored.range.upperBound)
            return StoredRows(head: head, storage: .element(stored.source, rows: reader.readerIndex ..< stored.range.upperBound, label: stored.label))
        }
    }
}

extension Briefcase {
    /// The stored rows of the table at `index`, one at a time (`StoredRows`): from its file when
    /// it was not added or replaced, else from memory; none for a table stored only as a delta.
    public func storedRows(ofTableAt index: Int) throws(BriefcaseError) -> StoredRows {
        guard entries.indices.contains(index) else {
            throw BriefcaseError(.invalidModel, "no table at index \(index) (the briefcase has \(entries.count))", file: path)
        }
        let entry = entries[index]
        if let source = entry.source, let dataset = source.dataset { return try source.reader.storedRows(dataset) }
        return StoredRows(try load(entry).storedTable)
    }
}
