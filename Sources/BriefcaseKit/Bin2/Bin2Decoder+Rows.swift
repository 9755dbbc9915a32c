/// What the row reader hands each value of a table's rows to: the model's `RowCollector`
/// makes `Value`s of them; `validate`'s checks look at them where they lie in the buffer and
/// keep nothing (`ValueChecks`). One reader, so one decoding rule for both.
///
/// A row read straight from the buffer comes as `beginRow`, which gives the state of the row
/// (the collector's `Row`, kept in a local variable of the reader), one call per field, then
/// `endRow`; if something in it is not plainly valid, the state is dropped and the checking
/// reader reads the row again, handing it whole to `checkedRow`.
public protocol RowVisitor {
    /// What the visitor keeps of the row being read.
    associatedtype RowState
    /// A row starts at index `position` of the buffer.
    mutating func beginRow(at position: Int, fieldCount: Int) -> RowState
    /// A NULL.
    mutating func null(_ row: inout RowState)
    /// A string, blob or GUID: `count` bytes at index `start` of `source`, whose bytes start at
    /// `base` (`source.byteString(_:)` makes a value of them that outlives the call).
    mutating func bytes(_ storage: ValueStorage, _ source: ByteSource, start: Int, count: Int, base: UnsafePointer<UInt8>,
                        _ row: inout RowState)
    /// Any value of a fixed size but a decimal (which the model boxes).
    mutating func scalar(_ value: Value, _ row: inout RowState)
    /// A decimal's four words.
    mutating func decimal(low: UInt32, mid: UInt32, high: UInt32, flags: UInt32, _ row: inout RowState)
    /// The row's last value was read.
    mutating func endRow(_ row: consuming RowState)
    /// A row the checking reader read, starting at index `position` of the buffer.
    mutating func checkedRow(_ values: [Value?], at position: Int)
}

/// A visitor that makes the model's `Row`s (values are slices of an array, or copies out of a
/// mapped file: `ByteSource.byteString`): what it does with
/// each row read is its own (`endRow`, `checkedRow`).
protocol ModelRowVisitor: RowVisitor where RowState == Row {}

extension ModelRowVisitor {
    @inline(__always) func beginRow(at position: Int, fieldCount: Int) -> Row {
        var row: Row = []
        row.reserveCapacity(fieldCount)
        return row
    }
    @inline(__always) func null(_ row: inout Row) { row.append(nil) }
    @inline(__always) func bytes(_ storage: ValueStorage, _ source: ByteSource, start: Int, count: Int, base: UnsafePointer<UInt8>,
                                 _ row: inout Row) {
        row.append(Value(storage, source.byteString(start ..< start &+ count)))
    }
    @inline(__always) func scalar(_ value: Value, _ row: inout Row) { row.append(value) }
    @inline(__always) func decimal(low: UInt32, mid: UInt32, high: UInt32, flags: UInt32, _ row: inout Row) {
        row.append(.decimal(Decimal96(low: low, mid: mid, high: high, flags: flags)))
    }
}

extension Value {
    /// The value of bytes a row stores as `storage` (a string, a blob or a GUID), as every row
    /// visitor makes it.
    @inline(__always)
    package init(_ storage: ValueStorage, _ string: ByteString) {
        switch storage {
        case .ansiString: self = .ansiString(string)
        case .wideString: self = .wideString(string)
        case .guid: self = .guid(string)
        default: self = .blob(string)
        }
    }
}

/// Collects the rows of a table.
struct RowCollector: ModelRowVisitor {
    var rows: [Row] = []

    init(capacity: Int) { rows.reserveCapacity(capacity) }

    @inline(__always) mutating func endRow(_ row: consuming Row) { rows.append(row) }
    mutating func checkedRow(_ values: [Value?], at position: Int) { rows.append(values) }
}

/// Collects one record: a row read on its own (`StoredRows`), the old or the new values of a change.
struct RecordCollector: ModelRowVisitor {
    var record: Row = []

    @inline(__always) mutating func endRow(_ row: consuming Row) { record = row }
    mutating func checkedRow(_ values: [Value?], at position: Int) { record = values }
}

