/// Where the bytes of a binary briefcase (a `DABRC600` file or a bare Bin2 stream) are: a buffer
/// in memory, or a file on disk read by offset. The element reader (`BriefcaseElements`) and the
/// validator read through this, so there is one way to read a header and one to read an index,
/// whichever holds the bytes. A file is never read whole: header, index, then one element at a
/// time, so bytes after the index — junk, a sparse tail — are never read (Spec/robustness.md §8.4).
enum BriefcaseSource {
    case memory([UInt8])
    case file(RandomAccessFile)

    /// The file, for messages (nil in memory).
    var path: String? {
        if case .file(let file) = self { return file.path }
        return nil
    }

    var size: Int {
        switch self {
        case .memory(let bytes): return bytes.count
        case .file(let file): return file.size
        }
    }

    /// The `DABRC600` header and properties, and the bytes read to find them (a file's first
    /// 64 KiB, more when the properties need it; the whole buffer in memory).
    func header() throws(BriefcaseError) -> (header: BriefcaseFileCodec.Header, prefix: [UInt8]) {
        switch self {
        case .memory(let bytes):
            return (try BriefcaseFileCodec.readHeader(bytes), bytes)
        case .file(let file):
            var prefix = try file.read(0 ..< min(file.size, 1 << 16))
            while true {
                do throws(BriefcaseError) {
                    return (try BriefcaseFileCodec.readHeader(prefix, fileSize: file.size), prefix)
                } catch {
                    // A property block larger than what was read: read more.
                    guard error.kind == .truncated, prefix.count < file.size else { throw error }
                    prefix = try file.read(0 ..< min(file.size, prefix.count * 4))
                }
            }
        }
    }

    /// The element index of the Bin2 stream at `streamStart`. From a file it is read by offset
    /// (what follows the index is not read); `prefix` holds the file's first bytes when already read.
    func index(streamStart: Int, prefix: [UInt8] = []) throws(BriefcaseError) -> ElementIndex {
        switch self {
        case .memory(let bytes):
            return try ElementIndex.read(bytes, streamStart: streamStart)
        case .file(let file):
            let headerReader = streamStart + 12 <= prefix.count
                ? ByteReader(bytes: prefix, readerIndex: streamStart)
                : try file.reader(streamStart ..< streamStart + 12)
            return try ElementIndex.read(header: headerReader, end: file.size) { range throws(BriefcaseError) in
                try file.reader(range)
            }
        }
    }

    /// A buffer holding `range` and the offset of its first byte: the whole buffer in memory (no
    /// copy), just `range` from a file, read into `spare`'s memory when nothing else holds it any
    /// more (`RandomAccessFile.read(_:reusing:)`: a conversion reads element after element).
    func bytes(_ range: Range<Int>, reusing spare: inout [UInt8], minimumCapacity: Int) throws(BriefcaseError) -> (bytes: [UInt8], base: Int) {
        switch self {
        case .memory(let bytes): return (bytes, 0)
        case .file(let file): return (try file.read(range, reusing: &spare, minimumCapacity: minimumCapacity), max(0, min(range.lowerBound, file.size)))
        }
    }

    /// The bytes up to offset `end` without a copy: the buffer in memory, or the file's first
    /// `end` bytes mapped (`RandomAccessFile.mapped(through:)`), and the offset of their first byte (0).
    func mapped(through end: Int) throws(BriefcaseError) -> (source: ByteSource, base: Int) {
        switch self {
        case .memory(let bytes): return (ByteSource(bytes), 0)
        case .file(let file): return (ByteSource(try file.mapped(through: end)), 0)
        }
    }

    /// Whether the file was mapped (`mapped(through:)`; never in memory).
    var isMapped: Bool {
        if case .file(let file) = self { return file.mappedCount != nil }
        return false
    }

    /// Lets the pages of `range` of the file mapped by `mapped(through:)` go (nothing in memory).
    func releaseMapped(_ range: Range<Int>) {
        if case .file(let file) = self { file.releaseMapped(range) }
    }

    /// The same in fresh memory.
    func bytes(_ range: Range<Int>) throws(BriefcaseError) -> (bytes: [UInt8], base: Int) {
        switch self {
        case .memory(let bytes): return (bytes, 0)
        case .file(let file): return (try file.read(range), max(0, min(range.lowerBound, file.size)))
        }
    }
}
