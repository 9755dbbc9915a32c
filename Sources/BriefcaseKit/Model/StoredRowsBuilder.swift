/// Rows written as a Bin2 table stores them, value by value as a reader parses them (the JSON
/// reader's rows): the `Rows` a decoded table keeps, made without a `Value` of each string or
/// blob, and which the Bin2 writer then copies as they are.
///
/// A row is begun (`beginRow`: its NULL mask, clear), its values appended in column order
/// (`null`, `integer`, `scalar`, `lengthPrefixed`, `raw`), then ended (`endRow`) or dropped
/// (`cancelRow`, for a reader that found the row not in the form it reads). One builder per
/// table, used by one thread. A row of values
/// (`append`) is written by the Bin2 writer's own row writer. The bytes are those
/// `Bin2Encoder` writes for the same values; a row it could not write (a value that does not fit
/// its column, a string of 2 GiB or more), or rows past 4 GiB, make the builder keep values
/// instead, every row decoded back.
///
/// Public, not `package` like the rest of the machinery: its `@inlinable` members must be inlined
/// into the JSON reader's row loop, and Swift 6.3 does not inline `@inlinable package` members
/// into another module (→ dabriefcase from json: 3 % more instructions as `package`, callgrind).
public final class StoredRowsBuilder {
    /// How each field's values are stored.
    public let storages: [ValueStorage?]
    @usableFromInline let maskSize: Int
    /// The bytes so far: `count` of `capacity` (its own memory: an array's appends, generic and
    /// checked each time, cost more than all the rest of writing a row).
    // (Unchecked exclusivity: a checked access to a class's property costs a runtime call each,
    // more than the store it guards; the builder is used by one thread, through its methods.)
    @exclusivity(unchecked) @usableFromInline var pointer: UnsafeMutableRawPointer
    @exclusivity(unchecked) @usableFromInline var byteCount = 0
    @exclusivity(unchecked) @usableFromInline var capacity: Int
    private var starts: [UInt32] = []
    @exclusivity(unchecked) @usableFromInline var rowStart = 0
    /// Once a row could not be kept as bytes: every row, as values.
    private var values: [Row]?

    /// A builder of rows of fields stored as `storages` say.
    public init(storages: [ValueStorage?]) {
        self.storages = storages
        maskSize = (storages.count + 7) / 8
        capacity = 1 << 16
        pointer = .allocate(byteCount: capacity, alignment: 8)
    }

    deinit { pointer.deallocate() }

    /// How many rows were ended.
    public var count: Int { values?.count ?? starts.count }

    /// Room for `count` more bytes; where they go.
    @inlinable @inline(__always)
    func room(_ count: Int) -> UnsafeMutableRawPointer {
        if byteCount &+ count > capacity { grow(byteCount &+ count) }
        return pointer + byteCount
    }

    @usableFromInline
    func grow(_ needed: Int) {
        let larger = max(needed, capacity &* 2)
        let moved = UnsafeMutableRawPointer.allocate(byteCount: larger, alignment: 8)
        moved.copyMemory(from: pointer, byteCount: byteCount)
        pointer.deallocate()
        pointer = moved
        capacity = larger
    }

    /// Starts a row: its NULL mask, all clear.
    @inlinable @inline(__always)
    public func beginRow() {
        rowStart = byteCount
        room(maskSize).initializeMemory(as: UInt8.self, repeating: 0, count: maskSize)
        byteCount &+= maskSize
    }

    /// Column `column` of the row begun is NULL.
    @inlinable @inline(__always)
    public func null(_ column: Int) {
        let mask = (pointer + rowStart).assumingMemoryBound(to: UInt8.self)
        mask[column &>> 3] |= 1 &<< UInt8(truncatingIfNeeded: column & 7)
    }

    /// A fixed-size value, little-endian (a float or date by its bit pattern).
    @inlinable @inline(__always)
    public func scalar<T: FixedWidthInteger>(_ value: T) {
        room(MemoryLayout<T>.size).storeBytes(of: value.littleEndian, as: T.self)
        byteCount &+= MemoryLayout<T>.size
    }

