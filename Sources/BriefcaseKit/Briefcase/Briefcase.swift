#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A briefcase as Data Abstract apps use it: a single `.daBriefcase` file or a `.briefcase`
/// folder, opened lazily. Opening reads the header, the properties and the element index only;
/// a table is decoded the first time it is asked for and then cached; `write()` carries tables
/// that were never loaded over as their raw bytes, without decoding them.
///
/// ```swift
/// let briefcase = try Briefcase.open("Orders.daBriefcase")
/// let orders = try briefcase.table(named: "Orders")      // decoded now, cached
/// briefcase.setProperty("LastSync", "2026-11-21")
/// try briefcase.write()                                   // atomic: temporary file + rename
/// ```
public final class Briefcase {
    /// Which of the two forms a briefcase takes on disk.
    public enum Kind: String, Sendable {
        /// A `DABRC600` single file.
        case file
        /// A folder of per-table single files and `Properties.plist`.
        case folder
    }

    /// `daBriefcase`: the default extension of single-file briefcases.
    public static let fileExtension = "daBriefcase"
    /// `briefcase`: the default extension of folder briefcases.
    public static let folderExtension = "briefcase"
    /// `Properties.plist`: the file of a folder briefcase's properties.
    public static let propertiesFileName = "Properties.plist"

    /// Where the briefcase lives: the file, or the folder.
    public internal(set) var path: String
    /// A single file or a folder.
    public internal(set) var kind: Kind
    /// Ordered name/value pairs in the briefcase's code page; edit freely, then `write()`.
    public var properties: [BriefcaseProperty]
    /// Bytes between a single file's properties and its data (none in known files), kept.
    public var headerPadding: ByteString = .empty
    /// The code page used by the `String` conveniences (names, properties) and for
    /// `Properties.plist`. Unless set (or given when opening), it is detected on first use from
    /// the tables' heads (schema `Name` values against row descriptor names).
    public var codePage: CodePage {
        get {
            if let chosenCodePage { return chosenCodePage }
            let detected = (try? detectCodePageFromHeads()) ?? detectCodePageFromNames()
            chosenCodePage = detected
            return detected
        }
        set { chosenCodePage = newValue }
    }
    var chosenCodePage: CodePage?

    var entries: [Entry] = []
    /// Folder: table files that belong to the briefcase on disk (deleted when their table goes).
    var tableFilesOnDisk: Set<String> = []
    /// How many times a table was decoded (tests check the cache with it).
    var tableDecodeCount = 0

    init(path: String, kind: Kind, properties: [BriefcaseProperty], codePage: CodePage?) {
        self.path = path
        self.kind = kind
        self.properties = properties
        self.chosenCodePage = codePage
    }

    /// A new, empty briefcase that will be written to `path` (nothing is written until `write()`).
    public convenience init(newAt path: String, kind: Kind, codePage: CodePage? = .utf8) {
        self.init(path: path, kind: kind, properties: [], codePage: codePage)
    }

    // MARK: tables

    /// The names of the tables (as their first element, usually the delta, spells them), in order.
    public var tableNames: [String] { entries.map { codePage.decodeForDisplay($0.name) } }
    /// How many tables the briefcase holds.
    public var tableCount: Int { entries.count }

    /// The table at `index`, decoded on first use and cached.
    public func table(at index: Int) throws(BriefcaseError) -> BriefcaseTable {
        guard entries.indices.contains(index) else {
            throw BriefcaseError(.invalidModel, "no table at index \(index) (the briefcase has \(entries.count))", file: path)
        }
        return try load(entries[index])
    }

    /// The table named `name` (case-insensitive), decoded on first use and cached; nil if none.
    public func table(named name: String) throws(BriefcaseError) -> BriefcaseTable? {
        guard let index = index(of: name) else { return nil }
        return try load(entries[index])
    }

    /// The position of the table `table(named:)` finds, or nil.
    public func tableIndex(named name: String) -> Int? { index(of: name) }

    /// Puts `table` (e.g. an edited copy of the table there) at `index`, in place of the table
    /// there: `write()` encodes it, while the tables never replaced are copied as their raw
    /// bytes, read or not. Its elements keep their order in the file; a delta new to the table
    /// goes before its dataset, as .NET writes them.
    public func setTable(_ table: BriefcaseTable, at index: Int) throws(BriefcaseError) {
        guard entries.indices.contains(index) else {
            throw BriefcaseError(.invalidModel, "no table at index \(index) (the briefcase has \(entries.count))", file: path)
        }
        let old = entries[index]
        let hadBoth = old.source.map { $0.dataset != nil && $0.delta != nil } ?? (old.loaded.map { $0.dataset != nil && $0.delta != nil } ?? false)
        entries[index] = Entry(name: table.name, loaded: table, source: nil, deltaFirst: hadBoth ? old.deltaFirst : true)
    }

    func index(of name: String) -> Int? {
        let wanted = name.lowercased()
        // The UTF-8 bytes first: needs no code page (so no detection, no reading).
        if let i = entries.firstIndex(where: { namesMatch($0.name, ByteString(utf8: name)) }) { return i }
        if let bytes = codePage.encode(name), let i = entries.firstIndex(where: { namesMatch($0.name, bytes) }) { return i }
        return entries.firstIndex { codePage.decodeForDisplay($0.name).lowercased() == wanted }
    }

