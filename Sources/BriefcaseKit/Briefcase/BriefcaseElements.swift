/// The element reader of binary briefcases: a `DABRC600` file or a bare Bin2 stream, on disk or
/// in memory, decoded one element at a time (Spec/robustness.md, "Streaming conversion"). Opening
/// reads the header, the properties and the element index; `decode(_:)` reads one element by its
/// offset (`pread` from a file, nothing copied in memory) and decodes it, so a conversion holds the
/// input's index plus one table, never the whole model. (A conversion with several jobs decodes
/// elements too large to decode ahead from the file mapped instead: `Stored.readMapped`.)
///
/// Every binary reader is built on this: the whole-document decoders (`BriefcaseFileCodec.decode`,
/// `BriefcaseDocument.decode`) collect its elements (`document(warnings:)`); the lazy `Briefcase`
/// keeps one per file and decodes a table when asked; the converters stream from it.
///
/// The order is the index order (a single file or a bare Bin2 stream), or, for a folder, the
/// order of `Briefcase.document()` (table by table).
public final class BriefcaseElements {
    /// One element in its file (or buffer).
    public struct Stored: Sendable {
        /// Table or delta.
        public var kind: ElementKind
        /// The element's name as stored (8-bit).
        public var name: ByteString
        let source: BriefcaseSource
        let indexEntry: ElementIndex.Entry
        let positionBase: Int
        /// How much of the file `readMapped` maps: up to the end of its last element, so that
        /// what follows (the index, a tail of junk) is never mapped (Spec/robustness.md §8.4).
        let mappedExtent: Int
        /// The file the element is in (a folder's table file, or the briefcase itself; nil in memory).
        public var path: String? { source.path }
        /// The element's bytes in that file.
        public var range: Range<Int> { indexEntry.range }
        /// The name as text for messages (the UTF-8 reading, as the decoder names elements).
        public var label: String { String(decoding: name.bytes, as: UTF8.self) }

        /// The element's bytes, as they are (what a writer copies without decoding).
        public func rawBytes() throws(BriefcaseError) -> [UInt8] {
            let (bytes, base) = try source.bytes(range)
            if base == range.lowerBound, bytes.count == range.count { return bytes } // read for this
            return Array(bytes[range.lowerBound - base ..< range.upperBound - base])
        }

        /// Reads and decodes the element, its bytes read into `spare`'s memory when nothing holds
        /// that any more (`RandomAccessFile.read(_:reusing:)`); its warnings (also those before a
        /// failure) are appended to `warnings`. Errors name the file, the element and the offset.
        /// Touches nothing but its arguments: worker threads decode side by side, each with its
        /// own `spare`.
        func decode(warnings: inout [DecodingWarning], reusing spare: inout [UInt8], minimumCapacity: Int) throws(BriefcaseError) -> Element {
            try read(ModelReading(), warnings: &warnings, reusing: &spare, minimumCapacity: minimumCapacity)
        }

        /// The same, its bytes read into fresh memory.
        func decode(warnings: inout [DecodingWarning]) throws(BriefcaseError) -> Element {
            try read(ModelReading(), warnings: &warnings)
        }

        /// Reads the element with `reading` (the model, or `validate`'s checks) as `decode`
        /// does, into fresh memory.
        func read<Reading: ElementReading>(_ reading: Reading, warnings: inout [DecodingWarning]) throws(BriefcaseError) -> Reading.Product {
            try read(reading, warnings: &warnings) { () throws(BriefcaseError) in
                let (bytes, base) = try source.bytes(range)
                return (ByteSource(bytes), base)
            }
        }

        /// The same, decoded from its file mapped into memory (`BriefcaseSource.mapped(through:)`): no copy,
        /// and the rows of what is made stay views into the mapping until `releaseMapped()`.
        func readMapped<Reading: ElementReading>(_ reading: Reading, warnings: inout [DecodingWarning]) throws(BriefcaseError) -> Reading.Product {
            try read(reading, warnings: &warnings) { () throws(BriefcaseError) in try source.mapped(through: mappedExtent) }
        }

