extension Bin2Decoder {
    /// Decodes a dataset element body (schema flag … last row).
    mutating func decodeTable(_ reader: inout ByteReader, name: ByteString, positionBase: Int) throws(BriefcaseError) -> Table {
        let head = try decodeTableHead(&reader, name: name, positionBase: positionBase)
        let fields = head.fields, rowCount = head.rowCount
        let storages = fields.map(\.type.storage)
        var rows: [Row] = []
        rows.reserveCapacity(rowCount)
        var rowIndex = 0
        while rowIndex < rowCount {
            // As many rows as decode cleanly, straight from the buffer; a row that does not (a
            // value past the end, a bad length, an unknown type, set padding bits) is decoded
            // again by the checking reader below, which throws or warns exactly as it always did.
            let position = reader.bytes.withUnsafeBufferPointer { buffer in
                var position = reader.readerIndex - reader.base
                let end = reader.endIndex - reader.base
                while rowIndex < rowCount,
                      let row = Self.fastRow(buffer, reader.bytes, position: &position, end: end, storages: storages) {
                    rows.append(row)
                    rowIndex += 1
                }
                return position
            }
            reader.readerIndex = position + reader.base
            guard rowIndex < rowCount else { break }
            rows.append(try decodeValues(&reader, fields, setBitIsValue: false, mask: "NULL mask of row \(rowIndex)",
                                         element: name, place: { "row \(rowIndex), " }))
            rowIndex += 1
        }
        var table = head.table
        table.rows = rows
        return table
    }

    /// Decodes the row at `position` (an index into `array`, whose storage `buffer` is) without
    /// building error messages, or returns nil — leaving `position` alone — when anything about
    /// it is not plainly valid: then the checking reader decodes it and says what is wrong.
    /// Values are slices of `array`, as `readValue` makes them.
    @inline(__always)
    static func fastRow(_ buffer: UnsafeBufferPointer<UInt8>, _ array: [UInt8], position: inout Int, end: Int,
                        storages: [ValueStorage?]) -> Row? {
        let fieldCount = storages.count
        let maskSize = (fieldCount + 7) >> 3
        guard let base = buffer.baseAddress, position >= 0, end <= buffer.count, end - position >= maskSize else { return nil }
        let mask = base + position
        if fieldCount & 7 != 0, mask[maskSize - 1] >> UInt8(fieldCount & 7) != 0 { return nil } // padding bits: warn
        var p = position + maskSize
        @inline(__always) func load<T: FixedWidthInteger>(_: T.Type) -> T? {
            guard end &- p >= MemoryLayout<T>.size else { return nil }
            let value = T(littleEndian: UnsafeRawPointer(base + p).loadUnaligned(as: T.self))
            p &+= MemoryLayout<T>.size
            return value
        }
        @inline(__always) func bytes(_ count: Int) -> ByteString? {
            guard count >= 0, end &- p >= count else { return nil }
            let slice = ByteString(array, range: p ..< p &+ count)
            p &+= count
            return slice
        }
        @inline(__always) func lengthPrefixed() -> ByteString? {
            guard let length = load(Int32.self) else { return nil }
            return bytes(Int(length))
        }
        var row: Row = []
        row.reserveCapacity(fieldCount)
        for column in 0..<fieldCount {
            if mask[column &>> 3] & (1 &<< UInt8(truncatingIfNeeded: column & 7)) != 0 {
                row.append(nil)
                continue
            }
            switch storages[column] {
            case .ansiString?:
                guard let string = lengthPrefixed() else { return nil }
                row.append(.ansiString(string))
            case .wideString?:
                guard let string = lengthPrefixed() else { return nil }
                row.append(.wideString(string))
            case .blob?:
                guard let string = lengthPrefixed() else { return nil }
                row.append(.blob(string))
            case .guid?:
                guard let string = bytes(36) else { return nil }
                row.append(.guid(string))
            case .int32?:
                guard let x = load(Int32.self) else { return nil }
                row.append(.integer(Int64(x)))
            case .int64?:
                guard let x = load(Int64.self) else { return nil }
                row.append(.integer(x))
            case .dateTime?:
                guard let x = load(UInt64.self) else { return nil }
                row.append(.dateTime(OLEDateTime(Double(bitPattern: x))))
            case .float64?:
                guard let x = load(UInt64.self) else { return nil }
                row.append(.float(Double(bitPattern: x)))
            case .float32?:
                guard let x = load(UInt32.self) else { return nil }
                row.append(.singleFloat(Float(bitPattern: x)))
            case .currency?:
                guard let x = load(Int64.self) else { return nil }
                row.append(.currency(Currency(scaled: x)))
            case .int8?:
                guard let x = load(Int8.self) else { return nil }
                row.append(.integer(Int64(x)))
            case .int16?:
                guard let x = load(Int16.self) else { return nil }
                row.append(.integer(Int64(x)))
            case .uint8?:
                guard let x = load(UInt8.self) else { return nil }
                row.append(.integer(Int64(x)))
            case .uint16?:
                guard let x = load(UInt16.self) else { return nil }
                row.append(.integer(Int64(x)))
            case .uint32?:
                guard let x = load(UInt32.self) else { return nil }
                row.append(.integer(Int64(x)))
            case .uint64?:
                guard let x = load(UInt64.self) else { return nil }
                row.append(.largeUInt(x))
            case .boolean?:
                guard let x = load(UInt8.self) else { return nil }
                row.append(.boolean(x))
            case .decimal?:
                guard end &- p >= 16 else { return nil }
                let raw = UnsafeRawPointer(base + p)
                row.append(.decimal(Decimal96(low: UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self)),
                                              mid: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self)),
                                              high: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt32.self)),
                                              flags: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 12, as: UInt32.self)))))
                p &+= 16
            case nil:
                return nil
            }
        }
        position = p
        return row
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
                warn("schema end position is \(storedSchemaEnd) but the schema ends at \(reader.readerIndex - positionBase)", at: schemaEndOffset, name)
            }
        } else if storedSchemaEnd + positionBase == reader.readerIndex {
            schemaEndWhenAbsent = .position
        } else if storedSchemaEnd != 0 {
            warn("schema end position is \(storedSchemaEnd) without a schema (0 or \(reader.readerIndex - positionBase) expected)", at: schemaEndOffset, name)
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
