// Pure-Swift base64 (RFC 4648).
//
// `Base64`: standard alphabet (`+`, `/`) with `=` padding.
// `URLSafeBase64`: URL and filename safe alphabet (`-`, `_`), no padding.
//
// Decoding is strict and canonical: only alphabet characters (no whitespace or line
// breaks), correct length, padding only where the standard variant requires it (and
// never in the URL-safe variant), and the unused low bits of the last character must be
// zero ("Zh==" is rejected), so every accepted text is exactly what `encode` produces.

/// A base64 alphabet and its padding rule. The encoders and strict decoders are written once,
/// here, for every variant; a variant only says which alphabet and whether it pads.
public protocol Base64Variant {
    /// The 64 characters, in value order.
    static var alphabet: StaticString { get }
    /// `Base64Codec.makeTable(alphabet)`, made once.
    static var table: [UInt8] { get }
    /// `=` padding to a multiple of 4 characters (required when decoding), or none (refused).
    static var padded: Bool { get }
}

extension Base64Variant {
    /// The base64 text of `bytes`.
    public static func encode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        Base64Codec.encodeToString(bytes, alphabet: alphabet, padded: padded)
    }

    /// Appends the base64 text of `bytes` (ASCII, no quotes) to `output`.
    public static func encode<C: Collection>(_ bytes: C, into output: inout [UInt8]) where C.Element == UInt8 {
        Base64Codec.encode(bytes, into: &output, alphabet: alphabet, padded: padded)
    }

    /// Strict decode; nil for anything `encode` would not have produced.
    public static func decode(_ text: String) -> [UInt8]? {
        Base64Codec.decode(text, table: table, padded: padded)
    }

    /// Strict decode of base64 given as ASCII/UTF-8 bytes.
    public static func decode<C: Collection>(utf8 text: C) -> [UInt8]? where C.Element == UInt8 {
        Base64Codec.decode(utf8: text, table: table, padded: padded)
    }

    /// True for the 64 characters of the alphabet (not `=`).
    public static func isInAlphabet(_ byte: UInt8) -> Bool {
        table[Int(byte)] != 0xFF
    }
}

/// Standard base64 (`+`, `/`) with `=` padding.
public enum Base64: Base64Variant {
    public static var alphabet: StaticString { Base64Codec.standardAlphabet }
    public static var table: [UInt8] { Base64Codec.standardTable }
    public static var padded: Bool { true }
}

/// URL-safe base64 (`-`, `_`) without padding: decoding refuses `=`, `+`/`/`, a length of 4n+1.
public enum URLSafeBase64: Base64Variant {
    public static var alphabet: StaticString { Base64Codec.urlSafeAlphabet }
    public static var table: [UInt8] { Base64Codec.urlSafeTable }
    public static var padded: Bool { false }
}

// MARK: - Implementation

/// The base64 encoder and strict decoder that every variant uses.
public enum Base64Codec {
    /// The standard alphabet (`+`, `/`).
    public static let standardAlphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    /// The URL- and filename-safe alphabet (`-`, `_`).
    public static let urlSafeAlphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

    /// Decoding table of the standard alphabet.
    public static let standardTable: [UInt8] = makeTable(standardAlphabet)
    /// Decoding table of the URL-safe alphabet.
    public static let urlSafeTable: [UInt8] = makeTable(urlSafeAlphabet)

    /// 256-entry reverse table: the 6-bit value, or 0xFF for characters outside the alphabet.
    public static func makeTable(_ alphabet: StaticString) -> [UInt8] {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for index in 0..<64 { table[Int(alphabet.utf8Start[index])] = UInt8(index) }
        return table
    }

    /// The length of the base64 text of `count` bytes.
    public static func encodedLength(_ count: Int, padded: Bool) -> Int {
        let full = count / 3 * 4
        switch count % 3 {
        case 0: return full
        case 1: return full + (padded ? 4 : 2)
        default: return full + (padded ? 4 : 3)
        }
    }

    /// The base64 text of `bytes` in `alphabet`.
    public static func encodeToString<C: Collection>(_ bytes: C, alphabet: StaticString, padded: Bool) -> String
    where C.Element == UInt8 {
        func run(_ source: UnsafeBufferPointer<UInt8>) -> String {
            let length = encodedLength(source.count, padded: padded)
            if length == 0 { return "" }
            return String(unsafeUninitializedCapacity: length) { destination in
                encode(source, to: destination.baseAddress!, alphabet: alphabet.utf8Start, padded: padded)
                return length
            }
        }
        if let result = bytes.withContiguousStorageIfAvailable(run) { return result }
        return Array(bytes).withUnsafeBufferPointer(run)
    }

