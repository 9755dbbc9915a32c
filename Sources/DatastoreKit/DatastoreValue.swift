// Field values of the Dropbox Datastore data model.
//
// A field holds one atom (string, boolean, 64-bit integer, double, date, bytes) or a list of
// atoms. Lists never nest, which the types enforce: a list holds `DatastoreAtom`s, not values.
// `null` is not a value (a field is removed instead).

/// One non-list datastore value.
///
/// Equality is exact: doubles compare by bit pattern (so `-0.0 != 0.0`, each with its own
/// wire text), except that every NaN equals every other NaN (the wire has one NaN, `{"N":"nan"}`).
public enum DatastoreAtom: Sendable {
    /// Text.
    case string(String)
    /// A boolean.
    case bool(Bool)
    /// Signed 64-bit integer, `{"I":"…"}` on the wire.
    case int(Int64)
    /// IEEE double: a plain JSON number, or `{"N":…}` for NaN and the infinities.
    case double(Double)
    /// Milliseconds since 1970-01-01T00:00:00Z (negative before), `{"T":"…"}` on the wire.
    case date(Int64)
    /// Raw bytes, `{"B":"…"}` (URL-safe base64 without padding) on the wire.
    case bytes([UInt8])

    /// The type's name as used in messages: string, boolean, integer, double, date, bytes.
    public var typeName: String {
        switch self {
        case .string: "string"
        case .bool: "boolean"
        case .int: "integer"
        case .double: "double"
        case .date: "date"
        case .bytes: "bytes"
        }
    }
}

extension DatastoreAtom: Hashable {
    /// Exact equality: doubles by bit pattern, every NaN equal to every NaN.
    public static func == (lhs: DatastoreAtom, rhs: DatastoreAtom) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.double(let a), .double(let b)): (a.isNaN && b.isNaN) || a.bitPattern == b.bitPattern
        case (.date(let a), .date(let b)): a == b
        case (.bytes(let a), .bytes(let b)): a == b
        default: false
        }
    }

    /// Hashes the value as `==` compares it.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .string(let v): hasher.combine(0); hasher.combine(v)
        case .bool(let v): hasher.combine(1); hasher.combine(v)
        case .int(let v): hasher.combine(2); hasher.combine(v)
        case .double(let v): hasher.combine(3); hasher.combine(v.isNaN ? Double.nan.bitPattern : v.bitPattern)
        case .date(let v): hasher.combine(4); hasher.combine(v)
        case .bytes(let v): hasher.combine(5); hasher.combine(v)
        }
    }
}

/// A field value: one atom, or a list of atoms (possibly of mixed types, possibly empty).
public enum DatastoreValue: Hashable, Sendable {
    /// A single value.
    case atom(DatastoreAtom)
    /// A list of values.
    case list([DatastoreAtom])

    /// A text value.
    public static func string(_ v: String) -> DatastoreValue { .atom(.string(v)) }
    /// A boolean value.
    public static func bool(_ v: Bool) -> DatastoreValue { .atom(.bool(v)) }
    /// An integer value.
    public static func int(_ v: Int64) -> DatastoreValue { .atom(.int(v)) }
    /// A double value.
    public static func double(_ v: Double) -> DatastoreValue { .atom(.double(v)) }
    /// A date, in milliseconds since 1970-01-01T00:00:00Z.
    public static func date(_ milliseconds: Int64) -> DatastoreValue { .atom(.date(milliseconds)) }
    /// A bytes value.
    public static func bytes(_ v: [UInt8]) -> DatastoreValue { .atom(.bytes(v)) }

    /// The atom, or nil for a list.
    public var atom: DatastoreAtom? {
        if case .atom(let atom) = self { return atom }
        return nil
    }

    /// The list's elements, or nil for an atom.
    public var list: [DatastoreAtom]? {
        if case .list(let list) = self { return list }
        return nil
    }

    /// The atom's type name, or `list`.
    public var typeName: String {
        switch self {
        case .atom(let atom): atom.typeName
        case .list: "list"
        }
    }
}

// MARK: - Literals (handy in tests and small hand-built records)

extension DatastoreAtom: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral
{
    /// A text atom.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A boolean atom.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer literal is an `.int`; write `1.0` for a double.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// A double atom.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension DatastoreValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByArrayLiteral
{
    /// A text value.
    public init(stringLiteral value: String) { self = .atom(.string(value)) }
    /// A boolean value.
    public init(booleanLiteral value: Bool) { self = .atom(.bool(value)) }
    /// An integer literal is an `.int`; write `1.0` for a double.
    public init(integerLiteral value: Int64) { self = .atom(.int(value)) }
    /// A double value.
    public init(floatLiteral value: Double) { self = .atom(.double(value)) }
    /// A list value.
    public init(arrayLiteral elements: DatastoreAtom...) { self = .list(elements) }
}
