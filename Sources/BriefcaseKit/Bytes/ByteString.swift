/// Bytes exactly as a file stores them: an 8-bit string in the writer's code page, the UTF-16LE
/// bytes of a wide string, a blob. Decoding to text is a separate step (see `CodePage`), so that
/// writing a value back always reproduces the original bytes.
///
/// Backed by an `ArraySlice` of the buffer it was read from: reading a value does not copy it.
public struct ByteString: Hashable, Sendable {
    public var bytes: ArraySlice<UInt8>

    public init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }
    public init(_ bytes: [UInt8]) { self.bytes = bytes[...] }
    public init<S: Sequence>(_ bytes: S) where S.Element == UInt8 { self.bytes = ArraySlice(bytes) }
    /// The UTF-8 bytes of `string`.
    public init(utf8 string: String) { self.bytes = ArraySlice(string.utf8) }

    public static let empty = ByteString([UInt8]())

    public var count: Int { bytes.count }
    public var isEmpty: Bool { bytes.isEmpty }
    public var array: [UInt8] { Array(bytes) }

    /// The bytes as UTF-8 text, or nil when they are not valid UTF-8.
    public var utf8String: String? {
        bytes.withUnsafeBufferPointer { buffer in
            guard UTF8Validation.isValid(buffer) else { return nil }
            return String(decoding: buffer, as: UTF8.self)
        }
    }

    /// True when every byte is below 0x80.
    public var isASCII: Bool { bytes.allSatisfy { $0 < 0x80 } }
}

extension ByteString: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self.init(utf8: value) }
}

extension ByteString: CustomStringConvertible {
    public var description: String { utf8String ?? "<\(count) bytes>" }
}

enum UTF8Validation {
    /// Strict UTF-8 validation (no overlongs, no surrogates, nothing above U+10FFFF).
    static func isValid(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let n = buffer.count
        while i < n {
            // ASCII eight bytes at a time.
            if let base = buffer.baseAddress {
                while n - i >= 8, UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 { i += 8 }
                if i >= n { break }
            }
            let b0 = buffer[i]
            if b0 < 0x80 { i += 1; continue }
            let length: Int
            var lower: UInt8 = 0x80, upper: UInt8 = 0xBF
            switch b0 {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; upper = 0x9F
            case 0xF0: length = 4; lower = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; upper = 0x8F
            default: return false
            }
            guard n - i >= length else { return false }
            let b1 = buffer[i + 1]
            guard b1 >= lower && b1 <= upper else { return false }
            var k = 2
            while k < length {
                guard buffer[i + k] & 0xC0 == 0x80 else { return false }
                k += 1
            }
            i += length
        }
        return true
    }
}
