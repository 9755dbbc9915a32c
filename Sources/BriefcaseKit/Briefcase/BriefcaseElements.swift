/// The elements of a briefcase on disk, decoded one at a time: what converting a large briefcase
/// element by element needs (Spec/robustness.md, "Streaming conversion"). Opening reads the
/// header, the properties and the element index; `decode(_:)` reads one element with `pread` and
/// decodes it, so a conversion holds the input's index plus one table, never the whole model.
///
/// The order is the order of the document `BriefcaseDocument.decode` (a single file or a bare
/// Bin2 stream: index order) or `Briefcase.document()` (a folder: table by table) would give, so
/// writing the elements in turn gives the same output as writing that document.
public final class BriefcaseElements {
    /// One element on disk.
    public struct Stored: Sendable {
        public var kind: ElementKind
        public var name: ByteString
        let file: RandomAccessFile
        let indexEntry: ElementIndex.Entry
        let positionBase: Int
        /// The file the element is in (a folder's table file, or the briefcase itself).
        public var path: String { file.path }
        /// The element's bytes in that file.
        public var range: Range<Int> { indexEntry.range }
        /// The name as text for messages (the UTF-8 reading, as the decoder names elements).
        public var label: String { String(decoding: name.bytes, as: UTF8.self) }
    }

    public let path: String
    public let container: ContainerFormat
    public let properties: [BriefcaseProperty]
    public let headerPadding: ByteString
    public let elements: [Stored]
    /// Warnings about the container itself (bytes between properties and data), reported after
    /// the elements' warnings as `BriefcaseFileCodec.decode` does.
    public let containerWarnings: [DecodingWarning]
    /// The code page a folder's `Properties.plist` was read with (nil for single files).
    public let folderCodePage: CodePage?
    /// The memory of the last element read, reused for the next once that element is gone.
    private var spare: [UInt8] = []

    init(path: String, container: ContainerFormat, properties: [BriefcaseProperty], headerPadding: ByteString,
         elements: [Stored], containerWarnings: [DecodingWarning], folderCodePage: CodePage?) {
        self.path = path
        self.container = container
        self.properties = properties
        self.headerPadding = headerPadding
        self.elements = elements
        self.containerWarnings = containerWarnings
        self.folderCodePage = folderCodePage
    }

    /// Opens a `DABRC600` file (`.dabriefcase`) or a bare Bin2 stream (`.bin2`): header,
    /// properties and index only. A broken header or index fails here, naming the file.
    public static func open(_ path: String, as container: ContainerFormat) throws(BriefcaseError) -> BriefcaseElements {
        do throws(BriefcaseError) {
            let file = try RandomAccessFile(path: path)
            switch container {
            case .dabriefcase:
                let (header, index) = try Briefcase.readHeaderAndIndex(file)
                var warnings = index.trailingBytesWarning.map { [$0] } ?? []
                if !header.headerPadding.isEmpty {
                    warnings.append(DecodingWarning(message: "\(header.headerPadding.count) bytes between the properties and the data offset",
                                                    offset: header.dataOffset - header.headerPadding.count))
                }
                return BriefcaseElements(path: path, container: .dabriefcase, properties: header.properties, headerPadding: header.headerPadding,
                                         elements: stored(index, file), containerWarnings: warnings, folderCodePage: nil)
            case .bin2:
                let index = try Briefcase.readIndex(file, streamStart: 0, prefix: [])
                return BriefcaseElements(path: path, container: .bin2, properties: [], headerPadding: .empty,
                                         elements: stored(index, file), containerWarnings: index.trailingBytesWarning.map { [$0] } ?? [],
                                         folderCodePage: nil)
            }
        } catch {
            throw error.file == nil ? error.inFile(path) : error
        }
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
            let parts = entry.deltaFirst ? [source.delta, source.dataset] : [source.dataset, source.delta]
            for case let located? in parts {
                elements.append(Stored(kind: located.indexEntry.kind, name: located.indexEntry.name, file: source.file,
                                       indexEntry: located.indexEntry, positionBase: source.index.positionBase))
            }
        }
        self.init(path: briefcase.path, container: .dabriefcase, properties: briefcase.properties, headerPadding: briefcase.headerPadding,
                  elements: elements, containerWarnings: [], folderCodePage: briefcase.kind == .folder ? briefcase.codePage : nil)
    }

    private static func stored(_ index: ElementIndex, _ file: RandomAccessFile) -> [Stored] {
        index.entries.map { Stored(kind: $0.kind, name: $0.name, file: file, indexEntry: $0, positionBase: index.positionBase) }
    }

    /// Reads and decodes element `i`; its warnings are appended to `warnings`. Errors name the
    /// file, the element and the byte offset (in that file).
    public func decode(_ i: Int, warnings: inout [DecodingWarning]) throws(BriefcaseError) -> Element {
        let stored = elements[i]
        do throws(BriefcaseError) {
            let bytes = try stored.file.read(stored.range, reusing: &spare)
            var decoder = Bin2Decoder(bytes: bytes, base: stored.range.lowerBound)
            let index = ElementIndex(entries: [], streamStart: 0, indexPosition: 0, positionBase: stored.positionBase)
            let element = try decoder.decodeElement(stored.indexEntry, in: index)
            warnings += decoder.warnings
            return element
        } catch {
            throw error.file == nil ? error.inFile(stored.file.path) : error
        }
    }

    /// The head of element `i`: a table without rows, a delta without changes (what code page
    /// detection looks at before the rows).
    public func head(_ i: Int) throws(BriefcaseError) -> Element {
        let summary = try self.summary(i)
        return summary.kind == .table ? .table(summary.table!) : .delta(summary.delta!)
    }

    /// What `info` shows of element `i`, from its head: reads 64 KiB first, more only when the
    /// head needs it; rows and changes are counted, not read.
    public func summary(_ i: Int) throws(BriefcaseError) -> ElementSummary {
        let stored = elements[i]
        let range = stored.range
        var length = min(range.count, 1 << 16)
        while true {
            let bytes = try stored.file.read(range.lowerBound ..< range.lowerBound + length)
            var decoder = Bin2Decoder(bytes: bytes, base: range.lowerBound)
            var reader = ByteReader(bytes: bytes, base: range.lowerBound)
            do throws(BriefcaseError) {
                switch stored.kind {
                case .table:
                    let head = try decoder.decodeTableHead(&reader, name: stored.name, positionBase: stored.positionBase, elementEnd: range.upperBound)
                    return ElementSummary(kind: .table, name: stored.name, table: head.table, rowCount: head.rowCount,
                                          delta: nil, changeCount: 0, range: range)
                case .delta:
                    let head = try decoder.decodeDeltaHead(&reader, name: stored.name, elementEnd: range.upperBound)
                    return ElementSummary(kind: .delta, name: stored.name, table: nil, rowCount: 0,
                                          delta: head.delta, changeCount: head.changeCount, range: range)
                }
            } catch {
                guard length < range.count else { throw error.inElement(stored.label).inFile(stored.file.path) }
                length = min(range.count, length * 4)
            }
        }
    }
}
