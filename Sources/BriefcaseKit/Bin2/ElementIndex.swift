/// The element index at the end of a Bin2 stream: where each table and delta lives.
///
/// Reading it costs time proportional to the number of elements, not to the size of the data,
/// which is what lets a reader open a large briefcase and decode only the table it needs.
package struct ElementIndex: Sendable {
    /// One element: its kind, name and where its body lies.
    package struct Entry: Sendable {
        /// Table or delta.
        public var kind: ElementKind
        /// The element's name as stored (8-bit).
        public var name: ByteString
        /// The body's byte range in the buffer (absolute), from its offset to the next element
        /// (or the index).
        public var range: Range<Int>
        /// Where this entry sits in the index (for error messages).
        public var entryOffset: Int
    }

    /// Entries in index order.
    public var entries: [Entry]
    /// Absolute position of the `DABIN200` signature.
    public var streamStart: Int
    /// Absolute position of the index.
    public var indexPosition: Int
    /// What stored positions are relative to: 0 when they are absolute in the containing buffer
    /// (as Data Abstract for .NET writes them), `streamStart` when relative to the stream.
    public var positionBase: Int
    /// Where the index ends, and where the stream (the file) ends: bytes between them are not
    /// part of the briefcase (readers skip them with a warning, as Data Abstract ignores them).
    public var end = 0
    /// Where the stream (the file) ends.
    public var streamEnd = 0

    /// The warning for bytes after the index, if any.
    public var trailingBytesWarning: DecodingWarning? {
        guard streamEnd > end else { return nil }
        return DecodingWarning(message: "\(streamEnd - end) bytes after the element index (not part of the briefcase; ignored)", offset: end)
    }

    /// The index entries whose name matches `name` case-insensitively.
    public func entries(named name: ByteString) -> [Entry] {
        entries.filter { namesMatch($0.name, name) }
    }
}

extension ElementIndex {
    static let signature = "DABIN200"

    /// Reads the stream header and index of the Bin2 stream occupying `streamStart ..< end` of
    /// `bytes`. Positions are tried as absolute first, then as relative to the stream start.
    public static func read(_ bytes: [UInt8], streamStart: Int = 0, end: Int? = nil) throws(BriefcaseError) -> ElementIndex {
        let whole = ByteReader(bytes: bytes, endIndex: end)
        return try read(header: whole.limited(to: streamStart ..< whole.endIndex), end: whole.endIndex) { range throws(BriefcaseError) in
            whole.limited(to: range)
        }
    }

    /// Reads the index without holding the stream in memory: `header` covers at least the 12
    /// header bytes at the stream start, `end` is the file offset where the stream ends, and
    /// `region` supplies a reader for a range of file offsets (the index, read from disk).
    public static func read(header: ByteReader, end: Int, region: (Range<Int>) throws(BriefcaseError) -> ByteReader) throws(BriefcaseError) -> ElementIndex {
        var reader = header
        let streamStart = reader.readerIndex
        try reader.expectMagic(signature, "Bin2 signature")
        let storedIndexPosition = try reader.readInt32("index position")
        do {
            return try read(storedIndexPosition: storedIndexPosition, base: 0, streamStart: streamStart, end: end, region: region)
        } catch let absoluteError {
            guard streamStart != 0,
                  let relative = try? read(storedIndexPosition: storedIndexPosition, base: streamStart, streamStart: streamStart, end: end, region: region)
            else { throw absoluteError }
            return relative
        }
    }

