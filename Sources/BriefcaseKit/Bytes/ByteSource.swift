/// The bytes a `ByteReader` and the decoder read: an array, or a file mapped into memory
/// (`MappedFile`), whose pages are the page cache's — read without a copy into memory of the
/// process's own.
///
/// Why both: a conversion of a file reads every element once, and reading each into an array
/// cost a copy and, the first time an array is filled, a fault per 4 KiB of it (→ json of 100 MB
/// with two jobs: 18 % of the CPU). Decoded from the mapping, the rows stay views into it. What is
/// kept of it once decoded — a name, a value asked for — is copied out into an array of its own
/// (`byteString(_:)`), so nothing but the rows' spans holds the mapping.
///
/// Indices are those of the bytes: 0 is the array's first byte, or the file's.
public struct ByteSource: Sendable {
    // Two fields rather than an enum: taking an array out of an enum's payload cost a retain and
    // a release for each value a row visitor made (→ sqlite of delta-heavy data: +1.5 %).
    /// The bytes when they are an array (empty when mapped).
    @usableFromInline let storage: [UInt8]
    /// The mapped file, when the bytes are one's.
    @usableFromInline let file: MappedFile?

    /// The bytes of `array`.
    public init(_ array: [UInt8]) {
        storage = array
        file = nil
    }

    /// The bytes of a mapped file (kept mapped while this is held).
    package init(_ file: MappedFile) {
        storage = []
        self.file = file
    }

    /// How many bytes there are.
    @inlinable
    public var count: Int { file?.count ?? storage.count }

    /// Whether the bytes are a mapped file's.
    public var isMapped: Bool { file != nil }

    /// The array, when the bytes are one.
    public var array: [UInt8]? { file == nil ? storage : nil }

    /// The bytes as an array: the array, or a copy of the whole mapped file (what the deprecated
    /// `bytes` of the reader and the decoder give).
    var arrayOrCopy: [UInt8] { array ?? withUnsafeBufferPointer { Array($0) } }

    /// Calls `body` with the bytes (valid only inside it).
    @inlinable @inline(__always)
    public func withUnsafeBufferPointer<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        if let file { return try body(file.bytes.bindMemory(to: UInt8.self)) }
        return try storage.withUnsafeBufferPointer(body)
    }

    /// The bytes in `range` as a `ByteString`: sharing the array, or copied out of a mapping.
    @inlinable @inline(__always)
    public func byteString(_ range: Range<Int>) -> ByteString {
        if let file { return ByteString(UnsafeRawBufferPointer(rebasing: file.bytes[range]).bindMemory(to: UInt8.self)) }
        return ByteString(storage, range: range)
    }

    /// The bytes in `range`: a slice of the array (its indices), or a copy out of a mapping
    /// (indices from 0).
    public subscript(range: Range<Int>) -> ArraySlice<UInt8> {
        if let file { return ArraySlice(UnsafeRawBufferPointer(rebasing: file.bytes[range])) }
        return storage[range]
    }
}
