/// A table's rows (`Table.rows`).
public typealias Rows = StoredElements<Row>
/// A delta's changes (`Delta.changes`): kept as views into their bytes like rows, each change
/// (its head, old and new values) decoded when asked.
public typealias Changes = StoredElements<DeltaChange>

/// Rows or changes: a collection that a decoded table (or delta) keeps as views into the bytes
/// it was read from, each decoded when it is asked for.
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
/// warnings come once, from the decoder, and every row read later is read as it was then. So
/// for changes (`Changes`), whose head and values are read the same way.
public struct StoredElements<Element: Hashable & Sendable>: Sendable {
    @usableFromInline
    enum Storage: Sendable {
        case values([Element])
        /// The spans, and how element i of them is decoded.
        case stored(StoredSpans, decode: @Sendable (StoredSpans, Int) -> Element)
    }
    @usableFromInline var storage: Storage

    /// None.
    public init() { storage = .values([]) }
    /// These.
    public init(_ elements: [Element]) { storage = .values(elements) }
    init(stored: StoredSpans, decode: @escaping @Sendable (StoredSpans, Int) -> Element) { storage = .stored(stored, decode: decode) }

    /// As an array of their own (each stored one decoded).
    public var array: [Element] {
        switch storage {
        case .values(let elements): return elements
        case .stored(let stored, let decode): return (0 ..< stored.count).map { decode(stored, $0) }
        }
    }

    /// Decodes every one kept as bytes, once: for a reader that goes through them more than
    /// once (each read of one kept as bytes decodes it again).
    public mutating func decodeStored() {
        if case .stored = storage { storage = .values(array) }
    }

    /// Turns stored elements into an array, for a change.
    @usableFromInline
    mutating func materialize() -> [Element] {
        let elements = array
        storage = .values([])  // the caller puts them back: one reference, no copy
        return elements
    }
}

extension StoredElements: RandomAccessCollection, MutableCollection, RangeReplaceableCollection {
    /// The position of the first.
    public var startIndex: Int { 0 }
    /// The position after the last.
    public var endIndex: Int { count }
    /// How many there are.
    @inlinable
    public var count: Int {
        switch storage {
        case .values(let elements): return elements.count
        case .stored(let stored, _): return stored.count
        }
    }

    /// The one at `position` (a stored one is decoded now; setting one turns them into an array).
    public subscript(position: Int) -> Element {
        get {
            switch storage {
            case .values(let elements): return elements[position]
            case .stored(let stored, let decode):
                precondition(position >= 0 && position < stored.count, "StoredElements: index out of range")
                return decode(stored, position)
            }
        }
        _modify {
            var elements = materialize()
            defer { storage = .values(elements) }
            yield &elements[position]
        }
    }

    /// Replaces those in `range` by `newElements` (they become an array).
    public mutating func replaceSubrange<C: Collection>(_ range: Range<Int>, with newElements: C) where C.Element == Element {
        var elements = materialize()
        elements.replaceSubrange(range, with: newElements)
        storage = .values(elements)
    }

    /// Room for `capacity` (they become an array).
    public mutating func reserveCapacity(_ capacity: Int) {
        var elements = materialize()
        elements.reserveCapacity(capacity)
        storage = .values(elements)
    }
}

extension StoredElements: ExpressibleByArrayLiteral, Hashable, CustomStringConvertible {
    /// Those listed.
    public init(arrayLiteral elements: Element...) { self.init(elements) }

    /// Equal when they hold the same, however they are kept.
    public static func == (a: Self, b: Self) -> Bool {
        a.count == b.count && a.elementsEqual(b)
    }

    /// Equal when `a` holds those of `b`.
    public static func == (a: Self, b: [Element]) -> Bool { a.count == b.count && a.elementsEqual(b) }
    /// Equal when `a` holds those of `b`.
    public static func == (a: [Element], b: Self) -> Bool { b == a }

    /// Hashes them as `==` compares them.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for element in self { hasher.combine(element) }
    }

    /// As an array prints.
    public var description: String { array.description }
}

extension StoredElements {
    /// When kept as bytes read as `storages` say: calls `body` with those bytes (every one, as
    /// the file stores them: each row's mask and values, each change's head and values); else
    /// nil. What the Bin2 writer copies as it is.
    public func withStoredBytes<R>(storages: [ValueStorage?], _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        guard case .stored(let stored, _) = storage, stored.storages == storages else { return nil }
        return try stored.source.withUnsafeBufferPointer { buffer in
            try body(UnsafeBufferPointer(rebasing: buffer[stored.first ..< stored.end]))
        }
    }
}

