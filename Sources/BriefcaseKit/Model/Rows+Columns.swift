#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Rows kept as bytes read a few columns at a time (`briefcase diff`: the key columns of every
/// row, the whole row only where it changed), and compared by their bytes.
package struct StoredRowsView: Sendable {
    let spans: StoredSpans

    /// How many rows.
    package var count: Int { spans.count }
    /// How each field's values are stored.
    package var storages: [ValueStorage?] { spans.storages }

    /// A reader of the values of `columns` (places among the fields, in any order) of any row;
    /// the other values are walked over, not made.
    package func columns(_ columns: [Int]) -> StoredColumnsReader {
        StoredColumnsReader(spans: spans, slots: ColumnPicker.slots(columns, fieldCount: spans.storages.count), count: columns.count)
    }

    /// Row `i`, decoded.
    package func row(_ i: Int) -> Row { spans.row(i) }

    /// Whether row `i` here and row `j` of `other` are the same bytes (then, stored alike, the
    /// same values).
    package func sameBytes(_ i: Int, as other: StoredRowsView, _ j: Int) -> Bool {
        let a = range(i), b = other.range(j)
        guard a.count == b.count else { return false }
        return spans.source.withUnsafeBufferPointer { x in
            other.spans.source.withUnsafeBufferPointer { y in
                a.isEmpty || memcmp(x.baseAddress! + a.lowerBound, y.baseAddress! + b.lowerBound, a.count) == 0
            }
        }
    }

    /// Whether all rows here are the same bytes as all of `other`'s (the same count, each row the
    /// same bytes).
    package func sameBytes(as other: StoredRowsView) -> Bool {
        guard count == other.count, spans.end - spans.first == other.spans.end - other.spans.first,
              spans.starts == other.spans.starts else { return false }
        return spans.source.withUnsafeBufferPointer { x in
            other.spans.source.withUnsafeBufferPointer { y in
                spans.end == spans.first || memcmp(x.baseAddress! + spans.first, y.baseAddress! + other.spans.first, spans.end - spans.first) == 0
            }
        }
    }

    private func range(_ i: Int) -> Range<Int> {
        spans.start(i) ..< (i + 1 < spans.count ? spans.start(i + 1) : spans.end)
    }
}

/// The values of a few columns of rows kept as bytes (`StoredRowsView.columns(_:)`).
package struct StoredColumnsReader: Sendable {
    let spans: StoredSpans
    let slots: [Int]
    let count: Int

    /// Row `i`'s values of the columns.
    package func values(row i: Int) -> [Value?] {
        var picker = ColumnPicker(slots: slots, count: count)
        var position = spans.start(i)
        spans.read(at: &position, into: &picker)
        return picker.picked
    }

    /// Row `i`'s value of the first column.
    package func value(row i: Int) -> Value? {
        var picker = OneColumnPicker(column: slots.firstIndex(of: 0) ?? -1)
        var position = spans.start(i)
        spans.read(at: &position, into: &picker)
        return picker.value
    }
}

extension Rows {
    /// The rows as bytes to read column by column; nil when they are values (decoded or edited).
    package var storedView: StoredRowsView? {
        guard case .stored(let spans, _) = storage else { return nil }
        return StoredRowsView(spans: spans)
    }
}

/// Keeps the values of some columns of one row (in the order asked), walking over the others.
struct ColumnPicker: RowVisitor {
    /// For each field, where its value goes in `picked` (-1: not asked for).
    private let slot: [Int]
    /// The values picked.
    private(set) var picked: [Value?]
    private var column = 0

    /// `slots` made by `slots(_:fieldCount:)`; `count` places.
    init(slots: [Int], count: Int) {
        slot = slots
        picked = Array(repeating: nil, count: count)
    }

    /// For each of `fieldCount` fields, its place among `columns` (a column asked for twice gets
    /// its value in its first place; the others stay nil).
    static func slots(_ columns: [Int], fieldCount: Int) -> [Int] {
        var slot = Array(repeating: -1, count: fieldCount)
        for (place, column) in columns.enumerated().reversed() where column < fieldCount { slot[column] = place }
        return slot
    }

    private mutating func keep(_ value: Value?, in place: Int) { picked[place] = value }

    private func place(_ column: Int) -> Int? { column < slot.count && slot[column] >= 0 ? slot[column] : nil }

    func beginRow(at position: Int, fieldCount: Int) -> Int { 0 }
    mutating func null(_ row: inout Int) { column += 1 }
    mutating func bytes(_ storage: ValueStorage, _ source: ByteSource, start: Int, count: Int, base: UnsafePointer<UInt8>,
                        _ row: inout Int) {
        if let place = place(column) { keep(Value(storage, source.byteString(start ..< start &+ count)), in: place) }
        column += 1
    }
    mutating func scalar(_ value: Value, _ row: inout Int) {
        if let place = place(column) { keep(value, in: place) }
        column += 1
    }
    mutating func decimal(low: UInt32, mid: UInt32, high: UInt32, flags: UInt32, _ row: inout Int) {
        if let place = place(column) { keep(.decimal(Decimal96(low: low, mid: mid, high: high, flags: flags)), in: place) }
        column += 1
    }
    func endRow(_ row: consuming Int) {}
    mutating func checkedRow(_ values: [Value?], at position: Int) {
        for (column, place) in slot.enumerated() where place >= 0 && column < values.count { keep(values[column], in: place) }
    }
}

/// Keeps the value of one column of one row, walking over the others (no array made).
struct OneColumnPicker: RowVisitor {
    let column: Int
    private(set) var value: Value?
    private var at = 0

    init(column: Int) { self.column = column }

    func beginRow(at position: Int, fieldCount: Int) -> Int { 0 }
    mutating func null(_ row: inout Int) { at += 1 }
    mutating func bytes(_ storage: ValueStorage, _ source: ByteSource, start: Int, count: Int, base: UnsafePointer<UInt8>,
                        _ row: inout Int) {
        if at == column { value = Value(storage, source.byteString(start ..< start &+ count)) }
        at += 1
    }
    mutating func scalar(_ value: Value, _ row: inout Int) {
        if at == column { self.value = value }
        at += 1
    }
    mutating func decimal(low: UInt32, mid: UInt32, high: UInt32, flags: UInt32, _ row: inout Int) {
        if at == column { value = .decimal(Decimal96(low: low, mid: mid, high: high, flags: flags)) }
        at += 1
    }
    func endRow(_ row: consuming Int) {}
    mutating func checkedRow(_ values: [Value?], at position: Int) {
        if column >= 0 && column < values.count { value = values[column] }
    }
}
