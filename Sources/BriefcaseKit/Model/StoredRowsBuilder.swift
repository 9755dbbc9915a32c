/// Rows written as a Bin2 table stores them, value by value as a reader parses them (the JSON
/// reader's rows): the `Rows` a decoded table keeps, made without a `Value` of each string or
/// blob, and which the Bin2 writer then copies as they are.
///
/// A row is begun (`beginRow`: its NULL mask, clear), its values appended in column order
/// (`null`, `integer`, `scalar`, `lengthPrefixed`, `raw`), then ended (`endRow`) or dropped
/// (`cancelRow`, for a reader that found the row not in the form it reads). A row of values
/// (`append`) is written by the Bin2 writer's own row writer. The bytes are those
/// `Bin2Encoder` writes for the same values; a row it could not write (a value that does not fit
/// its column, a string of 2 GiB or more), or rows past 4 GiB, make the builder keep values
/// instead, every row decoded back.
public struct StoredRowsBuilder {
    /// How each field's values are stored.
    public let storages: [ValueStorage?]
    private let maskSize: Int
    private var bytes: [UInt8] = []
    private var starts: [UInt32] = []
    private var rowStart = 0
    /// Once a row could not be kept as bytes: every row, as values.
    private var values: [Row]?

    /// A builder of rows of fields stored as `storages` say.
    public init(storages: [ValueStorage?]) {
        self.storages = storages
        maskSize = (storages.count + 7) / 8
    }

    /// How many rows were ended.
    public var count: Int { values?.count ?? starts.count }

    /// Starts a row: its NULL mask, all clear.
    @inline(__always)
    public mutating func beginRow() {
        rowStart = bytes.count
        for _ in 0 ..< maskSize { bytes.append(0) }
    }

    /// Column `column` of the row begun is NULL.
    @inline(__always)
    public mutating func null(_ column: Int) {
        bytes[rowStart &+ column &>> 3] |= 1 &<< UInt8(truncatingIfNeeded: column & 7)
    }

    /// A fixed-size value, little-endian (a float or date by its bit pattern).
    @inline(__always)
    public mutating func scalar<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// An integer in its column's width (`value` fits `storage`: the caller checked).
    @inline(__always)
    public mutating func integer(_ value: Int64, _ storage: ValueStorage) {
        switch storage {
        case .int8, .uint8: scalar(UInt8(truncatingIfNeeded: value))
        case .int16, .uint16: scalar(UInt16(truncatingIfNeeded: value))
        case .int32, .uint32: scalar(UInt32(truncatingIfNeeded: value))
        default: scalar(value)
        }
    }

    /// Bytes as they are (a GUID's 36).
    @inline(__always)
    public mutating func raw(_ value: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: value)
    }

    /// A string or blob: its Int32 length, then its bytes. False, nothing written, when it is
    /// 2 GiB or more.
    @inline(__always)
    public mutating func lengthPrefixed(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        guard value.count <= Int(Int32.max) else { return false }
        scalar(Int32(truncatingIfNeeded: value.count))
        bytes.append(contentsOf: value)
        return true
    }

    /// A string of at most `maximum` bytes that `body` writes through a pointer, returning how
    /// many; its Int32 length before it. False, nothing written, when it may be 2 GiB or more.
    @inline(__always)
    public mutating func lengthPrefixed(maximum: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) -> Bool {
        guard maximum <= Int(Int32.max) else { return false }
        let start = bytes.count
        ByteWriter.appendZeros(4 &+ maximum, to: &bytes)
        let written = bytes.withUnsafeMutableBufferPointer { buffer in
            let count = body(buffer.baseAddress! + start + 4)
            UnsafeMutableRawPointer(buffer.baseAddress! + start).storeBytes(of: Int32(truncatingIfNeeded: count).littleEndian, as: Int32.self)
            return count
        }
        bytes.removeLast(maximum &- written)
        return true
    }

    /// The row begun is complete.
    @inline(__always)
    public mutating func endRow() {
        guard values == nil, bytes.count <= Int(UInt32.max) else { return keepAsValue() }
        starts.append(UInt32(truncatingIfNeeded: rowStart))
    }

    /// Forgets the row begun.
    public mutating func cancelRow() {
        bytes.removeLast(bytes.count &- rowStart)
    }

    /// A row of values (it must have a value or nil per field).
    public mutating func append(_ row: Row) {
        guard values == nil, let size = Bin2Encoder.rowSize(row, storages: storages, maskSize: maskSize) else {
            rowStart = bytes.count  // (no row begun: every byte is of the rows so far)
            beginValues()
            values!.append(row)
            return
        }
        rowStart = bytes.count
        ByteWriter.appendZeros(size, to: &bytes)
        bytes.withUnsafeMutableBytes { Bin2Encoder.writeRow(row, storages: storages, maskSize: maskSize, to: $0.baseAddress! + rowStart) }
        endRow()
    }

    /// The rows.
    public func rows() -> Rows {
        if let values { return Rows(values) }
        return Rows(stored: StoredRowBytes(bytes: bytes, first: 0, end: bytes.count, starts: starts, storages: storages))
    }

    /// From now on, every row as values: those before `rowStart` decoded back.
    private mutating func beginValues() {
        guard values == nil else { return }
        let stored = StoredRowBytes(bytes: bytes, first: 0, end: rowStart, starts: starts, storages: storages)
        values = (0 ..< stored.count).map { stored.row($0) }
        bytes.removeSubrange(0 ..< rowStart)
        starts = []
        rowStart = 0
    }

    /// The row just written, moved to the values.
    private mutating func keepAsValue() {
        beginValues()
        let row = StoredRowBytes(bytes: bytes, first: rowStart, end: bytes.count, starts: [0], storages: storages).row(0)
        values!.append(row)
        bytes.removeAll(keepingCapacity: true)
        rowStart = 0
    }
}