    /// Appends the base64 text of `bytes` in `alphabet` to `output`.
    public static func encode<C: Collection>(_ bytes: C, into output: inout [UInt8], alphabet: StaticString, padded: Bool)
    where C.Element == UInt8 {
        func run(_ source: UnsafeBufferPointer<UInt8>) {
            let length = encodedLength(source.count, padded: padded)
            guard length > 0 else { return }
            let start = output.count
            output.append(contentsOf: repeatElement(0, count: length))
            output.withUnsafeMutableBufferPointer { destination in
                encode(source, to: destination.baseAddress! + start, alphabet: alphabet.utf8Start, padded: padded)
            }
        }
        if bytes.withContiguousStorageIfAvailable(run) == nil {
            Array(bytes).withUnsafeBufferPointer(run)
        }
    }

    /// Writes exactly `encodedLength(source.count, padded:)` bytes at `destination`.
    public static func encode(
        _ source: UnsafeBufferPointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>,
        alphabet: UnsafePointer<UInt8>, padded: Bool
    ) {
        let count = source.count
        var s = 0
        var d = 0
        while count &- s >= 3 {
            let b0 = source[s], b1 = source[s &+ 1], b2 = source[s &+ 2]
            destination[d] = alphabet[Int(b0 >> 2)]
            destination[d &+ 1] = alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)]
            destination[d &+ 2] = alphabet[Int((b1 & 0x0F) << 2 | b2 >> 6)]
            destination[d &+ 3] = alphabet[Int(b2 & 0x3F)]
            s &+= 3
            d &+= 4
        }
        switch count &- s {
        case 1:
            let b0 = source[s]
            destination[d] = alphabet[Int(b0 >> 2)]
            destination[d &+ 1] = alphabet[Int((b0 & 0x03) << 4)]
            if padded {
                destination[d &+ 2] = UInt8(ascii: "=")
                destination[d &+ 3] = UInt8(ascii: "=")
            }
        case 2:
            let b0 = source[s], b1 = source[s &+ 1]
            destination[d] = alphabet[Int(b0 >> 2)]
            destination[d &+ 1] = alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)]
            destination[d &+ 2] = alphabet[Int((b1 & 0x0F) << 2)]
            if padded { destination[d &+ 3] = UInt8(ascii: "=") }
        default:
            break
        }
    }

    /// The bytes of base64 `text`, or nil when it is not canonical base64 of `table`'s alphabet.
    public static func decode(_ text: String, table: [UInt8], padded: Bool) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode($0, table: table, padded: padded) }
    }

    /// The bytes of base64 text given as UTF-8, or nil when it is not canonical base64.
    public static func decode<C: Collection>(utf8 text: C, table: [UInt8], padded: Bool) -> [UInt8]? where C.Element == UInt8 {
        if let result = text.withContiguousStorageIfAvailable({ decode($0, table: table, padded: padded) }) {
            return result
        }
        return Array(text).withUnsafeBufferPointer { decode($0, table: table, padded: padded) }
    }

    /// The bytes of base64 text in a buffer, or nil when it is not canonical base64.
    public static func decode(_ source: UnsafeBufferPointer<UInt8>, table: [UInt8], padded: Bool) -> [UInt8]? {
        let count = source.count
        var characters = count
        if padded {
            guard count % 4 == 0 else { return nil }
            if count > 0 && source[count - 1] == UInt8(ascii: "=") {
                characters -= 1
                if source[count - 2] == UInt8(ascii: "=") { characters -= 1 }
            }
        } else {
            guard count % 4 != 1 else { return nil }
        }
        let fullGroups = characters / 4
        let tail = characters % 4  // 0, 2 or 3 here
        let outputLength = fullGroups * 3 + (tail == 0 ? 0 : tail - 1)

        return table.withUnsafeBufferPointer { table -> [UInt8]? in
            var valid = true
            let result = [UInt8](unsafeUninitializedCapacity: outputLength) { output, initialized in
                var bad: UInt8 = 0
                var s = 0
                var d = 0
                for _ in 0..<fullGroups {
                    let v0 = table[Int(source[s])], v1 = table[Int(source[s &+ 1])]
                    let v2 = table[Int(source[s &+ 2])], v3 = table[Int(source[s &+ 3])]
                    bad |= v0 | v1 | v2 | v3
                    output[d] = v0 << 2 | v1 >> 4
                    output[d &+ 1] = v1 << 4 | v2 >> 2
                    output[d &+ 2] = v2 << 6 | v3
                    s &+= 4
                    d &+= 3
                }
                switch tail {
                case 2:
                    let v0 = table[Int(source[s])], v1 = table[Int(source[s &+ 1])]
                    bad |= v0 | v1 | (v1 & 0x0F == 0 ? 0 : 0xFF)
                    output[d] = v0 << 2 | v1 >> 4
                case 3:
                    let v0 = table[Int(source[s])], v1 = table[Int(source[s &+ 1])], v2 = table[Int(source[s &+ 2])]
                    bad |= v0 | v1 | v2 | (v2 & 0x03 == 0 ? 0 : 0xFF)
                    output[d] = v0 << 2 | v1 >> 4
                    output[d &+ 1] = v1 << 4 | v2 >> 2
                default:
                    break
                }
                valid = bad & 0x80 == 0
                initialized = outputLength
            }
            return valid ? result : nil
        }
    }
}
