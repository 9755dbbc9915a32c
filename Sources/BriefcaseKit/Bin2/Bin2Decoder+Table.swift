extension Bin2Decoder {
    /// Decodes a dataset element body (schema flag … last row); with its `head` decoded before,
    /// from the first row (where `reader` then is).
    mutating func decodeTable(_ reader: inout ByteReader, name: ByteString, positionBase: Int, head known: TableHead? = nil) throws(BriefcaseError) -> Table {
        let head = if let known { known } else { try decodeTableHead(&reader, name: name, positionBase: positionBase) }
        var table = head.table
        let first = reader.readerIndex - reader.base
        // Rows as views into the bytes (`Rows`): only where each starts is kept now.
        guard reader.endIndex - reader.readerIndex <= Int(UInt32.max) else {
            var collector = RowCollector(capacity: head.rowCount)
            try decodeRows(&reader, head: head, into: &collector)
            table.rows = Rows(collector.rows)
            return table
        }
        var starts = RowStarts(first: first, capacity: head.rowCount)
        try decodeRows(&reader, head: head, into: &starts)
        let stored = StoredSpans(source: source, first: first, end: reader.readerIndex - reader.base, starts: starts.starts,
                                    storages: head.fields.map(\.type.storage))
        if starts.checked.isEmpty {
            table.rows = Rows(stored: stored)
        } else {
            table.rows = Rows((0 ..< stored.count).map { starts.checked[$0] ?? stored.row($0) })
        }
        return table
    }

    /// Decodes a dataset element up to its first row: schema, field descriptors and row count
    /// (what `info` needs; the rows are not touched).
    /// `elementEnd` is where the element ends when `reader` holds only its start.
    mutating func decodeTableHead(_ reader: inout ByteReader, name: ByteString, positionBase: Int, elementEnd: Int? = nil) throws(BriefcaseError) -> TableHead {
        let flagOffset = reader.readerIndex
        let flag = try reader.readUInt8("schema flag")
        guard flag <= 1 else {
            throw BriefcaseError(.invalidData, "schema flag is \(flag) (0 or 1 expected)", offset: flagOffset)
        }
        let schemaEndOffset = reader.readerIndex
        let storedSchemaEnd = Int(try reader.readInt32("schema end position"))
        var schema: Schema?
        var schemaEndWhenAbsent = SchemaEndMarker.zero
        if flag == 1 {
            schema = try decodeSchema(&reader)
            if storedSchemaEnd + positionBase != reader.readerIndex {
                warn("schema end position is \(storedSchemaEnd) but the schema ends at \(reader.readerIndex - positionBase)", at: schemaEndOffset, name, reason: .schemaEnd)
            }
        } else if storedSchemaEnd + positionBase == reader.readerIndex {
            schemaEndWhenAbsent = .position
        } else if storedSchemaEnd != 0 {
            warn("schema end position is \(storedSchemaEnd) without a schema (0 or \(reader.readerIndex - positionBase) expected)", at: schemaEndOffset, name, reason: .schemaEnd)
        }

        let rowCountOffset = reader.readerIndex
        let rowCountRaw = try reader.readInt32("row count")
        guard rowCountRaw >= 0 else {
            throw BriefcaseError(.invalidData, "row count is negative (\(rowCountRaw))", offset: rowCountOffset)
        }
        let fieldCount = try reader.readCount("field count", minimumSize: 9)
        var fields: [FieldDescriptor] = []
        fields.reserveCapacity(fieldCount)
        for _ in 0..<fieldCount {
            let fieldName = try reader.readLengthPrefixed("field name")
            let type = DataType(try reader.readUInt8("field data type"))
            let size = try reader.readInt32("field size")
            fields.append(FieldDescriptor(name: fieldName, type: type, size: size))
        }
        let rowCount = Int(rowCountRaw)
        let maskSize = (fieldCount + 7) / 8
        // A row takes at least its mask; rows of a table without fields take nothing, so cap those.
        let rowBytes = (elementEnd ?? reader.endIndex) - reader.readerIndex
        let rowLimit = maskSize > 0 ? rowBytes / maskSize : Bin2Stream.maximumRowsWithoutFields
        guard rowCount <= rowLimit else {
            throw BriefcaseError(.invalidData, "row count is \(rowCount) but only \(rowBytes) bytes remain for rows",
                                 offset: rowCountOffset)
        }
        return TableHead(table: Table(name: name, schema: schema, fields: fields, schemaEndWhenAbsent: schemaEndWhenAbsent), rowCount: rowCount)
    }

    private func decodeSchema(_ reader: inout ByteReader) throws(BriefcaseError) -> Schema {
        let (fieldPropertyCount, fields) = try decodePropertyLists(&reader, "schema field")
        let (parameterPropertyCount, parameters) = try decodePropertyLists(&reader, "schema parameter")
        return Schema(fieldPropertyCount: fieldPropertyCount, fields: fields,
                      parameterPropertyCount: parameterPropertyCount, parameters: parameters)
    }

    /// `Int32 count, Int32 propertyCount, count × propertyCount × (AnsiString, Utf8String)`.
    private func decodePropertyLists(_ reader: inout ByteReader, _ what: String) throws(BriefcaseError) -> (Int, [[SchemaProperty]]) {
        let countOffset = reader.readerIndex
        let count = try reader.readCount("\(what) count", minimumSize: 0)
        let propertyCount = try reader.readCount("\(what) property count", minimumSize: 0)
        // Each property takes at least 8 bytes; a list of zero properties takes none, so bound the
        // list count by the input size as well.
        guard count <= reader.readableBytes,
              propertyCount == 0 || count * propertyCount <= reader.readableBytes / 8 else {
            throw BriefcaseError(.invalidData,
                                 "\(count) \(what)s × \(propertyCount) properties cannot fit in the \(reader.readableBytes) bytes that remain",
                                 offset: countOffset)
        }
        var lists: [[SchemaProperty]] = []
        lists.reserveCapacity(count)
        for _ in 0..<count {
            var list: [SchemaProperty] = []
            list.reserveCapacity(propertyCount)
            for _ in 0..<propertyCount {
                let name = try reader.readLengthPrefixed("\(what) property name")
                let lengthOffset = reader.readerIndex
                let length = try reader.readInt32("\(what) property value length")
                let value: ByteString?
                if length == -1 {
                    value = nil
                } else {
                    guard length >= 0 else {
                        throw BriefcaseError(.invalidData, "\(what) property value length is \(length) (-1 = nil, else ≥ 0)", offset: lengthOffset)
                    }
                    value = try reader.readByteString(Int(length), "\(what) property '\(name)' value")
                }
                list.append(SchemaProperty(name: name, value: value))
            }
            lists.append(list)
        }
        return (propertyCount, lists)
    }
}

/// A table without its rows, and how many rows it stores.
public struct TableHead: Sendable {
    /// The table: name, schema and fields, no rows.
    public var table: Table
    /// How many rows the table stores.
    public var rowCount: Int
    /// The table's name.
    public var name: ByteString { table.name }
    /// The table's field descriptors.
    public var fields: [FieldDescriptor] { table.fields }
}

/// An element's head decoded before its body (`BriefcaseElements.headRead(_:)`: for the code
/// page and for sinks that see every head first), what the decoder warned about in it, and the
/// offset where it ends: decoding the body goes on from there (`decodeElement(_:positionBase:head:)`).
package struct ElementHeadRead: Sendable {
    package enum Head: Sendable {
        case table(TableHead)
        case delta(Delta, changeCount: Int)
    }
    package var head: Head
    package var end: Int
    package var warnings: [DecodingWarning]

    /// The element without rows or changes.
    package var element: Element {
        switch head {
        case .table(let table): .table(table.table)
        case .delta(let delta, _): .delta(delta)
        }
    }
}