extension Bin2Decoder {
    /// Reads the `head.rowCount` rows that follow a table's head into `visitor`.
    mutating func decodeRows<Visitor: RowVisitor>(_ reader: inout ByteReader, head: TableHead,
                                                  into visitor: inout Visitor) throws(BriefcaseError) {
        let fields = head.fields, rowCount = head.rowCount, name = head.name
        let storages = fields.map(\.type.storage)
        // Taken out once: read from the inout reader in the loop, it was copied (retained) row by row.
        let source = reader.source
        var rowIndex = 0
        while rowIndex < rowCount {
            // As many rows as read cleanly, straight from the buffer; a row that does not (a
            // value past the end, a bad length, an unknown type, set padding bits) is read
            // again by the checking reader below, which throws or warns exactly as it always did.
            let position = source.withUnsafeBufferPointer { buffer in
                var position = reader.readerIndex - reader.base
                let end = reader.endIndex - reader.base
                while rowIndex < rowCount,
                      Self.fastRow(buffer, source, position: &position, end: end, storages: storages, into: &visitor) {
                    rowIndex += 1
                }
                return position
            }
            reader.readerIndex = position + reader.base
            guard rowIndex < rowCount else { break }
            let start = reader.readerIndex - reader.base
            visitor.checkedRow(try decodeValues(&reader, fields, setBitIsValue: false, mask: "NULL mask of row \(rowIndex)",
                                                element: name, place: { "row \(rowIndex), " }), at: start)
            rowIndex += 1
        }
    }

    /// The values of a change (`setBitIsValue`: a set bit of its mask is a value) into `visitor`:
    /// straight from the buffer when they read cleanly, else by the checking reader (which
    /// throws or warns), handed over whole.
    @inline(__always)
    mutating func readChangeValues<Visitor: RowVisitor>(_ reader: inout ByteReader, _ fields: [LoggedField], storages: [ValueStorage?],
                                                        mask what: @autoclosure () -> String, element: ByteString,
                                                        into visitor: inout Visitor) throws(BriefcaseError) {
        let source = reader.source
        let read = source.withUnsafeBufferPointer { buffer in
            var position = reader.readerIndex - reader.base
            guard Self.fastRow(buffer, source, position: &position, end: reader.endIndex - reader.base, storages: storages,
                               setBitIsValue: true, into: &visitor) else { return false }
            reader.readerIndex = position + reader.base
            return true
        }
        guard !read else { return }
        let start = reader.readerIndex - reader.base
        visitor.checkedRow(try decodeValues(&reader, fields, setBitIsValue: true, mask: what(), element: element), at: start)
    }

    /// The values of a change, for the model.
    mutating func decodeChangeValues(_ reader: inout ByteReader, _ fields: [LoggedField], storages: [ValueStorage?],
                                     mask what: @autoclosure () -> String, element: ByteString) throws(BriefcaseError) -> [Value?] {
        var collector = RecordCollector()
        try readChangeValues(&reader, fields, storages: storages, mask: what(), element: element, into: &collector)
        return collector.record
    }