    /// Forgets decoded tables: the next request decodes them again from the file. Tables added
    /// with `addTable` or `setTable` and not yet written stay (they exist nowhere else).
    public func clearTablesCache() {
        for entry in entries where entry.source != nil { entry.loaded = nil }
    }

    /// Adds a table; a table with the same name (case-insensitive) is replaced, as DABriefcase does.
    public func addTable(_ table: BriefcaseTable) {
        let entry = Entry(name: table.name, loaded: table, source: nil, deltaFirst: true)
        if let i = entries.firstIndex(where: { namesMatch($0.name, table.name) }) {
            entries[i] = entry
        } else {
            entries.append(entry)
        }
    }

    /// Removes the table named `name` (case-insensitive); false when there is none.
    @discardableResult
    public func removeTable(named name: String) -> Bool {
        guard let i = index(of: name) else { return false }
        entries.remove(at: i)
        return true
    }

    /// Removes every table (properties stay).
    public func removeAllTables() { entries.removeAll() }

    // MARK: properties

    /// The value of the first property named `name`, decoded with `codePage`.
    public func property(_ name: String) -> String? {
        properties.first { codePage.decodeForDisplay($0.name) == name }.map { codePage.decodeForDisplay($0.value) }
    }

    /// Sets (or appends) a property, encoding with `codePage` (UTF-8 when it cannot hold the text).
    public func setProperty(_ name: String, _ value: String) {
        let nameBytes = codePage.encode(name) ?? ByteString(utf8: name)
        let valueBytes = codePage.encode(value) ?? ByteString(utf8: value)
        if let i = properties.firstIndex(where: { $0.name == nameBytes }) {
            properties[i].value = valueBytes
        } else {
            properties.append(BriefcaseProperty(name: nameBytes, value: valueBytes))
        }
    }

    // MARK: whole briefcase

    /// Every table decoded, as the model of one single-file briefcase (elements in file order).
    public func document() throws(BriefcaseError) -> BriefcaseDocument {
        var stream = Bin2Stream()
        for entry in entries { stream.elements += try load(entry).elements(deltaFirst: entry.deltaFirst) }
        return BriefcaseDocument(container: .dabriefcase, file: BriefcaseFile(properties: properties, stream: stream, headerPadding: headerPadding))
    }

    /// A briefcase at `path` holding `document`'s tables and properties (not yet written).
    public static func make(from document: BriefcaseDocument, at path: String, kind: Kind, codePage: CodePage) -> Briefcase {
        let briefcase = Briefcase(newAt: path, kind: kind, codePage: codePage)
        briefcase.properties = document.file.properties
        briefcase.headerPadding = document.file.headerPadding
        for group in Entry.group(document.file.stream.elements) {
            briefcase.entries.append(Entry(name: group.name, loaded: BriefcaseTable(dataset: group.dataset, delta: group.delta),
                                           source: nil, deltaFirst: group.deltaFirst))
        }
        return briefcase
    }

    /// Deletes the briefcase from disk (the file, or the folder's table files and
    /// `Properties.plist`; the folder itself when nothing else is left in it).
    public func delete() throws(BriefcaseError) {
        switch kind {
        case .file:
            guard unlink(systemPath(path)) == 0 || errno == ENOENT else { throw FileIO.ioError("cannot delete", path) }
        case .folder:
            for name in tableFilesOnDisk.union([Self.propertiesFileName]) {
                let file = path + "/" + name
                guard unlink(systemPath(file)) == 0 || errno == ENOENT else { throw FileIO.ioError("cannot delete", file) }
            }
            _ = rmdir(systemPath(path))
        }
        // Sources stay: their files are still open, so unloaded tables can still be read and
        // written again somewhere (the data lives until the last handle closes).
        tableFilesOnDisk = []
    }

    // MARK: loading

    /// The table of `entry`, decoded by its file's element reader on first use (its warnings
    /// are `validate`'s to report), then cached.
    func load(_ entry: Entry) throws(BriefcaseError) -> BriefcaseTable {
        if let loaded = entry.loaded { return loaded }
        guard let source = entry.source else { preconditionFailure("an entry without source is always loaded") }
        var dataset: Table?, delta: Delta?
        var warnings: [DecodingWarning] = []
        for i in source.parts(deltaFirst: false) {
            switch try source.reader.decode(i, warnings: &warnings, reusingMemory: false) {
            case .table(let table): dataset = table
            case .delta(let d): delta = d
            }
        }
        tableDecodeCount += 1
        let table = BriefcaseTable(dataset: dataset, delta: delta)
        entry.loaded = table
        return table
    }
}

extension Briefcase {
    /// Bytes read from disk so far through the files this briefcase has open (laziness checks).
    var bytesRead: Int {
        var seen = Set<ObjectIdentifier>()
        var total = 0
        for entry in entries {
            guard let file = entry.source?.file, seen.insert(ObjectIdentifier(file)).inserted else { continue }
            total += file.bytesRead
        }
        return total
    }
}
