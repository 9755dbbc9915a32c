
// Strict RFC 8259 parser: UTF-8 bytes -> JSONValue.
//
// - Exactly one value, optionally surrounded by JSON whitespace (space, tab, LF, CR).
//   No byte-order mark, no comments, no trailing commas, no NaN/Infinity, no leading zeros.
// - Strings must be valid UTF-8 and contain no raw control characters (< 0x20); escapes
//   are the RFC set only; `\uD800`-style unpaired surrogate escapes are rejected (a Swift
//   String cannot hold them). `\u0000` is accepted.
// - Numbers are validated against the RFC grammar and kept as their exact source text.
// - A key that occurs twice in one object is an error (RFC 8259 leaves it to the reader; a
//   document that says two things at once is refused rather than read by guessing which counts).
// - The parser is iterative (explicit container stack), so nesting costs heap, not
//   machine stack; `maxDepth` bounds it anyway. Keep `maxDepth` modest: destroying,
//   comparing or serializing a JSONValue is recursive in its depth.
//
// Error offsets are byte offsets into the input:
//   unexpected end of input       -> input count
//   unexpected / invalid byte     -> that byte (control character, bad UTF-8 sequence start,
//                                    stray character, first trailing character)
//   bad escape / unpaired surrogate -> the backslash that starts the escape
//   leading zero                  -> the leading "0"
//   invalid literal (`nul`, `True`) -> first byte of the literal
//   nesting too deep              -> the "[" or "{" that exceeds maxDepth
//   duplicate key                 -> the opening quote of its second occurrence

/// A parse failure: what went wrong and the byte offset where it was detected.
public struct JSONParseError: Error, CustomStringConvertible, Sendable, Hashable {
    /// What is wrong.
    public let message: String
    /// Byte offset in the text.
    public let offset: Int

    /// An error of `message` at byte `offset`.
    public init(message: String, offset: Int) {
        self.message = message
        self.offset = offset
    }

    /// `"offset N: message"`.
    public var description: String { "offset \(offset): \(message)" }

    /// A key given twice in one object, at its second occurrence (readers that go through an
    /// object themselves refuse it with the same words).
    public static func duplicateKey(_ key: String, at offset: Int) -> JSONParseError {
        JSONParseError(message: "duplicate key \(JSONPath.quoted(key)) in an object", offset: offset)
    }
}

/// Strict RFC 8259 parsing into `JSONValue`s, with byte offsets in errors.
public enum JSONParser {
    /// Parses one JSON document from UTF-8 bytes.
    /// - Parameters:
    ///   - bytes: the document's UTF-8 bytes.
    ///   - maxDepth: maximum container nesting (`[]` has depth 1); deeper input is an error.
    public static func parse(_ bytes: [UInt8], maxDepth: Int = 256) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> JSONValue in
            var parser = Parser(buffer, maxDepth: maxDepth)
            return try parser.parseDocument()
        }
    }

    /// Parses one JSON document from raw bytes (e.g. a memory-mapped file) without copying them.
    public static func parse(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = 256) throws(JSONParseError) -> JSONValue {
        var parser = Parser(bytes.assumingMemoryBound(to: UInt8.self), maxDepth: maxDepth)
        return try parser.parseDocument()
    }

    /// Parses the one JSON value that starts at `offset` (after optional whitespace) inside a larger
    /// document, and returns it with the offset just past it. The streaming document reader uses
    /// it for the small parts (keys, schemas, changes) and to re-read a row it could not take the
    /// fast way, so those get exactly this parser's checks and messages. `depth` is how many
    /// containers are already open around `offset`, so nesting is bounded as for the whole document.
    public static func parseValue(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, depth: Int,
                                  maxDepth: Int = 256) throws(JSONParseError) -> (value: JSONValue, end: Int) {
        var parser = Parser(bytes, maxDepth: max(0, maxDepth - depth))
        parser.cursor.i = offset
        parser.stopAfterValue = true
        let value = try parser.parseDocument()
        return (value, parser.cursor.i)
    }

    /// Parses one JSON document from a string's UTF-8.
    public static func parse(_ text: String, maxDepth: Int = 256) throws(JSONParseError) -> JSONValue {
        var text = text
        let result = text.withUTF8 { buffer -> Result<JSONValue, JSONParseError> in
            var parser = Parser(buffer, maxDepth: maxDepth)
            do throws(JSONParseError) { return .success(try parser.parseDocument()) } catch { return .failure(error) }
        }
        return try result.get()
    }
}

