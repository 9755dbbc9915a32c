/// Encodes the elements of a Bin2 stream, tables and deltas: the body encoder under the stream
/// writer (`BriefcaseStreamWriter`), which lays them out and writes the header and the index;
/// symmetric to `Bin2Decoder`.
package enum Bin2Encoder {
    /// A bare Bin2 stream of `stream`'s elements (the stream writer into memory).
    public static func encode(_ stream: Bin2Stream) throws(BriefcaseError) -> [UInt8] {
        try BriefcaseStreamWriter.bytes(of: BriefcaseFile(stream: stream), as: .bin2)
    }

    /// The body of `element` as if it started at position 0, written into `memory`'s capacity:
    /// what a worker thread encodes ahead for `BriefcaseStreamWriter.write(encoded:kind:name:)`,
    /// which moves its schema end to where it lands. A table's rows that are the whole of their
    /// own buffer (the JSON reader's, `StoredRowsBuilder`) are kept apart, not copied.
    public static func encodeAhead(_ element: Element, into memory: [UInt8]) throws(BriefcaseError) -> EncodedBin2Element {
        var rowsApart: [UInt8] = []
        if case .table(let table) = element, let whole = table.rows.wholeStoredBuffer(storages: table.fields.map(\.type.storage)) {
            rowsApart = whole
        }
        var writer = ByteWriter(reusing: memory, capacity: estimatedSize(of: element) - rowsApart.count)
        switch element {
        case .table(let table): try encodeTable(table, into: &writer, at: 0, rowsWrittenApart: !rowsApart.isEmpty)
        case .delta(let delta): try encodeDelta(delta, into: &writer)
        }
        return EncodedBin2Element(bytes: writer.bytes, storedRows: rowsApart)
    }

    /// Appends the body of `table`, which starts at `position` in its file: the schema-end
    /// position written in it is absolute in the file, as Data Abstract for .NET writes it.
    /// With `rowsWrittenApart`, the rows (kept as bytes that fill their whole buffer) are left
    /// out, to be written after the rest as they are: copying them would take as much memory
    /// again, for as long as the body waits (an element parsed ahead).
    static func encodeTable(_ table: Table, into writer: inout ByteWriter, at position: Int,
                            rowsWrittenApart: Bool = false) throws(BriefcaseError) {
        // Every table written comes here: what the reader would refuse
        // (`Bin2Stream.maximumRowsWithoutFields`) is not written.
        guard !table.fields.isEmpty || table.rows.count <= Bin2Stream.maximumRowsWithoutFields else {
            throw BriefcaseError(.invalidModel, "a table without fields has \(table.rows.count) rows; a Bin2 stream holds at most "
                                 + "\(Bin2Stream.maximumRowsWithoutFields) in such a table (its readers refuse more); convert to json or snapshot instead")
        }
        let start = writer.count
        writer.writeInteger(UInt8(table.schema == nil ? 0 : 1))
        writer.writeInt32(0) // schema end, set below (an absent schema with a zero marker keeps 0)
        if let schema = table.schema {
            try encodePropertyLists(schema.fields, propertyCount: schema.fieldPropertyCount, "schema field", into: &writer)
            try encodePropertyLists(schema.parameters, propertyCount: schema.parameterPropertyCount, "schema parameter", into: &writer)
        }
        if table.schema != nil || table.schemaEndWhenAbsent == .position {
            writer.setInt32(try ByteWriter.int32(position + writer.count - start, "schema end position"), at: start + 1)
        }
        writer.writeInt32(try ByteWriter.int32(table.rows.count, "row count"))
        writer.writeInt32(try ByteWriter.int32(table.fields.count, "field count"))
        let storages = table.fields.map(\.type.storage)
        for field in table.fields {
            try writer.writeLengthPrefixed(field.name)
            writer.writeInteger(field.type.rawValue)
            writer.writeInt32(field.size)
        }
        // Rows kept as the bytes they were decoded from, each of which read cleanly (no set
        // padding bit, every value of its column's storage), are the bytes writing them gives.
        if rowsWrittenApart || table.rows.withStoredBytes(storages: storages, { writer.writeBytes($0) }) != nil { return }
        let maskSize = (table.fields.count + 7) / 8
        var mask = [UInt8](repeating: 0, count: maskSize)
        for (rowIndex, row) in table.rows.enumerated() {
            // A row whose every value fits its column: sized first, then written in one piece.
            if let size = rowSize(row, storages: storages, maskSize: maskSize) {
                writer.append(count: size) { d in writeRow(row, storages: storages, maskSize: maskSize, to: d) }
                continue
            }
            guard row.count == table.fields.count else {
                throw BriefcaseError(.invalidModel, "row \(rowIndex) has \(row.count) values for \(table.fields.count) fields")
            }
            for i in 0..<maskSize { mask[i] = 0 }
            for (i, value) in row.enumerated() where value == nil { mask[i >> 3] |= 1 << UInt8(i & 7) }
            writer.writeBytes(mask)
            for (i, value) in row.enumerated() {
                guard let value else { continue }
                do throws(BriefcaseError) {
                    try writeValue(value, storage: storages[i], type: table.fields[i].type, into: &writer)
                } catch {
                    var located = error
                    located.message = "row \(rowIndex), field '\(table.fields[i].name)': " + error.message
                    throw located
                }
            }
        }
    }

    /// About the bytes `element` takes with its index entry (exact for rows, close for the
    /// rest), so that a writer can be made that size at once: growing a buffer of a gigabyte by
    /// doubling copies it again and again, and touches twice the memory. Memory reserved and
    /// never written costs nothing.
    static func estimatedSize(of element: Element) -> Int {
        func valueSize(_ value: Value?) -> Int {
            switch value {
            case nil: return 0
            case .ansiString(let s)?, .wideString(let s)?, .blob(let s)?: return 4 + s.count
            case .guid(let s)?: return s.count
            case .decimal?: return 16
            default: return 8
            }
        }
        func listsSize(_ lists: [[SchemaProperty]]) -> Int {
            lists.reduce(8) { total, list in list.reduce(total) { $0 + 8 + $1.name.count + ($1.value?.count ?? 0) } }
        }
        var size = 16 + element.name.count
        switch element {
        case .table(let table):
            size += 13 + (table.schema.map { listsSize($0.fields) + listsSize($0.parameters) } ?? 0)
            size += table.fields.reduce(0) { $0 + 9 + $1.name.count }
            let maskSize = (table.fields.count + 7) / 8
            if let stored = table.rows.withStoredBytes(storages: table.fields.map(\.type.storage), { $0.count }) {
                size += stored
            } else {
                for row in table.rows { size += row.reduce(maskSize) { $0 + valueSize($1) } }
            }
        case .delta(let delta):
            size += 13 + delta.loggedFields.reduce(0) { $0 + 5 + $1.name.count } + delta.keyFields.reduce(0) { $0 + 4 + $1.count }
            let maskSize = (delta.loggedFields.count + 7) / 8
            if let stored = delta.changes.withStoredBytes(storages: delta.loggedFields.map(\.type.storage), { $0.count }) { return size + stored }
            for change in delta.changes {
                size += 16 + change.message.count + 2 * maskSize
                size += change.oldValues.reduce(0) { $0 + valueSize($1) } + change.newValues.reduce(0) { $0 + valueSize($1) }
            }
        }
        return size
    }

    /// The bytes `row` takes (mask and values), or nil when it has a problem (wrong width, a value
    /// that does not fit its column, a length beyond Int32): the checking writer reports it.
    @inline(__always)
    static func rowSize(_ row: Row, storages: [ValueStorage?], maskSize: Int) -> Int? {
        guard row.count == storages.count else { return nil }
        var size = maskSize
        for i in 0..<row.count {
            guard let value = row[i] else { continue }
            guard let storage = storages[i], value.fits(storage) else { return nil }
            switch value {
            case .ansiString(let s), .wideString(let s), .blob(let s):
                guard s.count <= Int(Int32.max) else { return nil }
                size += 4 + s.count
            case .guid: size += 36
            case .decimal: size += 16
            case .dateTime, .float, .currency, .largeUInt: size += 8
            case .singleFloat: size += 4
            case .boolean: size += 1
            case .integer: size += storage.minimumSize
            }
        }
        return size
    }

    /// Writes what `rowSize` measured: the NULL mask, then the values, little-endian.
    @inline(__always)
    static func writeRow(_ row: Row, storages: [ValueStorage?], maskSize: Int, to d: UnsafeMutableRawPointer) {
        for i in 0..<row.count where row[i] == nil {
            d.storeBytes(of: d.load(fromByteOffset: i >> 3, as: UInt8.self) | 1 << UInt8(i & 7), toByteOffset: i >> 3, as: UInt8.self)
        }
        var o = maskSize
        @inline(__always) func put<T: FixedWidthInteger>(_ value: T) {
            d.storeBytes(of: value.littleEndian, toByteOffset: o, as: T.self)
            o += MemoryLayout<T>.size
        }
        @inline(__always) func put(_ bytes: ByteString) {
            bytes.bytes.withUnsafeBytes { source in
                if let base = source.baseAddress { (d + o).copyMemory(from: base, byteCount: source.count) }
            }
            o += bytes.count
        }
        for i in 0..<row.count {
            guard let value = row[i] else { continue }
            switch value {
            case .ansiString(let s), .wideString(let s), .blob(let s):
                put(Int32(truncatingIfNeeded: s.count))
                put(s)
            case .guid(let s): put(s)
            case .dateTime(let x): put(x.value.bitPattern)
            case .float(let x): put(x.bitPattern)
            case .singleFloat(let x): put(x.bitPattern)
            case .currency(let x): put(x.scaled)
            case .largeUInt(let x): put(x)
            case .boolean(let x): put(x)
            case .decimal(let x): put(x.low); put(x.mid); put(x.high); put(x.flags)
            case .integer(let x):
                switch storages[i] {
                case .int8?, .uint8?: put(UInt8(truncatingIfNeeded: x))
                case .int16?, .uint16?: put(UInt16(truncatingIfNeeded: x))
                case .int32?, .uint32?: put(UInt32(truncatingIfNeeded: x))
                default: put(x)
                }
            }
        }
    }

    private static func encodePropertyLists(_ lists: [[SchemaProperty]], propertyCount: Int, _ what: String, into writer: inout ByteWriter) throws(BriefcaseError) {
        writer.writeInt32(try ByteWriter.int32(lists.count, "\(what) count"))
        writer.writeInt32(try ByteWriter.int32(propertyCount, "\(what) property count"))
        for (i, list) in lists.enumerated() {
            guard list.count == propertyCount else {
                throw BriefcaseError(.invalidModel, "\(what) \(i) has \(list.count) properties; Bin2 needs the same count (\(propertyCount)) for all")
            }
            for property in list {
                try writer.writeLengthPrefixed(property.name)
                if let value = property.value {
                    try writer.writeLengthPrefixed(value)
                } else {
                    writer.writeInt32(-1)
                }
            }
        }
    }

    static func encodeDelta(_ delta: Delta, into writer: inout ByteWriter) throws(BriefcaseError) {
        if delta.layout == .countOnly {
            guard delta.changes.isEmpty else {
                throw BriefcaseError(.invalidModel, "a delta written as a bare count must have no changes")
            }
            writer.writeInt32(0)
            return
        }
        let changeCount = try ByteWriter.int32(delta.changes.count, "change count")
        if case .mismatchedCounts(let first) = delta.layout { writer.writeInt32(first) } else { writer.writeInt32(changeCount) }
        writer.writeInt32(try ByteWriter.int32(delta.loggedFields.count, "logged field count"))
        for field in delta.loggedFields {
            try writer.writeLengthPrefixed(field.name)
            writer.writeInteger(field.type.rawValue)
        }
        writer.writeInt32(try ByteWriter.int32(delta.keyFields.count, "key field count"))
        for key in delta.keyFields { try writer.writeLengthPrefixed(key) }
        writer.writeInteger(delta.reducedDeltaFlag)
        writer.writeInt32(changeCount)
        // Changes kept as the bytes they were decoded from, each read cleanly: the bytes writing them gives.
        if delta.changes.withStoredBytes(storages: delta.loggedFields.map(\.type.storage), { writer.writeBytes($0) }) != nil { return }
        for (index, change) in delta.changes.enumerated() {
            do throws(BriefcaseError) {
                writer.writeInt32(change.type.rawValue)
                writer.writeInt32(change.recordID)
                writer.writeInt32(change.status.rawValue)
                try writer.writeLengthPrefixed(change.message)
                try encodeValues(change.oldValues, delta.loggedFields, "old values", into: &writer)
                try encodeValues(change.newValues, delta.loggedFields, "new values", into: &writer)
            } catch {
                var located = error
                located.message = "change \(index): " + error.message
                throw located
            }
        }
    }

    private static func encodeValues(_ values: [Value?], _ fields: [LoggedField], _ what: String, into writer: inout ByteWriter) throws(BriefcaseError) {
        guard values.count == fields.count else {
            throw BriefcaseError(.invalidModel, "\(what) has \(values.count) entries for \(fields.count) logged fields")
        }
        var mask = [UInt8](repeating: 0, count: (fields.count + 7) / 8)
        for (i, value) in values.enumerated() where value != nil { mask[i >> 3] |= 1 << UInt8(i & 7) }
        writer.writeBytes(mask)
        for (i, value) in values.enumerated() {
            guard let value else { continue }
            do throws(BriefcaseError) {
                try writeValue(value, storage: fields[i].type.storage, type: fields[i].type, into: &writer)
            } catch {
                var located = error
                located.message = "\(what), field '\(fields[i].name)': " + error.message
                throw located
            }
        }
    }

    static func writeValue(_ value: Value, storage: ValueStorage?, type: DataType, into writer: inout ByteWriter) throws(BriefcaseError) {
        guard let storage else {
            throw BriefcaseError(.invalidModel, "\(type.name) values cannot be written")
        }
        guard value.fits(storage) else {
            throw BriefcaseError(.invalidModel, "value \(value) does not fit a \(type.name) column")
        }
        switch value {
        case .ansiString(let s), .wideString(let s), .blob(let s): try writer.writeLengthPrefixed(s)
        case .guid(let s): writer.writeBytes(s.bytes)
        case .dateTime(let d): writer.writeInteger(d.value.bitPattern)
        case .float(let f): writer.writeInteger(f.bitPattern)
        case .singleFloat(let f): writer.writeInteger(f.bitPattern)
        case .currency(let c): writer.writeInteger(c.scaled)
        case .largeUInt(let u): writer.writeInteger(u)
        case .boolean(let b): writer.writeInteger(b)
        case .decimal(let d):
            writer.writeInteger(d.low); writer.writeInteger(d.mid); writer.writeInteger(d.high); writer.writeInteger(d.flags)
        case .integer(let i):
            switch storage {
            case .int8: writer.writeInteger(Int8(i))
            case .int16: writer.writeInteger(Int16(i))
            case .int32: writer.writeInteger(Int32(i))
            case .int64: writer.writeInteger(i)
            case .uint8: writer.writeInteger(UInt8(i))
            case .uint16: writer.writeInteger(UInt16(i))
            case .uint32: writer.writeInteger(UInt32(i))
            default: break // excluded by `fits`
            }
        }
    }
}

/// An element's body encoded ahead at position 0 (`Bin2Encoder.encodeAhead`).
public struct EncodedBin2Element: Sendable {
    /// The body's bytes (up to `storedRows`, when those are kept apart).
    public let bytes: [UInt8]
    /// A table's rows that filled their own buffer (the JSON reader's), written after `bytes` as
    /// they are rather than copied into them; empty otherwise.
    public let storedRows: [UInt8]
}
