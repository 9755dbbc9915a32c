/// A cursor over a contiguous byte buffer, modelled on swift-nio's `ByteBuffer`:
/// `get…(at:)` reads without moving and returns nil past the end; `read…()` moves the reader
/// index and throws a `BriefcaseError` naming the offset when the input is too short.
///
/// All integers in Bin2 and DABRC600 are little-endian. Indices are file offsets: the source's
/// byte 0 is the byte at file offset `base` (0 when the source is the whole file, read or mapped;
/// the element's position when only one element was read from disk), and errors report file
/// offsets.
public struct ByteReader {
    /// The bytes read: an array, or a mapped file (`ByteSource`).
    public let source: ByteSource
    /// The file offset of the source's byte 0.
    public let base: Int
    /// The bytes as an array: the source's, or a copy of a whole mapped file.
    @available(*, deprecated, message: "the bytes may be a mapped file's: read them through `source`")
    public var bytes: [UInt8] { source.arrayOrCopy }
    /// The file offset of the next byte to read.
    public var readerIndex: Int
    /// One past the last file offset this reader may read (the end of the current element).
    public let endIndex: Int

    /// A reader of `bytes`, whose first byte is at file offset `base`, between `readerIndex` and `endIndex`.
    public init(bytes: [UInt8], base: Int = 0, readerIndex: Int? = nil, endIndex: Int? = nil) {
        self.init(source: ByteSource(bytes), base: base, readerIndex: readerIndex, endIndex: endIndex)
    }

    /// A reader of `source`, whose byte 0 is at file offset `base`, between `readerIndex` and `endIndex`.
    public init(source: ByteSource, base: Int = 0, readerIndex: Int? = nil, endIndex: Int? = nil) {
        self.source = source
        self.base = base
        let end = min(endIndex ?? base + source.count, base + source.count)
        self.endIndex = end
        self.readerIndex = min(max(base, readerIndex ?? base), end)
    }

    /// A reader over `range` of the same buffer (for reading one element without running past it).
    public func limited(to range: Range<Int>) -> ByteReader {
        ByteReader(source: source, base: base, readerIndex: range.lowerBound, endIndex: range.upperBound)
    }

    /// Bytes left between the reading position and the end.
    public var readableBytes: Int { endIndex - readerIndex }

    // MARK: get (no move)

    /// The little-endian integer at `index`, without moving; nil past the end.
    @inlinable @inline(__always)
    public func getInteger<T: FixedWidthInteger>(at index: Int, as: T.Type = T.self) -> T? {
        guard index >= base, index <= endIndex - MemoryLayout<T>.size else { return nil }
        return source.withUnsafeBufferPointer { buffer in
            T(littleEndian: UnsafeRawPointer(buffer.baseAddress!).loadUnaligned(fromByteOffset: index - base, as: T.self))
        }
    }

    /// The `count` bytes at `index`, without moving; nil past the end (`ByteSource`'s subscript:
    /// a slice of an array, or a copy out of a mapping).
    public func getBytes(at index: Int, count: Int) -> ArraySlice<UInt8>? {
        guard index >= base, count >= 0, index <= endIndex - count else { return nil }
        return source[index - base ..< index - base + count]
    }

    // MARK: read (moves)

    /// Throws unless `count` more bytes can be read; `what` names the value for the message.
    @inlinable
    public func require(_ count: Int, for what: @autoclosure () -> String) throws(BriefcaseError) {
        guard count >= 0, count <= endIndex - readerIndex else {
            throw BriefcaseError(.truncated,
                                 "\(what()) needs \(count) bytes but only \(max(0, endIndex - readerIndex)) remain",
                                 offset: readerIndex)
        }
    }

    /// Reads a little-endian integer; `what` names it in the error when the bytes end first.
    @inlinable
    public mutating func readInteger<T: FixedWidthInteger>(as type: T.Type = T.self, _ what: @autoclosure () -> String = "integer") throws(BriefcaseError) -> T {
        guard let value = getInteger(at: readerIndex, as: T.self) else {
            try require(MemoryLayout<T>.size, for: what())
            fatalError("unreachable")
        }
        readerIndex += MemoryLayout<T>.size
        return value
    }

    /// Reads a little-endian Int32.
    public mutating func readInt32(_ what: @autoclosure () -> String = "Int32") throws(BriefcaseError) -> Int32 {
        try readInteger(as: Int32.self, what())
    }

    /// Reads one byte.
    public mutating func readUInt8(_ what: @autoclosure () -> String = "byte") throws(BriefcaseError) -> UInt8 {
        try readInteger(as: UInt8.self, what())
    }

    /// Reads `count` bytes (a slice of an array, not a copy; out of a mapping, a copy), or fails
    /// when fewer remain.
    public mutating func readBytes(_ count: Int, _ what: @autoclosure () -> String = "bytes") throws(BriefcaseError) -> ArraySlice<UInt8> {
        try require(count, for: what())
        let slice = source[readerIndex - base ..< readerIndex - base + count]
        readerIndex += count
        return slice
    }

    /// A non-negative count or length, checked against the bytes that remain: `count × minimumSize`
    /// must fit, so no caller allocates for data the input cannot contain.
    public mutating func readCount(_ what: @autoclosure () -> String, minimumSize: Int = 1) throws(BriefcaseError) -> Int {
        let start = readerIndex
        let raw = try readInt32(what())
        guard raw >= 0 else {
            throw BriefcaseError(.invalidData, "\(what()) is negative (\(raw))", offset: start)
        }
        let count = Int(raw)
        if minimumSize > 0, count > readableBytes / minimumSize {
            throw BriefcaseError(.invalidData,
                                 "\(what()) is \(count) but only \(readableBytes) bytes remain",
                                 offset: start)
        }
        return count
    }

    /// Int32 byte length + bytes (Bin2 "AnsiString", blobs, wide strings).
    public mutating func readLengthPrefixed(_ what: @autoclosure () -> String) throws(BriefcaseError) -> ByteString {
        let length = try readCount("length of \(what())", minimumSize: 1)
        return try readByteString(length, what())
    }

    /// `count` bytes as a `ByteString` sharing an array (no copy), or copied out of a mapping.
    public mutating func readByteString(_ count: Int, _ what: @autoclosure () -> String = "bytes") throws(BriefcaseError) -> ByteString {
        try require(count, for: what())
        let string = source.byteString(readerIndex - base ..< readerIndex - base + count)
        readerIndex += count
        return string
    }

    /// Reads the ASCII `magic` signature, or fails naming `what` and the bytes found.
    public mutating func expectMagic(_ magic: String, _ what: String) throws(BriefcaseError) {
        let start = readerIndex
        let expected = Array(magic.utf8)
        let found = try readBytes(expected.count, what)
        guard found.elementsEqual(expected) else {
            throw BriefcaseError(.invalidData, "expected \(what) '\(magic)' but found \(describe(found))", offset: start, reason: .signature)
        }
    }

    private func describe(_ bytes: ArraySlice<UInt8>) -> String {
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            return "'" + String(decoding: bytes, as: UTF8.self) + "'"
        }
        return bytes.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined(separator: " ")
    }
}
