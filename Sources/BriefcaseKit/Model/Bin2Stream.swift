/// What a Bin2 element holds.
public enum Element: Hashable, Sendable {
    /// A dataset element.
    case table(Table)
    /// A delta element.
    case delta(Delta)

    /// The element's name (its table's name).
    public var name: ByteString {
        switch self {
        case .table(let table): return table.name
        case .delta(let delta): return delta.name
        }
    }

    /// The index's element type: 0 = dataset, 1 = delta.
    public var kind: ElementKind {
        switch self {
        case .table: return .table
        case .delta: return .delta
        }
    }
}

/// The kind of an element, as the index stores it.
public enum ElementKind: Int32, Sendable {
    /// A dataset element.
    case table = 0
    /// A delta element.
    case delta = 1

    /// `table` or `delta`, for messages.
    public var label: String { self == .table ? "table" : "delta" }
}

/// A `DABIN200` stream: elements in index order. The writer lays them out contiguously in this
/// order, the index last, which is what every known writer does.
public struct Bin2Stream: Hashable, Sendable {
    /// The elements, in stream order.
    public var elements: [Element]

    /// A stream of `elements`.
    public init(elements: [Element] = []) { self.elements = elements }

    /// The most rows a table without fields may hold (Spec/bin2.md §8.8). Such rows take no
    /// bytes, so the reader cannot bound their count by the bytes left and caps it here rather
    /// than allocate by an untrusted count; the writer refuses more, so that what is written
    /// can be read back.
    public static let maximumRowsWithoutFields = 1 << 16

    /// The dataset elements, in order.
    public var tables: [Table] {
        elements.compactMap { if case .table(let t) = $0 { return t } else { return nil } }
    }
    /// The delta elements, in order.
    public var deltas: [Delta] {
        elements.compactMap { if case .delta(let d) = $0 { return d } else { return nil } }
    }
}

/// A briefcase property: an 8-bit name and value in the writer's code page.
public struct BriefcaseProperty: Hashable, Sendable {
    /// The property's name (8-bit).
    public var name: ByteString
    /// The property's value (8-bit).
    public var value: ByteString
    /// A property of `name` and `value`.
    public init(name: ByteString, value: ByteString) {
        self.name = name
        self.value = value
    }
}

/// A `DABRC600` single-file briefcase: ordered properties, then a Bin2 stream.
public struct BriefcaseFile: Hashable, Sendable {
    /// The properties, in file order.
    public var properties: [BriefcaseProperty]
    /// Bytes between the end of the property block and the data offset (none in every known file).
    public var headerPadding: ByteString
    /// The Bin2 stream: tables and deltas.
    public var stream: Bin2Stream

    /// A single-file briefcase of `properties`, `stream` and `headerPadding`.
    public init(properties: [BriefcaseProperty] = [], stream: Bin2Stream = Bin2Stream(), headerPadding: ByteString = .empty) {
        self.properties = properties
        self.stream = stream
        self.headerPadding = headerPadding
    }
}

/// Compares names the way Data Abstract's element keys do (`t#`/`d#` + lower-cased name):
/// ASCII case-insensitively on the bytes, which also works for names in any code page.
public func namesMatch(_ a: ByteString, _ b: ByteString) -> Bool {
    guard a.count == b.count else { return false }
    return zip(a.bytes, b.bytes).allSatisfy { x, y in asciiLower(x) == asciiLower(y) }
}

@inline(__always) func asciiLower(_ byte: UInt8) -> UInt8 {
    (65...90).contains(byte) ? byte | 0x20 : byte
}

/// The name with ASCII letters lower-cased: `namesMatch(a, b)` exactly when `nameKey(a) ==
/// nameKey(b)`. Keys a dictionary that finds matching names in constant time (comparing every
/// name with every other is quadratic in the number of elements, which a file chooses).
public func nameKey(_ name: ByteString) -> [UInt8] {
    name.bytes.map(asciiLower)
}

extension Bin2Stream {
    /// The first table named `name` (case-insensitive).
    public func table(named name: ByteString) -> Table? {
        for case .table(let t) in elements where namesMatch(t.name, name) { return t }
        return nil
    }
    /// The first delta named `name` (case-insensitive).
    public func delta(named name: ByteString) -> Delta? {
        for case .delta(let d) in elements where namesMatch(d.name, name) { return d }
        return nil
    }
}