    private static func read(storedIndexPosition: Int32, base: Int, streamStart: Int, end: Int,
                             region: (Range<Int>) throws(BriefcaseError) -> ByteReader) throws(BriefcaseError) -> ElementIndex {
        let firstElement = streamStart + 12
        let indexPosition = base + Int(storedIndexPosition)
        guard indexPosition >= firstElement, indexPosition <= end - 4 else {
            throw BriefcaseError(.invalidData,
                                 "index position \(storedIndexPosition) lies outside the stream (\(firstElement - base)…\(end - 4 - base))",
                                 offset: streamStart + 8)
        }
        // The index is read in growing windows, not to the end of the file: bytes after it (junk,
        // a sparse tail of gigabytes) are never read. A window too short for what the index says
        // fails; the next is 4 times larger, until it reaches the end (where errors are final).
        var windowEnd = min(end, indexPosition + (1 << 16))
        while true {
            var reader = try region(indexPosition ..< windowEnd)
            if windowEnd < end, let raw = reader.getInteger(at: indexPosition, as: Int32.self), raw > 0,
               Int(raw) > (end - indexPosition - 4) / 12 {
                // Too many entries for the whole stream: the message counts the bytes to the end.
                throw BriefcaseError(.invalidData, "element count is \(raw) but only \(end - indexPosition - 4) bytes remain", offset: indexPosition)
            }
            let window = reader
            do throws(BriefcaseError) {
                return try readEntries(&reader, base: base, streamStart: streamStart, indexPosition: indexPosition, end: end)
            } catch {
                guard windowEnd < end else { throw error }
                var wanted = indexPosition + (windowEnd - indexPosition) * 4
                if error.kind != .truncated {
                    // A name length the window cannot hold ("… is L but only R bytes remain"): final
                    // when the stream cannot hold it either, else the window grows to hold it.
                    guard error.message.contains(" bytes remain"), let at = error.offset,
                          let length = window.getInteger(at: at, as: Int32.self) else { throw error }
                    guard at + 4 + Int(length) <= end else {
                        var final = error
                        final.message = final.message.replacing("only \(windowEnd - at - 4) bytes remain",
                                                                with: "only \(end - at - 4) bytes remain")
                        throw final
                    }
                    wanted = max(wanted, at + 4 + Int(length) + 8)
                }
                windowEnd = min(end, wanted)
            }
        }
    }

    private static func readEntries(_ reader: inout ByteReader, base: Int, streamStart: Int, indexPosition: Int, end: Int) throws(BriefcaseError) -> ElementIndex {
        let firstElement = streamStart + 12
        let count = try reader.readCount("element count", minimumSize: 12)
        var raw: [(kind: ElementKind, name: ByteString, offset: Int, entryOffset: Int)] = []
        raw.reserveCapacity(count)
        for _ in 0..<count {
            let entryOffset = reader.readerIndex
            let kindCode = try reader.readInt32("element type")
            guard let kind = ElementKind(rawValue: kindCode) else {
                throw BriefcaseError(.invalidData, "unknown element type \(kindCode) (0 = table, 1 = delta)", offset: entryOffset)
            }
            let name = try reader.readLengthPrefixed("element name")
            let positionOffset = reader.readerIndex
            let stored = try reader.readInt32("element position")
            let position = base + Int(stored)
            guard position >= firstElement, position < indexPosition else {
                throw BriefcaseError(.invalidData,
                                     "\(kind.label) '\(name)' position \(stored) lies outside the element area (\(firstElement - base)…\(indexPosition - 1 - base))",
                                     offset: positionOffset)
            }
            raw.append((kind, name, position, entryOffset))
        }
        let indexEnd = reader.readerIndex
        // Each body runs to the next element's start (or the index): bodies are contiguous.
        let starts = raw.map(\.offset).sorted()
        for i in starts.indices.dropFirst() where starts[i] == starts[i - 1] {
            throw BriefcaseError(.invalidData, "two elements start at the same position \(starts[i] - base)", offset: starts[i])
        }
        if let first = starts.first, first != firstElement {
            throw BriefcaseError(.invalidData, "\(first - firstElement) bytes before the first element", offset: firstElement)
        }
        if starts.isEmpty, indexPosition != firstElement {
            throw BriefcaseError(.invalidData, "\(indexPosition - firstElement) bytes in a stream without elements", offset: firstElement)
        }
        var entries: [Entry] = []
        entries.reserveCapacity(raw.count)
        for item in raw {
            var lo = 0, hi = starts.count
            while lo < hi { let mid = (lo + hi) / 2; if starts[mid] <= item.offset { lo = mid + 1 } else { hi = mid } }
            let upper = lo < starts.count ? starts[lo] : indexPosition
            entries.append(Entry(kind: item.kind, name: item.name, range: item.offset ..< upper, entryOffset: item.entryOffset))
        }
        return ElementIndex(entries: entries, streamStart: streamStart, indexPosition: indexPosition, positionBase: base,
                            end: indexEnd, streamEnd: end)
    }
}
