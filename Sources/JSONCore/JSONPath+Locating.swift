// Between JSON paths and byte offsets, for error messages: a reader that knows where a problem
// is as a path (`$.elements[2].name: expected a string`) gets its byte offset, and one that knows
// it as an offset (a syntax error, a duplicate key) gets its path. Both walk the document's bytes
// once, without building values, and only when an error is reported.

extension JSONPath {
    /// The path written at the start of `text` the way `description` writes one (`$`, `.key`,
    /// `[3]`, `["key"]`), and the text after it; nil when `text` does not start with `$`.
    public static func prefix(of text: Substring) -> (path: JSONPath, rest: Substring)? {
        guard text.first == "$" else { return nil }
        var path = JSONPath()
        var rest = text.dropFirst()
        while let first = rest.first {
            if first == "." {
                let name = rest.dropFirst().prefix(while: isKeyCharacter)
                guard !name.isEmpty else { break }
                path.components.append(.key(String(name)))
                rest = rest[name.endIndex...]
            } else if first == "[", let close = rest.firstIndex(of: "]"), let index = Int(rest[rest.index(after: rest.startIndex)..<close]) {
                path.components.append(.index(index))
                rest = rest[rest.index(after: close)...]
            } else if rest.hasPrefix("[\""), let (key, after) = quotedKey(rest.dropFirst()), after.first == "]" {
                path.components.append(.key(key))
                rest = after.dropFirst()
            } else {
                break
            }
        }
        return (path, rest)
    }

    private static func isKeyCharacter(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber || c == "_")
    }

    /// A JSON string literal at the start of `text` (as `quoted` writes it), and the text after it.
    private static func quotedKey(_ text: Substring) -> (String, Substring)? {
        var bytes = Array(text.utf8.prefix(4096))
        bytes.append(0)  // a terminator, so that an unterminated literal is an error, not an end
        return bytes.withUnsafeBufferPointer { buffer -> (String, Substring)? in
            guard let (value, end) = try? JSONParser.parseValue(buffer, at: 0, depth: 0),
                  case .string(let key) = value else { return nil }
            return (key, Substring(text.utf8.dropFirst(end)))
        }
    }

    /// The offset in `document` where the value at this path starts; for a path that goes
    /// further than the document, where the deepest value it reaches starts.
    public func offset(in document: UnsafeBufferPointer<UInt8>) -> Int {
        var scanner = JSONScanner(document)
        scanner.skipWhitespace()
        var found = scanner.i
        for component in components {
            guard scanner.enterContainer(holding: component) else { return found }
            found = scanner.i
        }
        return found
    }

    /// The path of the innermost value or member around byte `offset` of `document` (a member's
    /// path when the offset is on its key); `$` when the offset is outside every container.
    public static func containing(offset: Int, in document: UnsafeBufferPointer<UInt8>) -> JSONPath {
        var scanner = JSONScanner(document)
        scanner.skipWhitespace()
        var path = JSONPath()
        // At the start of a value that holds `offset`: step into the member or item that holds it.
        while path.components.count < 4096, let step = scanner.stepInto(offset: offset) {
            path.components.append(step.component)
            if !step.descend { break }
        }
        return path
    }
}

/// A forward walk over JSON bytes that skips values without building them. It trusts nothing:
/// on bytes that are not JSON it stops (returns false or nil) instead of reading past them.
struct JSONScanner {
    let buf: UnsafeBufferPointer<UInt8>
    var i = 0

    init(_ buf: UnsafeBufferPointer<UInt8>) { self.buf = buf }

    private func at(_ byte: UInt8) -> Bool { i < buf.count && buf[i] == byte }

    mutating func skipWhitespace() {
        while i < buf.count, buf[i] == 0x20 || buf[i] == 0x0A || buf[i] == 0x0D || buf[i] == 0x09 { i += 1 }
    }

