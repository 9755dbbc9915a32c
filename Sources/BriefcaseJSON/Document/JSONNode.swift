import JSONCore
import BriefcaseKit

/// A JSON value with its path (`$.elements[2].rows[5][1]`), for error messages.
struct Node {
    let value: JSONValue
    /// The path is `base` followed by up to two item indices (`-1`: none): documents have
    /// millions of rows and values and (almost always) no errors, so an item's path is only
    /// spelled out when a message needs it.
    private let base: String
    private let first: Int
    private let second: Int

    var path: String {
        var path = base
        if first >= 0 { path += "[\(first)]" }
        if second >= 0 { path += "[\(second)]" }
        return path
    }

    init(_ value: JSONValue, _ path: String) {
        self.value = value
        self.base = path
        self.first = -1
        self.second = -1
    }

    /// Item `index` of the array `parent`.
    init(_ value: JSONValue, parent: Node, index: Int) {
        self.value = value
        if parent.first < 0 {
            (base, first, second) = (parent.base, index, -1)
        } else if parent.second < 0 {
            (base, first, second) = (parent.base, parent.first, index)
        } else {
            (base, first, second) = (parent.path, index, -1)
        }
    }

    func error(_ message: String) -> BriefcaseError {
        BriefcaseError(.invalidData, "\(path): \(message)")
    }

    /// `expected EXPECTED, found WHAT IS THERE`.
    func mismatch(_ expected: String) -> BriefcaseError {
        error("expected \(expected), found \(value.foundDescription)")
    }

    /// The members of an object that is one of several forms (`{"bytes": base64}` beside a
    /// string, say): anything else is a mismatch naming all of them.
    func object(oneOf forms: String) throws(BriefcaseError) -> ObjectNode {
        guard case .object(let object) = value else { throw mismatch(forms) }
        return ObjectNode(object: object, path: path)
    }

    var isNull: Bool { if case .null = value { return true } else { return false } }

    func object() throws(BriefcaseError) -> ObjectNode {
        guard case .object(let object) = value else { throw mismatch("an object") }
        return ObjectNode(object: object, path: path)
    }

    func array() throws(BriefcaseError) -> [Node] {
        guard case .array(let items) = value else { throw mismatch("an array") }
        return items.enumerated().map { Node($0.element, parent: self, index: $0.offset) }
    }

    func array(count: Int) throws(BriefcaseError) -> [Node] {
        let items = try array()
        guard items.count == count else { throw error("expected \(count) items, found \(items.count)") }
        return items
    }

    func string() throws(BriefcaseError) -> String {
        guard case .string(let text) = value else { throw mismatch("a string") }
        return text
    }

    func int<T: FixedWidthInteger>(_ type: T.Type) throws(BriefcaseError) -> T {
        guard case .number(let text) = value else { throw mismatch("an integer") }
        guard let result = T(text, radix: 10), !text.hasPrefix("+") else {
            throw error("expected an integer in \(T.min)…\(T.max), found \(text)")
        }
        return result
    }

    func base64() throws(BriefcaseError) -> [UInt8] {
        let text = try string()
        guard let bytes = Base64.decode(text) else { throw error("not valid base64 (standard alphabet, padded)") }
        return bytes
    }

    private static let floatForms = "a number, \"NaN\", \"Infinity\" or \"-Infinity\""

    /// A `datFloat` value or an `oleDate` (64-bit), a `datSingleFloat` value (32-bit). A number
    /// beyond the type's range (`1e400`, `1e39`) is refused: it would become infinity, which is
    /// written as the string "Infinity", never as a number.
    func floatingPoint<F: DocumentFloat>(_ type: F.Type) throws(BriefcaseError) -> F {
        switch value {
        case .number(let text):
            guard let result = F(text) else { throw error("not a number: \(text)") }
            guard result.isFinite else {
                throw error("\(text) is beyond the range of a \(MemoryLayout<F>.size * 8)-bit float (at most ±\(F.greatestFiniteMagnitude))")
            }
            return result
        case .string(let text):
            guard let result = FloatText.parse(special: text, as: F.self) else { throw mismatch(Self.floatForms) }
            return result
        default: throw mismatch(Self.floatForms)
        }
    }

    func double() throws(BriefcaseError) -> Double { try floatingPoint(Double.self) }

    func float() throws(BriefcaseError) -> Float { try floatingPoint(Float.self) }
}

struct ObjectNode {
    let object: JSONObject
    let path: String

    func member(_ key: String) throws(BriefcaseError) -> Node {
        guard let value = object[key] else {
            throw BriefcaseError(.invalidData, "\(path): missing key \"\(key)\"")
        }
        return Node(value, "\(path).\(key)")
    }

    func optionalMember(_ key: String) -> Node? {
        object[key].map { Node($0, "\(path).\(key)") }
    }
}

extension Int32 {
    func nonNegative(_ node: Node) throws(BriefcaseError) -> Int {
        guard self >= 0 else { throw node.error("must not be negative") }
        return Int(self)
    }
}
