import Foundation

extension Briefcase {
    /// Opens whatever is at `path`: a folder briefcase for a directory, else a single file.
    public static func open(_ path: String, codePage: CodePage? = nil) throws(BriefcaseError) -> Briefcase {
        guard let isDirectory = FileIO.isDirectory(path) else {
            throw BriefcaseError(.io, "no such file or folder", file: path)
        }
        return isDirectory ? try openFolder(path, codePage: codePage) : try openFile(path, codePage: codePage)
    }

    /// Opens a single-file briefcase, reading its header, properties and element index only.
    public static func openFile(_ path: String, codePage: CodePage? = nil) throws(BriefcaseError) -> Briefcase {
        do throws(BriefcaseError) {
            let (file, reader) = try openReader(path)
            let briefcase = Briefcase(path: path, kind: .file, properties: reader.properties, codePage: codePage)
            briefcase.headerPadding = reader.headerPadding
            briefcase.entries = entries(for: reader, in: file, folderFileName: nil)
            return briefcase
        } catch {
            throw error.file == nil ? error.inFile(path) : error
        }
    }

    /// Opens a folder briefcase: `Properties.plist` and the index of every `*.daBriefcase` file in
    /// it (in file-name order). Other files are ignored (and left alone by `write()`).
    public static func openFolder(_ path: String, codePage: CodePage? = nil) throws(BriefcaseError) -> Briefcase {
        guard let names = FileIO.directoryEntries(path) else { throw BriefcaseError(.io, "cannot list the folder", file: path) }
        let briefcase = Briefcase(path: path, kind: .folder, properties: [], codePage: codePage)
        for name in names.sorted() where name.lowercased().hasSuffix("." + fileExtension.lowercased()) && !name.hasPrefix(".") {
            let filePath = path + "/" + name
            do throws(BriefcaseError) {
                let (file, reader) = try openReader(filePath)
                briefcase.entries += entries(for: reader, in: file, folderFileName: name)
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

    /// The element reader of the single file at `path` (header, properties, index), and the file.
    static func openReader(_ path: String) throws(BriefcaseError) -> (RandomAccessFile, BriefcaseElements) {
        let file = try RandomAccessFile(path: path)
        return (file, try BriefcaseElements(.file(file), as: .dabriefcase))
    }

    /// The file's tables: its elements grouped by name (a dataset and its delta).
    static func entries(for reader: BriefcaseElements, in file: RandomAccessFile, folderFileName: String?) -> [Entry] {
        Entry.group(Array(reader.elements.indices), kind: { reader.elements[$0].kind }, name: { reader.elements[$0].name }).map { group in
            let source = Source(file: file, reader: reader, dataset: group.dataset, delta: group.delta, folderFileName: folderFileName)
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
        /// The table's name, as its first element spells it.
        public var name: ByteString
        /// The dataset's schema and fields (no rows); nil when the table has only a delta.
        public var dataset: Table?
        /// How many rows the dataset stores.
        public var rowCount: Int
        /// The delta's header (no changes); nil when there are no pending changes.
        public var delta: Delta?
        /// How many pending changes the delta holds.
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
            if let dataset = source.dataset {
                let head = try source.reader.summary(dataset)
                summary.dataset = head.table
                summary.rowCount = head.rowCount
            }
            if let delta = source.delta {
                let head = try source.reader.summary(delta)
                summary.delta = head.delta
                summary.changeCount = head.changeCount
            }
            summaries.append(summary)
        }
        return summaries
    }
}
