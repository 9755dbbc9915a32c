/// The bytes `validate` checks: a buffer in memory (standard input, gzip), or a file on disk read
/// by offset (header, index, then one element at a time), so that a file larger than its data —
/// junk or a sparse tail after the index — is never read whole (Spec/robustness.md §8.4).
enum ValidationSource {
    case memory([UInt8])
    case file(RandomAccessFile)

    /// The `DABRC600` header and properties.
    func header() throws(BriefcaseError) -> BriefcaseFileCodec.Header {
        switch self {
        case .memory(let bytes): return try BriefcaseFileCodec.readHeader(bytes)
        case .file(let file): return try Briefcase.readHeader(file)
        }
    }

    /// The element index of the stream starting at `streamStart`.
    func index(streamStart: Int) throws(BriefcaseError) -> ElementIndex {
        switch self {
        case .memory(let bytes): return try ElementIndex.read(bytes, streamStart: streamStart)
        case .file(let file): return try Briefcase.readIndex(file, streamStart: streamStart, prefix: [])
        }
    }

    /// A buffer holding `range` and the file offset of its first byte: the whole buffer (no copy)
    /// in memory, just `range` from a file.
    func bytes(_ range: Range<Int>) throws(BriefcaseError) -> (bytes: [UInt8], base: Int) {
        switch self {
        case .memory(let bytes): return (bytes, 0)
        case .file(let file): return (try file.read(range), max(0, min(range.lowerBound, file.size)))
        }
    }
}