    /// An integer in its column's width (`value` fits `storage`: the caller checked).
    @inlinable @inline(__always)
    public func integer(_ value: Int64, _ storage: ValueStorage) {
        switch storage {
        case .int8, .uint8: scalar(UInt8(truncatingIfNeeded: value))
        case .int16, .uint16: scalar(UInt16(truncatingIfNeeded: value))
        case .int32, .uint32: scalar(UInt32(truncatingIfNeeded: value))
        default: scalar(value)
        }
    }

    /// Bytes as they are (a GUID's 36).
    @inlinable @inline(__always)
    public func raw(_ value: UnsafeBufferPointer<UInt8>) {
        guard let base = value.baseAddress else { return }
        room(value.count).copyMemory(from: base, byteCount: value.count)
        byteCount &+= value.count
    }

    /// A string or blob: its Int32 length, then its bytes. False, nothing written, when it is
    /// 2 GiB or more.
    @inlinable @inline(__always)
    public func lengthPrefixed(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        guard value.count <= Int(Int32.max) else { return false }
        scalar(Int32(truncatingIfNeeded: value.count))
        raw(value)
        return true
    }

    /// A string of at most `maximum` bytes that `body` writes through a pointer, returning how
    /// many; its Int32 length before it. False, nothing written, when it may be 2 GiB or more.
    @inlinable @inline(__always)
    public func lengthPrefixed(maximum: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) -> Bool {
        guard maximum <= Int(Int32.max) else { return false }
        let d = room(4 &+ maximum)
        let written = body((d + 4).assumingMemoryBound(to: UInt8.self))
        d.storeBytes(of: Int32(truncatingIfNeeded: written).littleEndian, as: Int32.self)
        byteCount &+= 4 &+ written
        return true
    }

    /// The row begun is complete.
    public func endRow() {
        guard values == nil, byteCount <= Int(UInt32.max) else { return keepAsValue() }
        starts.append(UInt32(truncatingIfNeeded: rowStart))
    }

    /// Forgets the row begun.
    public func cancelRow() {
        byteCount = rowStart
    }

    /// A row of values (it must have a value or nil per field).
    public func append(_ row: Row) {
        rowStart = byteCount
        guard values == nil, let size = Bin2Encoder.rowSize(row, storages: storages, maskSize: maskSize) else {
            beginValues()
            values!.append(row)
            return
        }
        let d = room(size)
        d.initializeMemory(as: UInt8.self, repeating: 0, count: maskSize)
        Bin2Encoder.writeRow(row, storages: storages, maskSize: maskSize, to: d)
        byteCount &+= size
        endRow()
    }

    /// The rows.
    public func rows() -> Rows {
        if let values { return Rows(values) }
        return Rows(stored: StoredSpans(source: ByteSource(bytes(0 ..< byteCount)), first: 0, end: byteCount, starts: starts, storages: storages))
    }

    /// A copy of the bytes in `range`.
    private func bytes(_ range: Range<Int>) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: range.count) { buffer, initialized in
            if range.count > 0 { UnsafeMutableRawPointer(buffer.baseAddress!).copyMemory(from: pointer + range.lowerBound, byteCount: range.count) }
            initialized = range.count
        }
    }

    /// From now on, every row as values: those before `rowStart` decoded back.
    private func beginValues() {
        guard values == nil else { return }
        let stored = StoredSpans(source: ByteSource(bytes(0 ..< rowStart)), first: 0, end: rowStart, starts: starts, storages: storages)
        values = (0 ..< stored.count).map { stored.row($0) }
        let rest = bytes(rowStart ..< byteCount)  // (the row begun, moved to the start)
        rest.withUnsafeBytes { if let base = $0.baseAddress { pointer.copyMemory(from: base, byteCount: $0.count) } }
        byteCount = rest.count
        starts = []
        rowStart = 0
    }

    /// The row just written, moved to the values.
    private func keepAsValue() {
        beginValues()
        let row = StoredSpans(source: ByteSource(bytes(0 ..< byteCount)), first: 0, end: byteCount, starts: [0], storages: storages).row(0)
        values!.append(row)
        byteCount = 0
        rowStart = 0
    }
}
