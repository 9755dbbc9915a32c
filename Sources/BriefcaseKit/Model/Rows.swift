/// The stored rows of a table: a collection of `Row`s that a decoded table keeps as views into
/// the bytes it was read from, each row decoded when it is asked for.
///
/// Why: a decoded model of `Value`s takes more than twice the bytes of the file, and in a fresh
/// process most of decoding went to faulting in that memory. A table read from a file keeps the
/// buffer (which its values would share anyway) and where each row starts, 4 bytes a row; the
/// encoders read the rows straight from there (the Bin2 writer copies them as they are, the JSON
/// writer writes each value from its bytes). The first change to the rows (`append`, setting a
/// row or a value) turns them into an array of rows, as they were before.
///
/// Only rows that read cleanly are kept as bytes (`Bin2Decoder.fastRow`): a table with a row the
/// checking reader had to read (set padding bits) is decoded into values at once, so that its
/// warnings come once, from the decoder, and every row read later is read as it was then.
public struct Rows: Sendable {
    @usableFromInline
    enum Storage: Sendable {
        case values([Row])
        case stored(StoredRowBytes)
    }
    @usableFromInline var storage: Storage

    /// No rows.
    public init() { storage = .values([]) }
    /// These rows.
    public init(_ rows: [Row]) { storage = .values(rows) }
    init(stored: StoredRowBytes) { storage = .stored(stored) }

    /// The rows as an array of their own (each stored row decoded).
    public var array: [Row] {
        switch storage {
        case .values(let rows): return rows
        case .stored(let stored): return (0 ..< stored.count).map { stored.row($0) }
        }
    }

    /// Turns stored rows into an array, for a change.
    @usableFromInline
    mutating func materialize() -> [Row] {
        switch storage {
        case .values(let rows):
            storage = .values([])  // the caller puts them back: one reference, no copy
            return rows
        case .stored(let stored):
            storage = .values([])
            return (0 ..< stored.count).map { stored.row($0) }
        }
    }
}

extension Rows: RandomAccessCollection, MutableCollection, RangeReplaceableCollection {
    /// The position of the first row.
    public var startIndex: Int { 0 }
    /// The position after the last row.
    public var endIndex: Int { count }
    /// How many rows there are.
    @inlinable
    public var count: Int {
        switch storage {
        case .values(let rows): return rows.count
        case .stored(let stored): return stored.count
        }
    }

    /// The row at `position` (a stored row is decoded now; setting one turns the rows into an array).
    public subscript(position: Int) -> Row {
        get {
            switch storage {
            case .values(let rows): return rows[position]
            case .stored(let stored):
                precondition(position >= 0 && position < stored.count, "Rows: index out of range")
                return stored.row(position)
            }
        }
        _modify {
            var rows = materialize()
            defer { storage = .values(rows) }
            yield &rows[position]
        }
    }

    /// Replaces the rows in `range` by `newRows` (the rows become an array).
    public mutating func replaceSubrange<C: Collection>(_ range: Range<Int>, with newRows: C) where C.Element == Row {
        var rows = materialize()
        rows.replaceSubrange(range, with: newRows)
        storage = .values(rows)
    }

    /// Room for `capacity` rows (the rows become an array).
    public mutating func reserveCapacity(_ capacity: Int) {
        var rows = materialize()
        rows.reserveCapacity(capacity)
        storage = .values(rows)
    }
}

extension Rows: ExpressibleByArrayLiteral, Hashable, CustomStringConvertible {
    /// The rows listed.
    public init(arrayLiteral rows: Row...) { self.init(rows) }

    /// Equal when they hold the same rows, however they are kept.
    public static func == (a: Rows, b: Rows) -> Bool {
        a.count == b.count && a.elementsEqual(b)
    }

    /// Equal when `a` holds the rows of `b`.
    public static func == (a: Rows, b: [Row]) -> Bool { a.count == b.count && a.elementsEqual(b) }
    /// Equal when `a` holds the rows of `b`.
    public static func == (a: [Row], b: Rows) -> Bool { b == a }

    /// Hashes the rows as `==` compares them.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for row in self { hasher.combine(row) }
    }

    /// The rows as an array prints.
    public var description: String { array.description }
}

