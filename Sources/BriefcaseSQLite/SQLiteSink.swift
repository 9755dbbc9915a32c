import BriefcaseKit
#if canImport(Glibc)
import Glibc
#endif

/// The SQLite format's writer (Spec/sqlite-mapping.md): a sink that makes a database of the
/// briefcase — each table's current rows in an SQL table of its own name, and beside them the
/// tables that give the file back (`_briefcase…`). It takes the elements in stream order, one at
/// a time: the first table of a name is paired with the first delta of that name, whichever
/// comes first (a delta before its table, as .NET writes them, waits for it; a table written
/// before its delta has its current rows made again when the delta comes). Everything is
/// written with prepared statements in one transaction.
public struct SQLiteSink: BriefcaseSink {
    /// The database file (empty or absent), or nil for a private temporary one (`query`).
    public let path: String?
    /// After `finish`: the private temporary database (nil for a file, which `finish` closes).
    public private(set) var database: SQLiteDatabase?
    var writer: SQLiteTableWriter?
    /// Names (ASCII lower-cased bytes) of the tables and deltas seen.
    var tablesSeen: Set<[UInt8]> = []
    var deltasSeen: Set<[UInt8]> = []
    /// The first delta of a name whose table has not come yet.
    var early: [[UInt8]: Delta] = [:]
    /// The first table of a name, written before any delta of that name: its position.
    var writtenAlone: [[UInt8]: Int] = [:]
    /// Positions given without one (a source that does not number its elements).
    var nextPosition = 0

    /// A sink that writes a new database at `path` (an empty or absent file), or a private temporary one (nil).
    public init(path: String?) {
        self.path = path
    }

    /// Opens the database and writes the head (`_briefcase`, `_briefcase_properties`).
    public mutating func begin(_ head: BriefcaseHead) throws(BriefcaseError) {
        close()
        let opened = try SQLiteDatabase(path: path ?? ":memory:", mode: path == nil ? .memory : .create)
        var writer = SQLiteTableWriter(database: opened, codePage: head.codePage)
        try writer.begin(head)
        self.writer = writer
    }

    /// Writes the next element (positions counted from 0).
    public mutating func element(_ element: Element) throws(BriefcaseError) {
        try self.element(element, at: nextPosition)
    }

    /// Writes the element at stream position `position`: its exact bytes and what shows it.
    public mutating func element(_ element: Element, at position: Int) throws(BriefcaseError) {
        guard writer != nil else { throw BriefcaseError(.invalidModel, "internal: an element before the briefcase began") }
        nextPosition = position + 1
        let key = nameKey(element.name)
        switch element {
        case .table(let table):
            guard tablesSeen.insert(key).inserted else {
                return try writer!.write(table: table, at: position, delta: nil)
            }
            if let delta = early.removeValue(forKey: key) {
                try writer!.write(table: table, at: position, delta: delta)
            } else {
                try writer!.write(table: table, at: position, delta: nil)
                if !deltasSeen.contains(key) { writtenAlone[key] = position }
            }
        case .delta(let stored):
            let delta = try writer!.write(delta: stored, at: position)  // (its changes decoded once, for the replay too)
            guard deltasSeen.insert(key).inserted else { return }
            if let table = writtenAlone.removeValue(forKey: key) {
                try writer!.attach(delta, toTableAt: table)
            } else if !tablesSeen.contains(key) {
                early[key] = delta
            }
        }
    }

    /// Commits the transaction; closes a database file (a temporary one stays open: `database`).
    public mutating func finish() throws(BriefcaseError) {
        guard writer != nil else { throw BriefcaseError(.invalidModel, "internal: a briefcase finished before it began") }
        try writer!.finish()
        let database = writer!.database
        writer = nil
        if path == nil { self.database = database }
    }

    /// Closes the database and empties the file, for a source that starts again or failed.
    public mutating func abandon() {
        close()
        if let path { truncate(systemPath(path), 0) }
    }

    private mutating func close() {
        writer = nil
        tablesSeen = []
        deltasSeen = []
        early = [:]
        writtenAlone = [:]
        nextPosition = 0
        database = nil
    }
}
