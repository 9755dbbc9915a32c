#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder briefcase as a sink (Spec/folder-briefcase.md): one `DABRC600` file per table —
/// its dataset and its delta together — written with `FolderWriter` into `path`, then
/// `Properties.plist`. The folder is made new: anything already at `path` is an error
/// (`BriefcaseError.outputExists`), unless `replacing`, which writes into an existing folder,
/// replacing its files of the same names (such as the temporary folder of an atomic conversion).
/// It asks for each table's elements together (`prepare(heads:)`), so memory holds one table;
/// file names are given for every table of the heads, damaged ones (left out by the source)
/// included. `abandon` removes the files written, and the folder when the sink made it.
public struct FolderSink: BriefcaseSink {
    /// The folder briefcase to write.
    public let path: String
    /// Whether an existing folder at `path` is written into.
    public let replacing: Bool
    private var groups: [(name: ByteString, dataset: Int?, delta: Int?, deltaFirst: Bool)] = []
    private var groupOf: [Int] = []
    private var folder: FolderWriter?
    private var head: BriefcaseHead?
    private var pending: (group: Int, elements: [Element])?
    /// The tables whose files were written.
    private var written: [Int] = []

    /// A sink that writes the folder briefcase at `path`: a new folder, or with `replacing` an
    /// existing one written into.
    public init(path: String, replacing: Bool = false) {
        self.path = path
        self.replacing = replacing
    }

    public var needs: SinkNeeds { SinkNeeds(headsFirst: true) }

    public mutating func prepare(heads: [Element]) throws(BriefcaseError) -> [Int]? {
        groups = Briefcase.Entry.group(Array(heads.indices), kind: { heads[$0].kind }, name: { heads[$0].name })
        groupOf = Array(repeating: 0, count: heads.count)
        var order: [Int] = []
        for (g, group) in groups.enumerated() {
            for i in (group.deltaFirst ? [group.delta, group.dataset] : [group.dataset, group.delta]).compactMap({ $0 }) {
                order.append(i)
                groupOf[i] = g
            }
        }
        return order
    }

    /// Starts writing the folder, its table files named from the heads in the head's code page.
    public mutating func begin(_ head: BriefcaseHead) throws(BriefcaseError) {
        self.head = head
        pending = nil
        written = []
        // (Begun again after `abandon`: the folder this sink made is gone, so it makes it again.)
        folder = try FolderWriter(path: path, tableNames: groups.map { head.codePage.decodeForDisplay($0.name) }, replacing: replacing)
    }

    /// Refused: a folder is written from a source that gives positions (`element(_:at:)`).
    public mutating func element(_ element: Element) throws(BriefcaseError) {
        throw BriefcaseError(.invalidModel, "internal: a folder is written from a source that gives positions")
    }

    public mutating func element(_ element: Element, at position: Int) throws(BriefcaseError) {
        if let current = pending, current.group != groupOf[position] { try flush() }
        if pending == nil { pending = (groupOf[position], []) }
        pending!.elements.append(element)
    }

    /// Writes the last table file and `Properties.plist`.
    public mutating func finish() throws(BriefcaseError) {
        try flush()
        guard let folder, let head else { throw BriefcaseError(.invalidModel, "internal: a folder finished before it began") }
        try folder.writeProperties(try FolderWriter.propertiesPlist(head.properties, codePage: head.codePage))
    }

    /// Removes the table files written — and the folder when this sink made it — so that the
    /// source can begin again. (In an existing folder, with `replacing`, a file written replaced
    /// the one of the same name: that one is gone already.)
    public mutating func abandon() {
        pending = nil
        if let folder {
            for table in written { unlink(systemPath(folder.filePath(table))) }
            if !folder.replacing {
                unlink(systemPath(folder.path + "/" + Briefcase.propertiesFileName))
                rmdir(systemPath(folder.path))
            }
        }
        written = []
        folder = nil
    }

    /// Writes the table whose elements were gathered.
    private mutating func flush() throws(BriefcaseError) {
        guard let (group, parts) = pending, let folder, let head else { return }
        pending = nil
        do throws(BriefcaseError) {
            try folder.writeTable(group) { writer throws(BriefcaseError) in
                for element in parts { try writer.write(element) }
            }
            written.append(group)
        } catch {
            throw error.kind == .io ? error : error.inElement(head.codePage.decodeForDisplay(groups[group].name))
        }
    }
}
