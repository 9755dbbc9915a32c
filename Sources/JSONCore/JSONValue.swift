// The in-memory JSON tree used by the briefcase JSON document layer.
//
// Numbers are kept as their exact source text (`.number("18446744073709551615")`),
// so nothing is ever rounded through `Double` unless a caller asks for it.
// Objects keep their members in document order, including duplicate keys.

/// A parsed (or hand-built) JSON value.
///
/// `Equatable`/`Hashable` are structural and exact: numbers compare by their text
/// (`.number("1.0") != .number("1")`), objects compare member by member *in order*.
///
/// Not `indirect`: recursion goes through `Array` storage, which is already a
/// reference, so boxing every value would only cost an extra allocation per node.
public enum JSONValue: Hashable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// The number's exact source text, e.g. `"-0.0"`, `"18446744073709551615"`, `"1e300"`.
    /// When building values by hand the text must match the RFC 8259 number grammar;
    /// the serializer writes it verbatim.
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object.
    case object(JSONObject)
}

/// A JSON object: members in document order (duplicates preserved), with lookup by key.
///
/// Key lookup is a linear scan returning the *first* member with that key; for many
/// lookups on a large object build a dictionary once with `dictionary()`.
public struct JSONObject: Hashable, Sendable {
    /// The members in document order.
    public var members: [(key: String, value: JSONValue)]

    /// An empty object.
    public init() { members = [] }

    /// An object of these members, in order.
    public init(_ members: [(key: String, value: JSONValue)]) { self.members = members }

    /// The number of members.
    public var count: Int { members.count }
    /// True when there are no members.
    public var isEmpty: Bool { members.isEmpty }
    /// The keys in order.
    public var keys: [String] { members.map(\.key) }

    /// The value of the first member named `key`.
    /// Setting replaces the first such member's value (or appends a new member);
    /// setting `nil` removes every member with that key.
    public subscript(key: String) -> JSONValue? {
        get {
            for member in members where member.key == key { return member.value }
            return nil
        }
        set {
            if let newValue {
                if let index = members.firstIndex(where: { $0.key == key }) {
                    members[index].value = newValue
                } else {
                    members.append((key: key, value: newValue))
                }
            } else {
                members.removeAll { $0.key == key }
            }
        }
    }

    /// Appends a member without checking for an existing one with the same key.
    public mutating func append(key: String, value: JSONValue) {
        members.append((key: key, value: value))
    }

    /// The first key that occurs more than once, if any. `JSONParser` refuses such objects; one
    /// built in code can still have them.
    public var firstDuplicateKey: String? {
        var seen = Set<String>()
        seen.reserveCapacity(members.count)
        for member in members where !seen.insert(member.key).inserted { return member.key }
        return nil
    }

    /// The members as a dictionary; for duplicate keys the first occurrence wins
    /// (consistent with the subscript).
    public func dictionary() -> [String: JSONValue] {
        var result = [String: JSONValue](minimumCapacity: members.count)
        for member in members where result[member.key] == nil { result[member.key] = member.value }
        return result
    }

    /// Objects are equal when their members are, in the same order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for (l, r) in zip(lhs.members, rhs.members) where l.key != r.key || l.value != r.value {
            return false
        }
        return true
    }

    /// Hashes the members in order.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(members.count)
        for member in members {
            hasher.combine(member.key)
            hasher.combine(member.value)
        }
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// An object of the members listed, in order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        members = elements.map { (key: $0.0, value: $0.1) }
    }
}

// MARK: - Literals (convenient for building small documents and in tests)

extension JSONValue: ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral, ExpressibleByStringLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// `true` or `false`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// A number of an integer literal.
    public init(integerLiteral value: Int64) { self = .number(String(value)) }
    /// A string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// An object of the members listed, in order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { (key: $0.0, value: $0.1) }))
    }
}

// MARK: - Number constructors

extension JSONValue {
    /// `.number` holding the decimal text of `value` (exact).
    public static func integer<T: BinaryInteger>(_ value: T) -> JSONValue {
        .number(String(value))
    }