        /// Whether `readMapped` serves this element: a table, whose rows stay views into the
        /// mapping. A delta's changes are made into values by the sinks, and each string of them
        /// would be copied out of the mapping (→ json of delta-heavy data, one job: 4 % slower).
        var readsWellMapped: Bool { kind == .table }

        /// Whether the element's file was mapped (`readMapped`).
        var fileIsMapped: Bool { source.isMapped }

        /// The element decoded where it lies, as a comparison reads one table at a time from any
        /// thread: a table from its file mapped (`readMapped`: its rows stay views into the
        /// mapping, no copy), a delta into fresh memory; `releaseMapped()` once compared.
        package func decodeInPlace(warnings: inout [DecodingWarning]) throws(BriefcaseError) -> Element {
            readsWellMapped ? try readMapped(ModelReading(), warnings: &warnings) : try decode(warnings: &warnings)
        }

        /// Lets the pages of the element's bytes mapped by `readMapped` go (read again from the
        /// page cache if touched again): once what was made of them is let go.
        package func releaseMapped() {
            source.releaseMapped(range)
        }

        /// The same, into `spare`'s memory; a fresh `spare` gets room for `minimumCapacity` bytes
        /// (the largest element its reader will read into it).
        func read<Reading: ElementReading>(_ reading: Reading, warnings: inout [DecodingWarning],
                                           reusing spare: inout [UInt8], minimumCapacity: Int) throws(BriefcaseError) -> Reading.Product {
            try read(reading, warnings: &warnings) { () throws(BriefcaseError) in
                let (bytes, base) = try source.bytes(range, reusing: &spare, minimumCapacity: minimumCapacity)
                return (ByteSource(bytes), base)
            }
        }

        private func read<Reading: ElementReading>(_ reading: Reading, warnings: inout [DecodingWarning],
                                                   bytes: () throws(BriefcaseError) -> (source: ByteSource, base: Int)) throws(BriefcaseError) -> Reading.Product {
            do throws(BriefcaseError) {
                let (source, base) = try bytes()
                var decoder = Bin2Decoder(source: source, base: base)
                defer { warnings += decoder.warnings }  // also what it warned about before failing
                return try reading.read(&decoder, indexEntry, positionBase: positionBase)
            } catch {
                guard error.file == nil, let path else { throw error }
                throw error.inFile(path)
            }
        }
    }

    /// The file (nil when reading a buffer in memory).
    public let path: String?
    /// The container the elements come from.
    public let container: ContainerFormat
    /// A single file's properties (a folder's `Properties.plist`), in order.
    public let properties: [BriefcaseProperty]
    /// Bytes between a single file's properties and its data, kept for byte-exact writing.
    public let headerPadding: ByteString
    /// Every element, in reading order.
    public let elements: [Stored]
    /// Warnings about the container itself (bytes after the index, bytes between properties and
    /// data), reported after the elements' warnings.
    public internal(set) var containerWarnings: [DecodingWarning] = []
    /// The code page a folder's `Properties.plist` was read with (nil for single files).
    public internal(set) var folderCodePage: CodePage?
    /// The memory of the last element read, reused for the next once that element is gone.
    private var spare: [UInt8] = []
    /// The size of the largest element: the memory `spare` is given when it is first needed, so
    /// that it is allocated (and faulted in) once, not again for every larger element.
    let largestElement: Int

    init(path: String?, container: ContainerFormat, properties: [BriefcaseProperty], headerPadding: ByteString, elements: [Stored]) {
        self.path = path
        self.container = container
        self.properties = properties
        self.headerPadding = headerPadding
        self.elements = elements
        largestElement = elements.lazy.map(\.range.count).max() ?? 0
    }

    /// Opens a `DABRC600` file (`.dabriefcase`) or a bare Bin2 stream (`.bin2`): header,
    /// properties and index only. A broken header or index fails here, naming the file.
    public static func open(_ path: String, as container: ContainerFormat) throws(BriefcaseError) -> BriefcaseElements {
        do throws(BriefcaseError) {
            return try BriefcaseElements(.file(try RandomAccessFile(path: path)), as: container)
        } catch {
            throw error.file == nil ? error.inFile(path) : error
        }
    }

