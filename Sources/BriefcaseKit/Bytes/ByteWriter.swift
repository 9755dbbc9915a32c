/// Appends little-endian values to a growing byte array: the symmetric partner of `ByteReader`.
public struct ByteWriter {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8]

    /// An empty writer with room for `capacity` bytes.
    public init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// An empty writer in `memory`'s memory (an array used before), with room for `capacity`.
    public init(reusing memory: [UInt8], capacity: Int) {
        bytes = memory
        bytes.removeAll(keepingCapacity: true)
        bytes.reserveCapacity(capacity)
    }

    /// The number of bytes written.
    public var count: Int { bytes.count }

    /// Appends an integer in little-endian order.
    public mutating func writeInteger<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Appends a little-endian Int32.
    public mutating func writeInt32(_ value: Int32) { writeInteger(value) }

    /// Appends bytes as they are.
    public mutating func writeBytes<C: Collection>(_ data: C) where C.Element == UInt8 {
        bytes.append(contentsOf: data)
    }

    /// Int32 byte length + bytes. Throws when the length does not fit an Int32.
    public mutating func writeLengthPrefixed(_ string: ByteString) throws(BriefcaseError) {
        writeInt32(try Self.int32(string.count, "length"))
        bytes.append(contentsOf: string.bytes)
    }

    /// Appends `count` bytes that `body` writes through a pointer (it must write every one).
    @inline(__always)
    mutating func append(count: Int, _ body: (UnsafeMutableRawPointer) -> Void) {
        let start = bytes.count
        Self.appendZeros(count, to: &bytes)
        bytes.withUnsafeMutableBytes { body($0.baseAddress! + start) }
    }

    private static let zeros = [UInt8](repeating: 0, count: 1 << 16)

    /// `count` zero bytes (copied from a zero buffer: appending a `repeatElement` goes byte by byte).
    static func appendZeros(_ count: Int, to bytes: inout [UInt8]) {
        guard count <= zeros.count else { return bytes.append(contentsOf: repeatElement(0, count: count)) }
        zeros.withUnsafeBufferPointer { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0[0..<count])) }
    }

    /// Overwrites 4 bytes at `offset` (used to patch positions known only later).
    public mutating func setInt32(_ value: Int32, at offset: Int) {
        withUnsafeBytes(of: value.littleEndian) { raw in
            for i in 0..<4 { bytes[offset + i] = raw[i] }
        }
    }

    /// Replaces `replacement.count` bytes at `offset` with them; false when they do not lie
    /// within what was written.
    mutating func replace(at offset: Int, with replacement: UnsafeRawBufferPointer) -> Bool {
        guard offset >= 0, offset + replacement.count <= bytes.count else { return false }
        for i in 0..<replacement.count { bytes[offset + i] = replacement[i] }
        return true
    }

    /// Forgets what was written after the first `count` bytes.
    mutating func truncate(to count: Int) {
        bytes.removeLast(bytes.count - count)
    }

    static func int32(_ value: Int, _ what: String) throws(BriefcaseError) -> Int32 {
        guard let narrow = Int32(exactly: value) else {
            throw BriefcaseError(.invalidModel, "\(what) \(value) does not fit in an Int32 (Bin2 streams are limited to 2 GiB)")
        }
        return narrow
    }
}
