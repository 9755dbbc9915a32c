/// What `info` shows of an element without decoding rows or changes.
public struct ElementSummary: Sendable {
    public var kind: ElementKind
    public var name: ByteString
    /// Tables: schema, fields (the `rows` are empty).
    public var table: Table?
    public var rowCount: Int
    /// Deltas: the header (logged fields, key fields) with no changes, and the change count.
    public var delta: Delta?
    public var changeCount: Int
    /// The body's byte range in the file.
    public var range: Range<Int>
}

extension Bin2Decoder {
    /// Summarises every element of the stream from the index and each element's head: the cost
    /// depends on the number of elements and columns, not on the number of rows.
    public mutating func summarize(streamStart: Int = 0, end: Int? = nil) throws(BriefcaseError) -> [ElementSummary] {
        let index = try ElementIndex.read(bytes, streamStart: streamStart, end: end)
        var summaries: [ElementSummary] = []
        for entry in index.entries {
            let label = String(decoding: entry.name.bytes, as: UTF8.self)
            var reader = ByteReader(bytes: bytes, base: base, readerIndex: entry.range.lowerBound, endIndex: entry.range.upperBound)
            do throws(BriefcaseError) {
                switch entry.kind {
                case .table:
                    let head = try decodeTableHead(&reader, name: entry.name, positionBase: index.positionBase)
                    summaries.append(ElementSummary(kind: .table, name: entry.name, table: head.table, rowCount: head.rowCount,
                                                    delta: nil, changeCount: 0, range: entry.range))
                case .delta:
                    let head = try decodeDeltaHead(&reader, name: entry.name)
                    summaries.append(ElementSummary(kind: .delta, name: entry.name, table: nil, rowCount: 0,
                                                    delta: head.delta, changeCount: head.changeCount, range: entry.range))
                }
            } catch {
                throw error.inElement(label)
            }
        }
        return summaries
    }
}