extension Rows {
    /// The buffer of rows kept as bytes read as `storages` say, when they fill it whole (rows
    /// made by a `StoredRowsBuilder`; rows decoded from an element share its buffer with its head).
    func wholeStoredBuffer(storages: [ValueStorage?]) -> [UInt8]? {
        guard case .stored(let stored, _) = storage, stored.storages == storages, stored.first == 0,
              let array = stored.source.array, stored.end == array.count else { return nil }
        return array
    }

    /// Rows kept as the bytes of `stored`.
    init(stored: StoredSpans) { self.init(stored: stored, decode: { $0.row($1) }) }

    /// The rows cut into consecutive ranges, in order, covering them all: each of at most
    /// `maximumRows` rows and — rows kept as bytes — at most `maximumBytes` of them (a row
    /// larger than that alone). For work shared among threads: a table of a few hundred rows of
    /// large blobs is as much work as one of many short rows, and is cut as finely.
    public func parts(maximumRows: Int, maximumBytes: Int) -> [Range<Int>] {
        let maximumRows = Swift.max(1, maximumRows)
        guard case .stored(let stored, _) = storage else {
            return stride(from: 0, to: count, by: maximumRows).map { $0 ..< Swift.min(count, $0 + maximumRows) }
        }
        /// Where row `i` ends in the buffer.
        func rowEnd(_ i: Int) -> Int { i + 1 < stored.count ? stored.start(i + 1) : stored.end }
        var parts: [Range<Int>] = []
        var lower = 0
        while lower < stored.count {
            var upper = lower + 1  // a part takes at least one row
            let limit = Swift.min(stored.count, lower + maximumRows)
            while upper < limit && rowEnd(upper) - stored.start(lower) <= maximumBytes { upper += 1 }
            parts.append(lower ..< upper)
            lower = upper
        }
        return parts
    }
}

extension Rows {
    /// With rows kept as bytes read as `storages` say: hands the rows in `range` to `visitor`,
    /// value by value from the bytes (no `Value` made of strings and blobs), and returns true;
    /// false, visiting nothing, otherwise. A stored row read cleanly when decoded, so it does again.
    @inlinable
    public func visitStored<Visitor: RowVisitor>(_ range: Range<Int>, storages: [ValueStorage?], into visitor: inout Visitor) -> Bool {
        guard case .stored(let stored, _) = storage, stored.storages == storages else { return false }
        precondition(range.lowerBound >= 0 && range.upperBound <= stored.count, "Rows: range out of bounds")
        stored.source.withUnsafeBufferPointer { buffer in
            var position = range.isEmpty ? 0 : stored.start(range.lowerBound)
            for _ in range {
                let read = Bin2Decoder.fastRow(buffer, stored.source, position: &position, end: stored.end, storages: storages, into: &visitor)
                precondition(read, "Rows: a stored row no longer reads")
            }
        }
        return true
    }
}

/// Rows or changes as they lie in a buffer: where each starts, the type of each value.
@usableFromInline
struct StoredSpans: Sendable {
    /// The buffer: an array, or a mapped file.
    @usableFromInline let source: ByteSource
    /// Index in the buffer of the first row and after the last.
    @usableFromInline let first: Int, end: Int
    /// Where each starts, from `first` (32 bits: those of one element, whose positions are Int32).
    @usableFromInline let starts: [UInt32]
    /// How each field's values are stored.
    @usableFromInline let storages: [ValueStorage?]

    @inlinable var count: Int { starts.count }
    @inlinable func start(_ i: Int) -> Int { first &+ Int(starts[i]) }

    init(source: ByteSource, first: Int, end: Int, starts: [UInt32], storages: [ValueStorage?]) {
        self.source = source
        self.first = first
        self.end = end
        self.starts = starts
        self.storages = storages
    }

    /// Row `i`, decoded.
    func row(_ i: Int) -> Row {
        var position = start(i)
        return values(at: &position)
    }

    /// The values at `position` — a row's, after its NULL mask, or a change's old or new values,
    /// after a mask whose set bits are values (`setBitIsValue`) — which read cleanly when
    /// decoded, handed to `visitor`; `position` moves past them. The one reading of stored values.
    @inline(__always)
    func read<Visitor: RowVisitor>(at position: inout Int, setBitIsValue: Bool = false, into visitor: inout Visitor) {
        let read = source.withUnsafeBufferPointer { buffer in
            Bin2Decoder.fastRow(buffer, source, position: &position, end: end, storages: storages, setBitIsValue: setBitIsValue, into: &visitor)
        }
        precondition(read, "StoredSpans: a stored row or change no longer reads")
    }

    /// The values at `position`, as `read` reads them.
    func values(at position: inout Int, setBitIsValue: Bool = false) -> [Value?] {
        var collector = RecordCollector()
        read(at: &position, setBitIsValue: setBitIsValue, into: &collector)
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
    @inline(__always) func bytes(_ storage: ValueStorage, _ source: ByteSource, start: Int, count: Int, base: UnsafePointer<UInt8>,
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