// MARK: - Implementation

private let quote = UInt8(ascii: "\"")
private let backslash = UInt8(ascii: "\\")

private struct Parser {
    let buf: UnsafeBufferPointer<UInt8>
    let end: Int
    let maxDepth: Int
    /// The position, and the grammar's pieces read at it (the one tokenizer, `JSONCursor`).
    var cursor: JSONCursor
    /// Reused output buffer for strings containing escapes.
    var scratch: [UInt8] = []
    /// Return after the first complete value instead of requiring the end of the input.
    var stopAfterValue = false

    init(_ buf: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.buf = buf
        self.end = buf.count
        self.maxDepth = maxDepth
        self.cursor = JSONCursor(buf)
    }

    /// An open container on the explicit stack.
    /// Items of open containers wait on two shared stacks; a container that closes takes its
    /// items from the top of its stack into an array of exactly their number (one allocation
    /// per container, where appending to its own array grew it several times).
    var elementStack: [JSONValue] = []
    var memberStack: [(key: String, value: JSONValue)] = []

    struct Frame {
        var isObject: Bool
        /// Where the container's items start on `elementStack` / `memberStack`.
        var start = 0
        /// Key of the member whose value is being parsed (objects only).
        var key: String = ""
        /// The keys of the members before it, once there are enough that a linear search is slow.
        var keys: Set<String>?
    }

    /// Refuses `key` (starting at `offset`) when the object of `frame` already has it.
    func checkUnique(_ key: String, in frame: inout Frame, at offset: Int) throws(JSONParseError) {
        let previous = memberStack[frame.start...]
        let seen: Bool
        if previous.count < 16 {
            seen = previous.contains { $0.key == key }
        } else {
            if frame.keys == nil {
                frame.keys = Set(previous.map(\.key))
            } else {
                frame.keys!.insert(previous.last!.key)
            }
            seen = frame.keys!.contains(key)
        }
        if seen { throw .duplicateKey(key, at: offset) }
    }

    // MARK: errors

    func fail(_ message: String, at offset: Int) -> JSONParseError {
        JSONParseError(message: message, offset: offset)
    }

    func unexpectedEnd() -> JSONParseError {
        JSONParseError(message: "unexpected end of input", offset: end)
    }

    func unexpectedByte(_ expected: String, at offset: Int) -> JSONParseError {
        let byte = buf[offset]
        let shown: String
        if byte >= 0x20 && byte < 0x7F {
            shown = "'\(Character(Unicode.Scalar(byte)))'"
        } else {
            shown = "byte 0x" + String(byte, radix: 16, uppercase: true)
        }
        return JSONParseError(message: "unexpected \(shown), expected \(expected)", offset: offset)
    }

    // MARK: structure

    @inline(__always)
    mutating func skipWhitespace() { cursor.skipWhitespace() }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        var frames: [Frame] = []
        var value: JSONValue

