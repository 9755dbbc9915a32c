#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import JSONCore

/// Bytes exactly as a file stores them: an 8-bit string in the writer's code page, the UTF-16LE
/// bytes of a wide string, a blob. Decoding to text is a separate step (see `CodePage`), so that
/// writing a value back always reproduces the original bytes.
///
/// Two words: a 32-bit start and a 32-bit count, and the array that owns the bytes. A value read
/// from a file buffer shares that buffer (`init(_:range:)`: no copy), and `bytes` is then a slice
/// with the buffer's indices. Why not an `ArraySlice` field: that takes four words, which made
/// `Value?` 40 bytes instead of 16, and the decoded model of a file 2.3 × its size — most of a
/// fresh process's decode time went to page faults on that memory.
public struct ByteString: Sendable {
    // The order matters: the array reference comes second so that the spare bits of its pointer
    // lie where the 8-byte payloads of `Value` have none, which lets `Value` keep its case in
    // them: 16 bytes for a `Value?` instead of 24.
    @usableFromInline internal var start: UInt32
    /// The byte count, or `ByteString.wholeArray`: everything from `start` (0) to the end of
    /// `storage` — how an owned array too large for 32 bits is kept, so no size is refused.
    @usableFromInline internal var length: UInt32
    /// Owns the bytes; `ByteString` uses `storage[start ..< start + count]` of it.
    @usableFromInline internal var storage: [UInt8]

    @usableFromInline static let wholeArray = UInt32.max

    /// The bytes of `array` in `range`, sharing `array`'s storage: the decoder's path (no copy).
    /// `bytes` keeps `range`'s indices. A range past 4 GiB cannot be stored in 32 bits: then the
    /// bytes are copied (indices from 0), which Bin2 data never needs (its lengths are Int32).
    @inlinable
    public init(_ array: [UInt8], range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= array.count, "ByteString range out of bounds")
        if range.upperBound < Int(ByteString.wholeArray) {
            self.init(storage: array, start: UInt32(truncatingIfNeeded: range.lowerBound),
                      length: UInt32(truncatingIfNeeded: range.count))
        } else {
            self.init(owning: Array(array[range]))
        }
    }

    /// An arbitrary slice cannot give back the array it came from, so its bytes are copied (indices
    /// from 0). Not the hot path: the decoder uses `init(_:range:)`.
    public init(_ bytes: ArraySlice<UInt8>) { self.init(owning: Array(bytes)) }
    /// The bytes of `bytes`.
    public init(_ bytes: [UInt8]) { self.init(owning: bytes) }
    /// The bytes of a sequence.
    public init<S: Sequence>(_ bytes: S) where S.Element == UInt8 { self.init(owning: Array(bytes)) }
    /// The UTF-8 bytes of `string`.
    public init(utf8 string: String) { self.init(owning: Array(string.utf8)) }

    @inlinable
    internal init(owning array: [UInt8]) {
        self.init(storage: array, start: 0,
                  length: array.count < Int(ByteString.wholeArray) ? UInt32(truncatingIfNeeded: array.count) : ByteString.wholeArray)
    }

    @inlinable
    internal init(storage: [UInt8], start: UInt32, length: UInt32) {
        self.start = start
        self.length = length
        self.storage = storage
    }

    /// No bytes.
    public static let empty = ByteString([UInt8]())

    /// The bytes, as a slice of the owning array (a buffer slice keeps the buffer's indices).
    /// Setting copies the new bytes (see `init(_: ArraySlice<UInt8>)`).
    public var bytes: ArraySlice<UInt8> {
        @inlinable get { storage[Int(start) ..< Int(start) &+ count] }
        set { self = ByteString(newValue) }
    }

    /// The number of bytes.
    @inlinable
    public var count: Int { length == ByteString.wholeArray ? storage.count : Int(length) }
    /// True when there are no bytes.
    @inlinable
    public var isEmpty: Bool { count == 0 }
    /// The bytes as an array of their own.
    public var array: [UInt8] {
        if start == 0 && count == storage.count { return storage }
        return Array(bytes)
    }

    /// Calls `body` with the bytes (no slice is made).
    @inlinable
    public func withUnsafeBufferPointer<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        let offset = Int(start), count = self.count
        return try storage.withUnsafeBufferPointer { (buffer) throws(E) -> R in
            try body(UnsafeBufferPointer(rebasing: buffer[offset ..< offset &+ count]))
        }
    }

    /// The bytes as UTF-8 text, or nil when they are not valid UTF-8.
    public var utf8String: String? {
        withUnsafeBufferPointer { buffer in
            guard UTF8Validation.isValid(buffer) else { return nil }
            return String(decoding: buffer, as: UTF8.self)
        }
    }

    /// True when every byte is below 0x80.
    public var isASCII: Bool { withUnsafeBufferPointer { $0.allSatisfy { $0 < 0x80 } } }
}

/// Equal when the bytes are equal, wherever they are stored (a buffer slice and a copy compare equal).
extension ByteString: Hashable {
    /// Byte-for-byte equality.
    public static func == (a: ByteString, b: ByteString) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBufferPointer { x in
            b.withUnsafeBufferPointer { y in
                x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0
            }
        }
    }

    /// Hashes the bytes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        withUnsafeBufferPointer { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

extension ByteString: ExpressibleByStringLiteral {
    /// The UTF-8 bytes of a string literal.
    public init(stringLiteral value: String) { self.init(utf8: value) }
}

extension ByteString: CustomStringConvertible {
    /// The bytes as UTF-8 text when they are, else their count.
    public var description: String { utf8String ?? "<\(count) bytes>" }
}
