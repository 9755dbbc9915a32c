// A location inside a JSON document, written like `$.rows[3].data.price`.
//
// Keys that are plain identifiers (`[A-Za-z_][A-Za-z0-9_]*`) are written with a dot;
// every other key in brackets as a JSON string (`$.rows[0].data["first-name"]`), so a
// field name such as `a.b` cannot be mistaken for two levels.

/// A path from the root (`$`) of a JSON document to one of its values.
public struct JSONPath: Hashable, Sendable, CustomStringConvertible {
    /// One step: an object key or an array index.
    public enum Component: Hashable, Sendable {
        /// An object member.
        case key(String)
        /// An array element (0-based).
        case index(Int)
    }

    /// The steps from the root.
    public var components: [Component]

    /// The path of `components` (the root when empty).
    public init(_ components: [Component] = []) { self.components = components }

    /// `$`, the document itself.
    public static let root = JSONPath()

    /// True for `$`, the document itself.
    public var isRoot: Bool { components.isEmpty }

    /// The path one step further.
    public func appending(_ component: Component) -> JSONPath {
        JSONPath(components + [component])
    }

    /// The path to member `key` of the value here.
    public func appending(key: String) -> JSONPath { appending(.key(key)) }
    /// The path to element `index` of the value here.
    public func appending(index: Int) -> JSONPath { appending(.index(index)) }

    /// `prefix` followed by this path (this path taken as relative to `prefix`).
    public func prefixed(by prefix: JSONPath) -> JSONPath {
        JSONPath(prefix.components + components)
    }

    /// The path as text: `$.rows[3].data`, keys that are no plain names quoted.
    public var description: String {
        var text = "$"
        for component in components {
            switch component {
            case .index(let index):
                text += "[\(index)]"
            case .key(let key):
                if JSONPath.isPlainKey(key) {
                    text += "." + key
                } else {
                    text += "[" + JSONPath.quoted(key) + "]"
                }
            }
        }
        return text
    }

    /// True when `key` can be written after a dot without quotes.
    public static func isPlainKey(_ key: String) -> Bool {
        guard let first = key.utf8.first else { return false }
        func letter(_ b: UInt8) -> Bool {
            (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
                || b == UInt8(ascii: "_")
        }
        guard letter(first) else { return false }
        return key.utf8.allSatisfy { letter($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) }
    }

    /// `key` as a JSON string literal.
    public static func quoted(_ key: String) -> String {
        var out = "\""
        for scalar in key.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