        nextValue: while true {
            skipWhitespace()
            guard cursor.i < end else { throw unexpectedEnd() }
            switch buf[cursor.i] {
            case UInt8(ascii: "["):
                guard frames.count < maxDepth else { throw fail("nesting deeper than \(maxDepth)", at: cursor.i) }
                cursor.i &+= 1
                skipWhitespace()
                if cursor.i < end && buf[cursor.i] == UInt8(ascii: "]") {
                    cursor.i &+= 1
                    value = .array([])
                } else {
                    frames.append(Frame(isObject: false, start: elementStack.count))
                    continue nextValue
                }
            case UInt8(ascii: "{"):
                guard frames.count < maxDepth else { throw fail("nesting deeper than \(maxDepth)", at: cursor.i) }
                cursor.i &+= 1
                skipWhitespace()
                if cursor.i < end && buf[cursor.i] == UInt8(ascii: "}") {
                    cursor.i &+= 1
                    value = .object(JSONObject())
                } else {
                    let key = try parseKey()
                    frames.append(Frame(isObject: true, start: memberStack.count, key: key))
                    continue nextValue
                }
            case quote:
                cursor.i &+= 1
                value = .string(try parseString())
            case UInt8(ascii: "t"):
                try parseLiteral("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try parseLiteral("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try parseLiteral("null")
                value = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = .number(try parseNumber())
            default:
                throw unexpectedByte("a JSON value", at: cursor.i)
            }

            // A value is complete: attach it to the enclosing containers, closing as many as end here.
            while true {
                if frames.isEmpty && stopAfterValue { return value }
                skipWhitespace()
                if frames.isEmpty {
                    guard cursor.i == end else { throw unexpectedByte("end of input", at: cursor.i) }
                    return value
                }
                guard cursor.i < end else { throw unexpectedEnd() }
                let top = frames.count - 1
                let byte = buf[cursor.i]
                if frames[top].isObject {
                    let key = frames[top].key
                    if byte == UInt8(ascii: ",") {
                        memberStack.append((key: key, value: value))
                        cursor.i &+= 1
                        skipWhitespace()
                        let keyOffset = cursor.i
                        let next = try parseKey()
                        try checkUnique(next, in: &frames[top], at: keyOffset)
                        frames[top].key = next
                        continue nextValue
                    } else if byte == UInt8(ascii: "}") {
                        cursor.i &+= 1
                        memberStack.append((key: key, value: value))
                        let start = frames.removeLast().start
                        value = .object(JSONObject(Array(memberStack[start...])))
                        memberStack.removeSubrange(start...)
                    } else {
                        throw unexpectedByte("',' or '}'", at: cursor.i)
                    }
                } else {
                    if byte == UInt8(ascii: ",") {
                        elementStack.append(value)
                        cursor.i &+= 1
                        continue nextValue
                    } else if byte == UInt8(ascii: "]") {
                        cursor.i &+= 1
                        elementStack.append(value)
                        let start = frames.removeLast().start
                        value = .array(Array(elementStack[start...]))
                        elementStack.removeSubrange(start...)
                    } else {
                        throw unexpectedByte("',' or ']'", at: cursor.i)
                    }
                }
            }
        }
    }

    /// Parses `"key"` `:` (whitespace before the key already skipped).
    mutating func parseKey() throws(JSONParseError) -> String {
        guard cursor.i < end else { throw unexpectedEnd() }
        guard buf[cursor.i] == quote else { throw unexpectedByte("a string (object key)", at: cursor.i) }
        cursor.i &+= 1
        let key = try parseString()
        skipWhitespace()
        guard cursor.i < end else { throw unexpectedEnd() }
        guard buf[cursor.i] == UInt8(ascii: ":") else { throw unexpectedByte("':'", at: cursor.i) }
        cursor.i &+= 1
        return key
    }

    mutating func parseLiteral(_ literal: StaticString) throws(JSONParseError) {
        guard !cursor.literal(literal) else { return }
        // What is there is not the literal: the input ends inside it, or a byte differs.
        let rest = UnsafeBufferPointer(rebasing: buf[cursor.i...])
        let text = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        if rest.count < text.count && text.starts(with: rest) { throw unexpectedEnd() }
        throw fail("invalid literal", at: cursor.i)
    }

    // MARK: numbers

    mutating func parseNumber() throws(JSONParseError) -> String {
        let start = cursor.i
        switch cursor.scanNumber() {
        case nil: break
        case .end?: throw unexpectedEnd()
        case .leadingZero(let zero)?: throw fail("leading zeros are not allowed", at: zero)
        case .notADigit(let offset)?: throw unexpectedByte("a digit", at: offset)
        }
        return String(decoding: UnsafeBufferPointer(rebasing: buf[start..<cursor.i]), as: UTF8.self)
    }

    // MARK: strings

