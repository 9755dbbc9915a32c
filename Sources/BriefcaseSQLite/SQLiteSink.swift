import BriefcaseKit
#if canImport(Glibc)
import Glibc
#endif

/// The SQLite format's writer (Spec/sqlite-mapping.md): a sink that makes a database of the
/// briefcase — each table's current rows in an SQL table of its own name, and beside them the
/// tables that give the file back (`_briefcase…`). It takes the elements in stream order, one at
/// a time: a table and the delta paired with it (`ElementPairing`), whichever comes first (a
/// delta before its table, as .NET writes them, waits for it; a table written
/// before its delta has its current rows made again when the delta comes). Everything is
/// written with prepared statements in one transaction.
///
/// A database file is written as every output of this package is (`AtomicOutput`): into a
/// temporary file next to `path`, which `finish` moves to `path` once complete. Nothing at `path`
/// is written into or replaced unless `replacing`: one there at the start, or put there meanwhile,
/// is an error and stays as it is. `abandon` removes the temporary file.
public struct SQLiteSink: BriefcaseSink {
    /// The database file to make, or nil for a private temporary one (`query`).
    public let path: String?
    /// Whether `finish` may replace something at `path`.
    public let replacing: Bool
    /// After `finish`: the private temporary database (nil for a file, which `finish` closes).
    public private(set) var database: SQLiteDatabase?
    var writer: SQLiteTableWriter?
    /// The temporary file SQLite writes (at its `temporaryPath`), until `finish` puts it at
    /// `path`. Its descriptor stays open until SQLite has closed the database: closing any
    /// descriptor of a file drops every POSIX lock the process holds on it, SQLite's included.
    var file: SharedAtomicOutput?
    /// Names (ASCII lower-cased bytes) of the tables and deltas seen.
    var pairing = ElementPairing()
    /// The stream position of each element paired so far (by its place in `pairing`).
    var positions: [Int] = []
        /// Deltas that came before the table they are paired with, by position.
    var early: [Int: Delta] = [:]
    /// Positions given without one (a source that does not number its elements).
    var nextPosition = 0
    /// After `finish`: the tables and fields whose SQL name is not their own (taken, reserved,
    /// holding NUL, or alike another's without ASCII case), in stream order (Spec/sqlite-mapping.md §2).
    public private(set) var derivedNames: [DerivedName] = []
    /// Where the time goes, phase by phase, when set (the bench's measurement).
    package var phases: SQLiteWritePhases?

    /// A table (`field` nil) or a field of it whose SQL table or column has a derived name.
    public struct DerivedName: Sendable, Equatable, CustomStringConvertible {
        /// The table's name, decoded for display.
        public var element: String
        /// The field's name (nil: the table's own SQL name).
        public var field: String?
        /// The name it has in SQL.
        public var sqlName: String

        /// `table 'X' is SQL table 'Y'` or `field 'F' of table 'X' is column 'G'`.
        public var description: String {
            field.map { "field '\($0)' of table '\(element)' is SQL column '\(sqlName)'" } ?? "table '\(element)' is SQL table '\(sqlName)'"
        }
    }

    /// A sink that writes a new database at `path` (nothing may be there, unless `replacing`),
    /// or a private temporary one (nil).
    public init(path: String?, replacing: Bool = false) {
        self.path = path
        self.replacing = replacing
    }

    /// Opens the database — a temporary file next to `path` — and writes the head (`_briefcase`,
    /// `_briefcase_properties`).
    public mutating func begin(_ head: BriefcaseHead) throws(BriefcaseError) {
        close()
        var databasePath = ":memory:"
        if let path {
            let file = try SharedAtomicOutput(path: path, replacing: replacing)
            self.file = file
            guard let temporary = file.temporaryPath else {
                close()
                throw BriefcaseError(.io, "an SQLite database cannot be written to standard output", file: path)
            }
            databasePath = temporary
        }
        do throws(BriefcaseError) {
            let opened = try SQLiteDatabase(path: databasePath, mode: path == nil ? .memory : .create)
            var writer = SQLiteTableWriter(database: opened, codePage: head.codePage)
            writer.phases = phases
            try writer.begin(head)
            self.writer = writer
        } catch {
            close()
            throw error.file == databasePath ? error.inFile(path ?? databasePath) : error
        }
    }

    /// Writes the next element (positions counted from 0).
    public mutating func element(_ element: Element) throws(BriefcaseError) {
        try self.element(element, at: nextPosition)
    }

    /// Writes the element at stream position `position`: its exact bytes and what shows it.
    public mutating func element(_ element: Element, at position: Int) throws(BriefcaseError) {
        guard writer != nil else { throw BriefcaseError(.invalidModel, "internal: an element before the briefcase began") }
        nextPosition = position + 1
        // Which delta is which table's: `ElementPairing`, as every reader pairs them.
        let mate = pairing.add(element.kind, named: element.name).map { positions[$0] }
        positions.append(position)
        switch element {
        case .table(let table):
            try writer!.write(table: table, at: position, delta: mate.flatMap { early.removeValue(forKey: $0) })
        case .delta(let stored):
            let delta = try writer!.write(delta: stored, at: position)  // (its changes decoded once, for the replay too)
            if let table = mate {
                try writer!.attach(delta, toTableAt: table)
            } else {
                early[position] = delta
            }
        }
        // What SQLite wrote so far starts on its way to disk now, not at the final fsync.
        file?.grewThroughAnotherWriter()
    }

    /// Commits the transaction; closes a database file and moves it to `path` (a private
    /// temporary one stays open: `database`).
    public mutating func finish() throws(BriefcaseError) {
        try finishWriting()
        try commit()
    }

    /// `finish` without the move into place: the transaction committed, a database file closed.
    /// (The command line checks its input between the two.)
    package mutating func finishWriting() throws(BriefcaseError) {
        guard writer != nil else { throw BriefcaseError(.invalidModel, "internal: a briefcase finished before it began") }
        try writer!.finish()
        derivedNames = writer!.derivedNames
        let database = writer!.database
        writer = nil
        if path == nil { self.database = database }
    }

    /// Moves the closed database file to `path` (nothing for a private temporary one).
    package mutating func commit() throws(BriefcaseError) {
        guard writer == nil else { throw BriefcaseError(.invalidModel, "internal: a database committed before it was finished") }
        try file?.commit()
        file = nil
    }

    /// Closes the database and removes the temporary file, for a source that starts again or
    /// failed. Nothing at `path` is touched.
    public mutating func abandon() {
        close()
    }

    private mutating func close() {
        writer = nil  // (closes the connection first: then the file's descriptor may go)
        file?.discard()
        file = nil
        pairing = ElementPairing()
        positions = []
        early = [:]
        nextPosition = 0
        database = nil
    }
}