    /// Reads the header, properties and index of a `DABRC600` file or bare Bin2 stream held in
    /// memory; elements are decoded straight from `bytes` (their values are slices of it).
    public convenience init(bytes: [UInt8], as container: ContainerFormat) throws(BriefcaseError) {
        try self.init(.memory(bytes), as: container)
    }

    convenience init(_ source: BriefcaseSource, as container: ContainerFormat) throws(BriefcaseError) {
        var properties: [BriefcaseProperty] = [], padding = ByteString.empty, streamStart = 0, prefix: [UInt8] = []
        var warnings: [DecodingWarning] = []
        if container == .dabriefcase {
            let header: BriefcaseFileCodec.Header
            (header, prefix) = try source.header()
            (properties, padding, streamStart) = (header.properties, header.headerPadding, header.dataOffset)
        }
        let index = try source.index(streamStart: streamStart, prefix: prefix)
        if let trailing = index.trailingBytesWarning { warnings.append(trailing) }
        if !padding.isEmpty {
            warnings.append(DecodingWarning(message: "\(padding.count) bytes between the properties and the data offset",
                                            offset: streamStart - padding.count))
        }
        self.init(source, container: container, properties: properties, headerPadding: padding, index: index)
        containerWarnings = warnings
    }

    /// The elements of `index`, whose header and index were read already.
    convenience init(_ source: BriefcaseSource, container: ContainerFormat, properties: [BriefcaseProperty],
                     headerPadding: ByteString, index: ElementIndex) {
        let extent = index.entries.lazy.map(\.range.upperBound).max() ?? 0
        let elements = index.entries.map {
            Stored(kind: $0.kind, name: $0.name, source: source, indexEntry: $0, positionBase: index.positionBase, mappedExtent: extent)
        }
        self.init(path: source.path, container: container, properties: properties, headerPadding: headerPadding, elements: elements)
    }

    /// The elements of a briefcase opened with `Briefcase.open` whose tables were not loaded, in
    /// the order of `briefcase.document()` (each table's elements in their order). Tables already
    /// loaded or added are not on disk: that is a programming error.
    public convenience init(_ briefcase: Briefcase) {
        var elements: [Stored] = []
        for entry in briefcase.entries {
            guard let source = entry.source, entry.loaded == nil else {
                preconditionFailure("BriefcaseElements needs a freshly opened briefcase (tables not loaded)")
            }
            elements += source.parts(deltaFirst: entry.deltaFirst).map { source.reader.elements[$0] }
        }
        self.init(path: briefcase.path, container: .dabriefcase, properties: briefcase.properties, headerPadding: briefcase.headerPadding,
                  elements: elements)
        if briefcase.kind == .folder { folderCodePage = briefcase.codePage }
    }

    /// Reads and decodes element `i`; its warnings (also those before a failure) are appended to
    /// `warnings`. Errors name the
    /// file, the element and the byte offset (in that file). With `reusingMemory` (what a
    /// conversion wants: it drops each element before the next), the element is read into the
    /// memory of the one before when nothing holds that any more.
    public func decode(_ i: Int, warnings: inout [DecodingWarning], reusingMemory: Bool = true) throws(BriefcaseError) -> Element {
        reusingMemory ? try elements[i].decode(warnings: &warnings, reusing: &spare, minimumCapacity: largestElement)
                      : try elements[i].decode(warnings: &warnings)
    }

    /// Reads element `i` with `reading`, into the memory of the one before.
    func read<Reading: ElementReading>(_ i: Int, _ reading: Reading, warnings: inout [DecodingWarning]) throws(BriefcaseError) -> Reading.Product {
        try elements[i].read(reading, warnings: &warnings, reusing: &spare, minimumCapacity: largestElement)
    }