    /// Parses string content; the position is just past the opening quote. Leaves the position past the closing quote.
    mutating func parseString() throws(JSONParseError) -> String {
        var runStart = cursor.i
        var hasEscapes = false
        while true {
            if buf.baseAddress != nil { cursor.skipPlainText() }
            guard cursor.i < end else { throw unexpectedEnd() }
            let byte = buf[cursor.i]
            if byte == quote {
                let string: String
                if hasEscapes {
                    scratch.append(contentsOf: UnsafeBufferPointer(rebasing: buf[runStart..<cursor.i]))
                    string = String(decoding: scratch, as: UTF8.self)
                } else {
                    string = String(decoding: UnsafeBufferPointer(rebasing: buf[runStart..<cursor.i]), as: UTF8.self)
                }
                cursor.i &+= 1
                return string
            } else if byte == backslash {
                if !hasEscapes {
                    hasEscapes = true
                    scratch.removeAll(keepingCapacity: true)
                }
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: buf[runStart..<cursor.i]))
                try parseEscape()
                runStart = cursor.i
            } else if byte < 0x20 {
                throw fail("control character 0x" + String(byte, radix: 16, uppercase: true)
                    + " must be escaped in a string", at: cursor.i)
            } else {
                // A byte `skipPlainText` stops at that starts no well-formed UTF-8 sequence.
                if UTF8Validation.sequenceLength(buf.baseAddress!, at: cursor.i, end: end) < 0 { throw unexpectedEnd() }
                throw fail("invalid UTF-8", at: cursor.i)
            }
        }
    }

    /// Decodes the escape at the position (a backslash) into `scratch`; leaves the position after it.
    mutating func parseEscape() throws(JSONParseError) {
        let start = cursor.i
        guard cursor.i &+ 1 < end else { throw unexpectedEnd() }
        let decoded: UInt8
        switch buf[cursor.i &+ 1] {
        case quote: decoded = quote
        case backslash: decoded = backslash
        case UInt8(ascii: "/"): decoded = UInt8(ascii: "/")
        case UInt8(ascii: "b"): decoded = 0x08
        case UInt8(ascii: "f"): decoded = 0x0C
        case UInt8(ascii: "n"): decoded = 0x0A
        case UInt8(ascii: "r"): decoded = 0x0D
        case UInt8(ascii: "t"): decoded = 0x09
        case UInt8(ascii: "u"):
            cursor.i &+= 2
            var scalar = try parseHex4(escapeStart: start)
            if scalar >= 0xDC00 && scalar <= 0xDFFF {
                throw fail("unpaired surrogate escape (low surrogate without high)", at: start)
            }
            if scalar >= 0xD800 && scalar <= 0xDBFF {
                // Must be followed immediately by a \uDC00-\uDFFF escape.
                guard cursor.i < end else { throw unexpectedEnd() }
                guard buf[cursor.i] == backslash else {
                    throw fail("unpaired surrogate escape (high surrogate not followed by low)", at: start)
                }
                guard cursor.i &+ 1 < end else { throw unexpectedEnd() }
                guard buf[cursor.i &+ 1] == UInt8(ascii: "u") else {
                    throw fail("unpaired surrogate escape (high surrogate not followed by low)", at: start)
                }
                let lowStart = cursor.i
                cursor.i &+= 2
                let low = try parseHex4(escapeStart: lowStart)
                guard low >= 0xDC00 && low <= 0xDFFF else {
                    throw fail("unpaired surrogate escape (high surrogate not followed by low)", at: start)
                }
                scalar = 0x10000 &+ ((scalar &- 0xD800) << 10) &+ (low &- 0xDC00)
            }
            appendUTF8(scalar)
            return
        default:
            throw fail("invalid escape sequence", at: start)
        }
        scratch.append(decoded)
        cursor.i &+= 2
    }

    /// Four hex digits at the position; leaves the position after them.
    mutating func parseHex4(escapeStart: Int) throws(JSONParseError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard cursor.i < end else { throw unexpectedEnd() }
            let byte = buf[cursor.i]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte &- UInt8(ascii: "a") &+ 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte &- UInt8(ascii: "A") &+ 10
            default: throw fail("invalid \\u escape (expected 4 hex digits)", at: escapeStart)
            }
            value = value << 4 | UInt32(digit)
            cursor.i &+= 1
        }
        return value
    }

    /// Appends a Unicode scalar value (never a surrogate) as UTF-8.
    mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }
}