extension Rows {
    /// With rows kept as bytes read as `storages` say: calls `body` with those bytes (every row,
    /// mask and values, as the file stores them); else nil. What the Bin2 writer copies as it is.
    public func withStoredBytes<R>(storages: [ValueStorage?], _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        guard case .stored(let stored) = storage, stored.storages == storages else { return nil }
        return try stored.bytes.withUnsafeBufferPointer { buffer in
            try body(UnsafeBufferPointer(rebasing: buffer[stored.first ..< stored.end]))
        }
    }

    /// With rows kept as bytes read as `storages` say: hands the rows in `range` to `visitor`,
    /// value by value from the bytes (no `Value` made of strings and blobs), and returns true;
    /// false, visiting nothing, otherwise. A stored row read cleanly when decoded, so it does again.
    @inlinable
    public func visitStored<Visitor: RowVisitor>(_ range: Range<Int>, storages: [ValueStorage?], into visitor: inout Visitor) -> Bool {
        guard case .stored(let stored) = storage, stored.storages == storages else { return false }
        precondition(range.lowerBound >= 0 && range.upperBound <= stored.count, "Rows: range out of bounds")
        stored.bytes.withUnsafeBufferPointer { buffer in
            var position = range.isEmpty ? 0 : stored.start(range.lowerBound)
            for _ in range {
                let read = Bin2Decoder.fastRow(buffer, stored.bytes, position: &position, end: stored.end, storages: storages, into: &visitor)
                precondition(read, "Rows: a stored row no longer reads")
            }
        }
        return true
    }
}

/// Rows as they lie in a buffer: where each starts, the type of each value.
@usableFromInline
struct StoredRowBytes: Sendable {
    /// The buffer.
    @usableFromInline let bytes: [UInt8]
    /// Index in `bytes` of the first row and after the last.
    @usableFromInline let first: Int, end: Int
    /// Where each row starts, from `first` (32 bits: the rows of one element, whose positions are Int32).
    @usableFromInline let starts: [UInt32]
    /// How each field's values are stored.
    @usableFromInline let storages: [ValueStorage?]

    @inlinable var count: Int { starts.count }
    @inlinable func start(_ i: Int) -> Int { first &+ Int(starts[i]) }

    init(bytes: [UInt8], first: Int, end: Int, starts: [UInt32], storages: [ValueStorage?]) {
        self.bytes = bytes
        self.first = first
        self.end = end
        self.starts = starts
        self.storages = storages
    }

    /// Row `i`, decoded.
    func row(_ i: Int) -> Row {
        var collector = RecordCollector()
        var position = start(i)
        let read = bytes.withUnsafeBufferPointer { buffer in
            Bin2Decoder.fastRow(buffer, bytes, position: &position, end: end, storages: storages, into: &collector)
        }
        precondition(read, "Rows: a stored row no longer reads")
        return collector.record
    }
}

/// Where each row starts, for rows kept as bytes; a row read by the checking reader (which
/// warned, or would have thrown) is kept with its values, and the table is then decoded.
struct RowStarts: RowVisitor {
    let first: Int
    var starts: [UInt32] = []
    var checked: [Int: Row] = [:]

    init(first: Int, capacity: Int) {
        self.first = first
        starts.reserveCapacity(capacity)
    }

    @inline(__always) func beginRow(at position: Int, fieldCount: Int) -> Int { position }
    @inline(__always) func null(_ row: inout Int) {}
    @inline(__always) func bytes(_ storage: ValueStorage, _ array: [UInt8], start: Int, count: Int, base: UnsafePointer<UInt8>,
                                 _ row: inout Int) {}
    @inline(__always) func scalar(_ value: Value, _ row: inout Int) {}
    @inline(__always) func decimal(low: UInt32, mid: UInt32, high: UInt32, flags: UInt32, _ row: inout Int) {}
    /// (A row's start is kept once it is read: a row the fast reader gives up on comes again, checked.)
    @inline(__always) mutating func endRow(_ row: consuming Int) {
        starts.append(UInt32(truncatingIfNeeded: row &- first))
    }
    mutating func checkedRow(_ values: [Value?], at position: Int) {
        checked[starts.count] = values
        starts.append(UInt32(truncatingIfNeeded: position &- first))
    }
}