    /// Reads the row at `position` (an index into `array`, whose storage `buffer` is) into
    /// `visitor` without building error messages, or returns false — leaving `position` alone,
    /// the row's state dropped — when anything about it is not plainly valid: then the checking reader
    /// reads it and says what is wrong. Values are read as `readValue` reads them.
    @inlinable @inline(__always)
    static func fastRow<Visitor: RowVisitor>(_ buffer: UnsafeBufferPointer<UInt8>, _ source: ByteSource, position: inout Int, end: Int,
                                             storages: [ValueStorage?], setBitIsValue: Bool = false,
                                             into visitor: inout Visitor) -> Bool {
        let fieldCount = storages.count
        let maskSize = (fieldCount + 7) >> 3
        guard let base = buffer.baseAddress, position >= 0, end <= buffer.count, end - position >= maskSize else { return false }
        let mask = base + position
        if fieldCount & 7 != 0, mask[maskSize - 1] >> UInt8(fieldCount & 7) != 0 { return false } // padding bits: warn
        var p = position + maskSize
        @inline(__always) func load<T: FixedWidthInteger>(_: T.Type) -> T? {
            guard end &- p >= MemoryLayout<T>.size else { return nil }
            let value = T(littleEndian: UnsafeRawPointer(base + p).loadUnaligned(as: T.self))
            p &+= MemoryLayout<T>.size
            return value
        }
        /// The start of `count` bytes at `p`, which moves past them.
        @inline(__always) func span(_ count: Int) -> Int? {
            guard count >= 0, end &- p >= count else { return nil }
            defer { p &+= count }
            return p
        }
        @inline(__always) func lengthPrefixed() -> (start: Int, count: Int)? {
            guard let length = load(Int32.self), let start = span(Int(length)) else { return nil }
            return (start, Int(length))
        }
        var row = visitor.beginRow(at: position, fieldCount: fieldCount)
        for column in 0..<fieldCount {
            if (mask[column &>> 3] & (1 &<< UInt8(truncatingIfNeeded: column & 7)) != 0) != setBitIsValue {
                visitor.null(&row)
                continue
            }
            let read: Bool
            switch storages[column] {
            case .ansiString?, .wideString?, .blob?:
                guard let (start, count) = lengthPrefixed() else { read = false; break }
                visitor.bytes(storages[column]!, source, start: start, count: count, base: base, &row); read = true
            case .guid?:
                guard let start = span(36) else { read = false; break }
                visitor.bytes(.guid, source, start: start, count: 36, base: base, &row); read = true
            case .int32?:
                guard let x = load(Int32.self) else { read = false; break }
                visitor.scalar(.integer(Int64(x)), &row); read = true
            case .int64?:
                guard let x = load(Int64.self) else { read = false; break }
                visitor.scalar(.integer(x), &row); read = true
            case .dateTime?:
                guard let x = load(UInt64.self) else { read = false; break }
                visitor.scalar(.dateTime(OLEDateTime(Double(bitPattern: x))), &row); read = true
            case .float64?:
                guard let x = load(UInt64.self) else { read = false; break }
                visitor.scalar(.float(Double(bitPattern: x)), &row); read = true
            case .float32?:
                guard let x = load(UInt32.self) else { read = false; break }
                visitor.scalar(.singleFloat(Float(bitPattern: x)), &row); read = true
            case .currency?:
                guard let x = load(Int64.self) else { read = false; break }
                visitor.scalar(.currency(Currency(scaled: x)), &row); read = true
            case .int8?:
                guard let x = load(Int8.self) else { read = false; break }
                visitor.scalar(.integer(Int64(x)), &row); read = true
            case .int16?:
                guard let x = load(Int16.self) else { read = false; break }
                visitor.scalar(.integer(Int64(x)), &row); read = true
            case .uint8?:
                guard let x = load(UInt8.self) else { read = false; break }
                visitor.scalar(.integer(Int64(x)), &row); read = true
            case .uint16?:
                guard let x = load(UInt16.self) else { read = false; break }
                visitor.scalar(.integer(Int64(x)), &row); read = true
            case .uint32?:
                guard let x = load(UInt32.self) else { read = false; break }
                visitor.scalar(.integer(Int64(x)), &row); read = true
            case .uint64?:
                guard let x = load(UInt64.self) else { read = false; break }
                visitor.scalar(.largeUInt(x), &row); read = true
            case .boolean?:
                guard let x = load(UInt8.self) else { read = false; break }
                visitor.scalar(.boolean(x), &row); read = true
            case .decimal?:
                guard end &- p >= 16 else { read = false; break }
                let raw = UnsafeRawPointer(base + p)
                visitor.decimal(low: UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self)),
                                mid: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self)),
                                high: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt32.self)),
                                flags: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 12, as: UInt32.self)), &row)
                p &+= 16
                read = true
            case nil:
                read = false
            }
            guard read else { return false }
        }
        visitor.endRow(consume row)
        position = p
        return true
    }
}
