/// A push-style check of JSON's structure for bytes that arrive in pieces: containers, keys and
/// colons, commas, strings (no raw control characters), the literals `true`, `false`, `null`,
/// number characters, and nothing but whitespace after the document. It is deliberately looser
/// than `JSONParser` (which still parses everything kept): escapes, UTF-8 and the number grammar
/// are left to it. It holds one byte per open container, up to `maximumDepth` (deeper than any
/// reader allows).
public struct JSONShapeCheck: Sendable {
    /// The deepest nesting accepted.
    public static let maximumDepth = 4096

    private enum State: Sendable {
        case value, valueOrClose, key, keyOrClose, colon, commaOrClose, end
        /// In a literal: its remaining bytes, the next one lowest (at most three).
        case string(isKey: Bool), escape(isKey: Bool), number, literal(remaining: UInt32)
    }

    private var state = State.value
    /// The open containers, innermost last: true for an object.
    private var containers: [Bool] = []

    /// A check at the start of a document.
    public init() {}

    /// Scans the next bytes; returns the index (in `bytes`) of the first one that cannot continue
    /// the document, or nil when all can. After a refusal, further calls refuse at once.
    public mutating func scan(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var index = 0
        while index < bytes.count {
            // Runs of spaces between tokens and of plain text inside strings, eight bytes at a
            // time: a padded or long-texted document (or a bomb of either) is not checked byte by byte.
            switch state {
            case .string:
                while index + 8 <= bytes.count, Self.isPlainText(bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)) { index += 8 }
                while index < bytes.count, bytes[index] >= 0x20, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") {
                    index += 1
                }
            case .number:
                while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
            case .value, .valueOrClose, .key, .keyOrClose, .colon, .commaOrClose, .end:
                while index + 8 <= bytes.count, bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) == Self.spaces { index += 8 }
            default:
                break
            }
            guard index < bytes.count else { break }
            if !accept(bytes[index]) { return index }
            index += 1
        }
        return nil
    }

    private static let spaces: UInt64 = 0x2020_2020_2020_2020
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// True when none of the eight bytes ends or escapes a string or is a control character:
    /// no byte below 0x20, no '"' (0x22), no '\\' (0x5C) (the usual "has a zero byte" test).
    private static func isPlainText(_ word: UInt64) -> Bool {
        func hasZeroByte(_ v: UInt64) -> Bool { (v &- ones) & ~v & highs != 0 }
        let below0x20 = (word &- ones &* 0x20) & ~word & highs != 0
        return !below0x20 && !hasZeroByte(word ^ (ones &* 0x22)) && !hasZeroByte(word ^ (ones &* 0x5C))
    }

    private mutating func accept(_ byte: UInt8) -> Bool {
        let isSpace = byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
        switch state {
        case .string(let isKey):
            if byte == UInt8(ascii: "\"") { state = isKey ? .colon : afterValue() }
            else if byte == UInt8(ascii: "\\") { state = .escape(isKey: isKey) }
            else if byte < 0x20 { return false }
            return true
        case .escape(let isKey):
            state = .string(isKey: isKey)
            return byte >= 0x20
        case .number:
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
                 UInt8(ascii: "e"), UInt8(ascii: "E"):
                return true
            default:
                break
            }
            state = afterValue()
            return accept(byte)
        case .literal(let remaining):
            guard UInt8(truncatingIfNeeded: remaining) == byte else { return false }
            state = remaining >> 8 == 0 ? afterValue() : .literal(remaining: remaining >> 8)
            return true
        default:
            if isSpace { return true }
        }
        switch (state, byte) {
        case (.value, _), (.valueOrClose, _):
            if case .valueOrClose = state, byte == UInt8(ascii: "]") { return close(object: false) }
            return startValue(byte)
        case (.keyOrClose, UInt8(ascii: "}")):
            return close(object: true)
        case (.keyOrClose, UInt8(ascii: "\"")), (.key, UInt8(ascii: "\"")):
            state = .string(isKey: true)
        case (.colon, UInt8(ascii: ":")):
            state = .value
        case (.commaOrClose, UInt8(ascii: ",")):
            state = containers.last == true ? .key : .value
        case (.commaOrClose, UInt8(ascii: "}")), (.commaOrClose, UInt8(ascii: "]")):
            return close(object: byte == UInt8(ascii: "}"))
        default:
            return false
        }
        return true
    }

    private mutating func startValue(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard containers.count < Self.maximumDepth else { return false }
            containers.append(byte == UInt8(ascii: "{"))
            state = byte == UInt8(ascii: "{") ? .keyOrClose : .valueOrClose
        case UInt8(ascii: "\""): state = .string(isKey: false)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): state = .number
        case UInt8(ascii: "t"): state = .literal(remaining: Self.packed("rue"))
        case UInt8(ascii: "f"): state = .literal(remaining: Self.packed("alse"))
        case UInt8(ascii: "n"): state = .literal(remaining: Self.packed("ull"))
        default: return false
        }
        return true
    }

    private mutating func close(object: Bool) -> Bool {
        guard containers.last == object else { return false }
        containers.removeLast()
        state = afterValue()
        return true
    }

    /// The bytes of `text` (at most four), the first lowest.
    private static func packed(_ text: StaticString) -> UInt32 {
        var value: UInt32 = 0
        for index in (0..<text.utf8CodeUnitCount).reversed() { value = value << 8 | UInt32(text.utf8Start[index]) }
        return value
    }

    private func afterValue() -> State { containers.isEmpty ? .end : .commaOrClose }
}