    /// Every element decoded, in order: the whole document, with the elements' warnings and then
    /// the container's appended to `warnings`.
    public func document(warnings: inout [DecodingWarning]) throws(BriefcaseError) -> BriefcaseDocument {
        var stream = Bin2Stream()
        stream.elements.reserveCapacity(elements.count)
        for i in elements.indices { stream.elements.append(try decode(i, warnings: &warnings, reusingMemory: false)) }
        warnings += containerWarnings
        return BriefcaseDocument(container: container, file: BriefcaseFile(properties: properties, stream: stream, headerPadding: headerPadding))
    }

    /// The head of element `i`: a table without rows, a delta without changes (what code page
    /// detection looks at before the rows).
    public func head(_ i: Int) throws(BriefcaseError) -> Element {
        try summary(i).head
    }

    /// What `info` shows of element `i`, from its head: rows and changes are counted, not read.
    /// From a file it reads 64 KiB first, more only when the head needs it.
    public func summary(_ i: Int) throws(BriefcaseError) -> ElementSummary {
        let read = try headRead(i), stored = elements[i]
        switch read.head {
        case .table(let head):
            return ElementSummary(kind: .table, name: stored.name, table: head.table, rowCount: head.rowCount,
                                  delta: nil, changeCount: 0, range: stored.range)
        case .delta(let delta, let changeCount):
            return ElementSummary(kind: .delta, name: stored.name, table: nil, rowCount: 0,
                                  delta: delta, changeCount: changeCount, range: stored.range)
        }
    }

    /// The head of element `i` as decoding its body can go on from it (`ElementHeadRead`).
    func headRead(_ i: Int) throws(BriefcaseError) -> ElementHeadRead {
        try readHead(i) { stored, decoder, reader throws(BriefcaseError) in
            let end = stored.range.upperBound
            let head: ElementHeadRead.Head
            switch stored.kind {
            case .table: head = .table(try decoder.decodeTableHead(&reader, name: stored.name, positionBase: stored.positionBase, elementEnd: end))
            case .delta:
                let read = try decoder.decodeDeltaHead(&reader, name: stored.name, elementEnd: end)
                head = .delta(read.delta, changeCount: read.changeCount)
            }
            return ElementHeadRead(head: head, end: reader.readerIndex, warnings: decoder.warnings)
        }
    }

    /// Decodes the head of element `i` with `decode`, over its first 64 KiB from a file, four
    /// times more each time the head does not fit (errors name the element and the file).
    func readHead<T>(_ i: Int, _ decode: (Stored, inout Bin2Decoder, inout ByteReader) throws(BriefcaseError) -> T) throws(BriefcaseError) -> T {
        let stored = elements[i]
        let range = stored.range
        var length: Int
        if case .memory = stored.source { length = range.count } else { length = min(range.count, 1 << 16) }
        while true {
            let (bytes, base) = try stored.source.bytes(range.lowerBound ..< range.lowerBound + length)
            var decoder = Bin2Decoder(bytes: bytes, base: base)
            var reader = ByteReader(bytes: bytes, base: base, readerIndex: range.lowerBound, endIndex: range.lowerBound + length)
            do throws(BriefcaseError) {
                return try decode(stored, &decoder, &reader)
            } catch {
                guard length < range.count else {
                    let located = error.inElement(stored.label)
                    guard let path = stored.path else { throw located }
                    throw located.inFile(path)
                }
                length = min(range.count, length * 4)
            }
        }
    }
}

/// What `info` shows of an element without decoding rows or changes.
public struct ElementSummary: Sendable {
    /// Table or delta.
    public var kind: ElementKind
    /// The element's name as stored (8-bit).
    public var name: ByteString
    /// Tables: schema, fields (the `rows` are empty).
    public var table: Table?
    /// Tables: how many rows are stored.
    public var rowCount: Int
    /// Deltas: the header (logged fields, key fields) with no changes, and the change count.
    public var delta: Delta?
    /// Deltas: how many changes are stored.
    public var changeCount: Int
    /// The body's byte range in the file.
    public var range: Range<Int>

    /// The element without rows or changes.
    public var head: Element { kind == .table ? .table(table!) : .delta(delta!) }
}