    /// `.number` holding Swift's shortest round-trip text of `value` (same text as
    /// `JSONWriter.writeDouble`). Precondition: `value.isFinite` (JSON has no NaN/Infinity).
    public static func double(_ value: Double) -> JSONValue {
        precondition(value.isFinite, "JSON cannot represent non-finite number \(value)")
        return .number(value.description)
    }

    /// `.number` holding Swift's shortest round-trip text of `value` as a `Float`
    /// (read it back with `floatValue`). Precondition: `value.isFinite`.
    public static func float(_ value: Float) -> JSONValue {
        precondition(value.isFinite, "JSON cannot represent non-finite number \(value)")
        return .number(value.description)
    }
}

// MARK: - Accessors

extension JSONValue {
    /// True for `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The boolean, or nil for another value.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The string, or nil for another value.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The elements, or nil for another value.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The object, or nil for another value.
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The exact source text of a number, or nil for other kinds.
    public var numberText: String? {
        if case .number(let text) = self { return text }
        return nil
    }

    /// Member lookup when this is an object (first member with that key), else nil.
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// Element when this is an array and `index` is in range, else nil.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let array) = self, array.indices.contains(index) { return array[index] }
        return nil
    }

    /// The number as `Int64`, only if its text is an integer (no fraction, no exponent)
    /// within range. Exact: no `Double` involved. `-0` gives 0.
    public var int64Value: Int64? {
        guard case .number(let text) = self,
              let (negative, magnitude) = JSONValue.parseIntegerText(text) else { return nil }
        if negative {
            if magnitude <= UInt64(Int64.max) { return -Int64(magnitude) }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : nil
        }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    /// The number as `UInt64`, only if its text is a non-negative integer (no fraction,
    /// no exponent) within range. `-0` gives 0.
    public var uint64Value: UInt64? {
        guard case .number(let text) = self,
              let (negative, magnitude) = JSONValue.parseIntegerText(text) else { return nil }
        if negative { return magnitude == 0 ? 0 : nil }
        return magnitude
    }

    /// The number as `Int32`, same rules as `int64Value`.
    public var int32Value: Int32? {
        guard let value = int64Value else { return nil }
        return Int32(exactly: value)
    }

    /// `Double(text)` for a number (correctly rounded; magnitudes beyond the `Double`
    /// range give ±infinity or ±0, as `Double(_: String)` does). Nil for other kinds.
    public var doubleValue: Double? {
        guard case .number(let text) = self else { return nil }
        return Double(text)
    }

    /// `Float(text)` for a number, parsed directly from the text (so it is the Float
    /// nearest to the decimal value, not a double-rounded one). Nil for other kinds.
    public var floatValue: Float? {
        guard case .number(let text) = self else { return nil }
        return Float(text)
    }

    /// Parses `-?(0|[1-9][0-9]*)` into sign and magnitude; nil on any other text or overflow.
    static func parseIntegerText(_ text: String) -> (negative: Bool, magnitude: UInt64)? {
        var utf8 = text.utf8[...]
        var negative = false
        if utf8.first == UInt8(ascii: "-") {
            negative = true
            utf8 = utf8.dropFirst()
        }
        guard let first = utf8.first, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else { return nil }
        if first == UInt8(ascii: "0") && utf8.count > 1 { return nil }
        var magnitude: UInt64 = 0
        for byte in utf8 {
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit))
            if overflow1 || overflow2 { return nil }
            magnitude = sum
        }
        return (negative, magnitude)
    }
}

extension JSONValue: CustomStringConvertible {
    /// Compact JSON text of the value.
    public var description: String { String(decoding: serialized(), as: UTF8.self) }
}

extension JSONValue {
    /// What an error message says was found where something else was expected: `null`,
    /// `true`, `a number (45000.5)`, `a string ("abc")`, `an array of 3 items`, `an object`.
    public var foundDescription: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let text): return "a number (\(text.count > 40 ? text.prefix(40) + "…" : text))"
        case .string(let text):
            let shown = text.count > 40 ? JSONValue.string(String(text.prefix(40))).description + "…" : JSONValue.string(text).description
            return "a string (\(shown))"
        case .array(let items): return items.count == 1 ? "an array of 1 item" : "an array of \(items.count) items"
        case .object: return "an object"
        }
    }
}