    /// Past the string literal at `i` (on its opening quote).
    mutating func skipString() -> Bool {
        i += 1
        while i < buf.count {
            switch buf[i] {
            case UInt8(ascii: "\\"): i += 2
            case UInt8(ascii: "\""): i += 1; return true
            default: i += 1
            }
        }
        return false
    }

    /// Past the value at `i`.
    mutating func skipValue() -> Bool {
        guard i < buf.count else { return false }
        switch buf[i] {
        case UInt8(ascii: "\""):
            return skipString()
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while i < buf.count {
                switch buf[i] {
                case UInt8(ascii: "\""):
                    guard skipString() else { return false }
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { i += 1; return true }
                default: break
                }
                i += 1
            }
            return false
        default:
            let start = i
            while i < buf.count, !Self.endsAtom(buf[i]) { i += 1 }
            return i > start
        }
    }

    private static func endsAtom(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x20, 0x0A, 0x0D, 0x09, UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: ":"): true
        default: false
        }
    }

    /// The object key at `i` (on its opening quote), decoded; `i` past it.
    mutating func readKey() -> String? {
        let start = i
        guard at(UInt8(ascii: "\"")), skipString() else { return nil }
        let raw = UnsafeBufferPointer(rebasing: buf[(start + 1)..<(i - 1)])
        if !raw.contains(UInt8(ascii: "\\")) { return String(decoding: raw, as: UTF8.self) }
        guard case (.string(let key), _)? = try? JSONParser.parseValue(buf, at: start, depth: 0) else { return nil }
        return key
    }

    /// From the container at `i`, to the start of its member or item `component`.
    mutating func enterContainer(holding component: JSONPath.Component) -> Bool {
        var index = 0
        return forEachItem { key, _, _ in
            switch component {
            case .key(let wanted): return key == wanted
            case .index(let wanted): defer { index += 1 }; return key == nil && index == wanted
            }
        }
    }

    /// From the value at `i`: the member or item whose key or value holds `offset`, with `i` at
    /// the start of its value; `descend` is false when the offset is on the key, or the value is
    /// not a container.
    mutating func stepInto(offset: Int) -> (component: JSONPath.Component, descend: Bool)? {
        var result: (JSONPath.Component, Bool)?
        var index = 0
        let buf = self.buf
        _ = forEachItem { key, keyStart, valueStart in
            defer { index += 1 }
            guard offset >= keyStart else { return false }
            var probe = JSONScanner(buf)
            probe.i = valueStart
            if probe.skipValue(), offset >= probe.i { return false }
            let component: JSONPath.Component = key.map { .key($0) } ?? .index(index)
            let isContainer = valueStart < buf.count && (buf[valueStart] == UInt8(ascii: "{") || buf[valueStart] == UInt8(ascii: "["))
            result = (component, offset >= valueStart && isContainer)
            return true
        }
        return result
    }

    /// Calls `visit(key, start, valueStart)` for each member (its key, where it starts, where its
    /// value starts) or item (nil, where it starts, twice) of the container at `i`, until `visit`
    /// returns true (then true, with `i` at the start of that value). False at the end or on
    /// bytes that are not JSON.
    private mutating func forEachItem(_ visit: (String?, Int, Int) -> Bool) -> Bool {
        guard i < buf.count, buf[i] == UInt8(ascii: "{") || buf[i] == UInt8(ascii: "[") else { return false }
        let isObject = buf[i] == UInt8(ascii: "{")
        i += 1
        while true {
            skipWhitespace()
            guard i < buf.count, buf[i] != UInt8(ascii: "}"), buf[i] != UInt8(ascii: "]") else { return false }
            let start = i
            var key: String?
            if isObject {
                guard let name = readKey() else { return false }
                key = name
                skipWhitespace()
                guard at(UInt8(ascii: ":")) else { return false }
                i += 1
                skipWhitespace()
            }
            if visit(key, start, i) { return true }
            guard skipValue() else { return false }
            skipWhitespace()
            guard at(UInt8(ascii: ",")) else { return false }
            i += 1
        }
    }
}
