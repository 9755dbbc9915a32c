import Foundation

extension Briefcase {
    /// Opens whatever is at `path`: a folder briefcase for a directory, else a single file.
    public static func open(_ path: String, codePage: CodePage? = nil) throws(BriefcaseError) -> Briefcase {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw BriefcaseError(.io, "no such file or folder", file: path)
        }
        return isDirectory.boolValue ? try openFolder(path, codePage: codePage) : try openFile(path, codePage: codePage)
    }

    /// Opens a single-file briefcase, reading its header, properties and element index only.
    public static func openFile(_ path: String, codePage: CodePage? = nil) throws(BriefcaseError) -> Briefcase {
        do throws(BriefcaseError) {
            let file = try RandomAccessFile(path: path)
            let (header, index) = try readHeaderAndIndex(file)
            let briefcase = Briefcase(path: path, kind: .file, properties: header.properties, codePage: codePage)
            briefcase.headerPadding = header.headerPadding
            briefcase.entries = entries(for: index, in: file, folderFileName: nil)
            return briefcase
        } catch {
            throw error.file == nil ? error.inFile(path) : error
        }
    }

    /// Opens a folder briefcase: `Properties.plist` and the index of every `*.daBriefcase` file in
    /// it (in file-name order). Other files are ignored (and left alone by `write()`).
    public static func openFolder(_ path: String, codePage: CodePage? = nil) throws(BriefcaseError) -> Briefcase {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw BriefcaseError(.io, "cannot list the folder", file: path)
        }
        let briefcase = Briefcase(path: path, kind: .folder, properties: [], codePage: codePage)
        for name in names.sorted() where name.lowercased().hasSuffix("." + fileExtension.lowercased()) && !name.hasPrefix(".") {
            let filePath = path + "/" + name
            do throws(BriefcaseError) {
                let file = try RandomAccessFile(path: filePath)
                let (_, index) = try readHeaderAndIndex(file)
                briefcase.entries += entries(for: index, in: file, folderFileName: name)
                briefcase.tableFilesOnDisk.insert(name)
            } catch {
                throw error.file == nil ? error.inFile(filePath) : error
            }
        }
        let plistPath = path + "/" + propertiesFileName
        // Anything by that name, a dangling symlink too, is read (and refused when it cannot be),
        // as `validate` does: a properties file is never skipped silently.
        if FileIO.exists(plistPath) {
            let data = try FileIO.read(plistPath)
            do throws(BriefcaseError) {
                for (key, value) in try PropertiesPlist.decode(data) {
                    let name = briefcase.codePage.encode(key) ?? ByteString(utf8: key)
                    switch value {
                    case .string(let text):
                        briefcase.properties.append(BriefcaseProperty(name: name, value: briefcase.codePage.encode(text) ?? ByteString(utf8: text)))
                    case .data(let bytes):
                        briefcase.properties.append(BriefcaseProperty(name: name, value: ByteString(bytes)))
                    }
                }
            } catch {
                throw error.inFile(plistPath)
            }
        }
        return briefcase
    }

    /// The header and the element index, read in pieces (the rows are not read).
    static func readHeaderAndIndex(_ file: RandomAccessFile) throws(BriefcaseError) -> (BriefcaseFileCodec.Header, ElementIndex) {
        var prefix: [UInt8] = []
        let header = try readHeader(file, prefix: &prefix)
        return (header, try readIndex(file, streamStart: header.dataOffset, prefix: prefix))
    }

    /// The `DABRC600` header and properties: 64 KiB first, more when the properties need it.
    static func readHeader(_ file: RandomAccessFile) throws(BriefcaseError) -> BriefcaseFileCodec.Header {
        var prefix: [UInt8] = []
        return try readHeader(file, prefix: &prefix)
    }

    private static func readHeader(_ file: RandomAccessFile, prefix: inout [UInt8]) throws(BriefcaseError) -> BriefcaseFileCodec.Header {
        prefix = try file.read(0 ..< min(file.size, 1 << 16))
        while true {
            do throws(BriefcaseError) {
                return try BriefcaseFileCodec.readHeader(prefix, fileSize: file.size)
            } catch {
                // A property block larger than what was read: read more.
                guard error.kind == .truncated, prefix.count < file.size else { throw error }
                prefix = try file.read(0 ..< min(file.size, prefix.count * 4))
            }
        }
    }

    /// The element index of the Bin2 stream at `streamStart`, read by offset (what follows the
    /// index is not read). `prefix` holds the file's first bytes when already read.
    static func readIndex(_ file: RandomAccessFile, streamStart: Int, prefix: [UInt8]) throws(BriefcaseError) -> ElementIndex {
        let headerReader = streamStart + 12 <= prefix.count
            ? ByteReader(bytes: prefix, readerIndex: streamStart)
            : try file.reader(streamStart ..< streamStart + 12)
        return try ElementIndex.read(header: headerReader, end: file.size) { range throws(BriefcaseError) in
            try file.reader(range)
        }
    }

    static func entries(for index: ElementIndex, in file: RandomAccessFile, folderFileName: String?) -> [Entry] {
        Entry.group(index.entries, kind: \.kind, name: \.name).map { group in
            let source = Source(file: file, index: index,
                                dataset: group.dataset.map { Source.Located(indexEntry: $0) },
                                delta: group.delta.map { Source.Located(indexEntry: $0) },
                                folderFileName: folderFileName)
            return Entry(name: group.name, loaded: nil, source: source, deltaFirst: group.deltaFirst)
        }
    }

    /// The code page as far as the names in the index tell (UTF-8 when they are all valid UTF-8).
    func detectCodePageFromNames() -> CodePage {
        let names = entries.map { Element.delta(Delta(name: $0.name, loggedFields: [])) }
        return CodePage.detect(in: Bin2Stream(elements: names), properties: properties).codePage
    }

    /// The code page as the tables' heads (schema `Name` values against row descriptor names)
    /// reveal it: reads each table's schema and descriptors, not its rows.
    func detectCodePageFromHeads() throws(BriefcaseError) -> CodePage {
        var elements: [Element] = []
        for summary in try tableSummaries() {
            if let dataset = summary.dataset { elements.append(.table(dataset)) }
            if let delta = summary.delta { elements.append(.delta(delta)) }
        }
        return CodePage.detect(in: Bin2Stream(elements: elements), properties: properties).codePage
    }

    /// What `info` shows of one table: its dataset without rows, its delta without changes.
    public struct TableSummary: Sendable {
        public var name: ByteString
        public var dataset: Table?
        public var rowCount: Int
        public var delta: Delta?
        public var changeCount: Int
    }

    /// Every table's schema, columns, row count and delta header, read from the heads of the
    /// elements only (unloaded tables are not decoded, their rows not read).
    public func tableSummaries() throws(BriefcaseError) -> [TableSummary] {
        var summaries: [TableSummary] = []
        for entry in entries {
            if let loaded = entry.loaded {
                summaries.append(TableSummary(name: entry.name, dataset: loaded.dataset.map { var t = $0; t.rows = []; return t },
                                              rowCount: loaded.dataset?.rows.count ?? 0,
                                              delta: loaded.delta.map { var d = $0; d.changes = []; return d },
                                              changeCount: loaded.delta?.changes.count ?? 0))
                continue
            }
            guard let source = entry.source else { continue }
            var summary = TableSummary(name: entry.name, dataset: nil, rowCount: 0, delta: nil, changeCount: 0)
            if let located = source.dataset {
                let head = try readHead(located, source) { decoder, reader throws(BriefcaseError) in
                    try decoder.decodeTableHead(&reader, name: located.indexEntry.name, positionBase: source.index.positionBase,
                                               elementEnd: located.range.upperBound)
                }
                summary.dataset = head.table
                summary.rowCount = head.rowCount
            }
            if let located = source.delta {
                let head = try readHead(located, source) { decoder, reader throws(BriefcaseError) in
                    try decoder.decodeDeltaHead(&reader, name: located.indexEntry.name, elementEnd: located.range.upperBound)
                }
                summary.delta = head.delta
                summary.changeCount = head.changeCount
            }
            summaries.append(summary)
        }
        return summaries
    }

    /// Decodes the start of an element from as few bytes as possible: 64 KiB first, more if the
    /// head (or a count check against the bytes read) needs it.
    private func readHead<T>(_ located: Source.Located, _ source: Source,
                             _ decode: (inout Bin2Decoder, inout ByteReader) throws(BriefcaseError) -> T) throws(BriefcaseError) -> T {
        let range = located.range
        var length = min(range.count, 1 << 16)
        while true {
            let bytes = try source.file.read(range.lowerBound ..< range.lowerBound + length)
            var decoder = Bin2Decoder(bytes: bytes, base: range.lowerBound)
            var reader = ByteReader(bytes: bytes, base: range.lowerBound)
            do throws(BriefcaseError) {
                return try decode(&decoder, &reader)
            } catch {
                guard length < range.count else {
                    // Not `codePage`: detecting it reads heads, which is what failed.
                    throw error.inElement(String(decoding: located.indexEntry.name.bytes, as: UTF8.self)).inFile(source.file.path)
                }
                length = min(range.count, length * 4)
            }
        }
    }
}
