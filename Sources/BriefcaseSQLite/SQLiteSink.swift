import BriefcaseKit
#if canImport(Glibc)
import Glibc
#endif

/// The SQLite format's writer (Spec/sqlite-mapping.md): a sink that makes a database of the
/// briefcase — each table's current rows in an SQL table of its own name, and beside them the
/// tables that give the file back (`_briefcase…`). Each table arrives with its pending delta
/// right after it (`prepare(heads:)` asks for that order), so that one table is in memory at a
/// time; everything is written with prepared statements in one transaction.
public struct SQLiteSink: BriefcaseSink {
    /// The database file (empty or absent), or nil for a database in memory (`query`).
    public let path: String?
    /// After `finish`: the database in memory (nil for a file, which `finish` closes).
    public private(set) var database: SQLiteDatabase?
    var writer: SQLiteTableWriter?
    /// Stream position of a table → of its delta (the first of the same name).
    var deltaOfTable: [Int: Int] = [:]
    /// Each delta paired with a table, by its position.
    var pairedDeltas: Set<Int> = []
    /// The table waiting for its delta.
    var waiting: (table: Table, position: Int)?
    /// A paired delta that came before its table (a source that did not follow the order asked for).
    var early: [Int: Delta] = [:]
    /// Positions given without one (a source that does not number its elements).
    var nextPosition = 0

    public init(path: String?) {
        self.path = path
    }

    public var needsHeads: Bool { true }

    public mutating func prepare(heads: [Element]) throws(BriefcaseError) -> [Int]? {
        deltaOfTable = [:]
        pairedDeltas = []
        var tables: [[UInt8]: Int] = [:]
        for (position, head) in heads.enumerated() {
            if case .table(let table) = head, tables[lowered(table.name)] == nil { tables[lowered(table.name)] = position }
        }
        for (position, head) in heads.enumerated() {
            guard case .delta(let delta) = head, let table = tables[lowered(delta.name)], deltaOfTable[table] == nil else { continue }
            deltaOfTable[table] = position
            pairedDeltas.insert(position)
        }
        var order: [Int] = []
        for position in heads.indices where !pairedDeltas.contains(position) {
            order.append(position)
            if let delta = deltaOfTable[position] { order.append(delta) }
        }
        return order
    }

    private func lowered(_ name: ByteString) -> [UInt8] {
        name.bytes.map { (65...90).contains($0) ? $0 | 0x20 : $0 }
    }

    public mutating func begin(_ head: BriefcaseHead) throws(BriefcaseError) {
        close()
        let opened = try SQLiteDatabase(path: path ?? ":memory:", mode: path == nil ? .memory : .create)
        var writer = SQLiteTableWriter(database: opened, codePage: head.codePage)
        try writer.begin(head)
        self.writer = writer
        nextPosition = 0
    }

    public mutating func element(_ element: Element) throws(BriefcaseError) {
        try self.element(element, at: nextPosition)
    }

    public mutating func element(_ element: Element, at position: Int) throws(BriefcaseError) {
        guard writer != nil else { throw BriefcaseError(.invalidModel, "internal: an element before the briefcase began") }
        nextPosition = position + 1
        switch element {
        case .table(let table):
            try flushWaiting()
            if let delta = deltaOfTable[position] {
                if let early = early.removeValue(forKey: delta) {
                    try writer!.write(table: table, at: position, delta: early)
                } else {
                    waiting = (table, position)
                }
            } else {
                try writer!.write(table: table, at: position, delta: nil)
            }
        case .delta(let delta):
            try writer!.write(delta: delta, at: position)
            if let waiting, deltaOfTable[waiting.position] == position {
                self.waiting = nil
                try writer!.write(table: waiting.table, at: waiting.position, delta: delta)
            } else if pairedDeltas.contains(position) {
                try flushWaiting()
                early[position] = delta
            }
        }
    }

    /// A table whose delta did not come (a source that did not follow the order asked for).
    private mutating func flushWaiting() throws(BriefcaseError) {
        guard let waiting else { return }
        self.waiting = nil
        try writer!.write(table: waiting.table, at: waiting.position, delta: nil)
    }

    public mutating func finish() throws(BriefcaseError) {
        guard writer != nil else { throw BriefcaseError(.invalidModel, "internal: a briefcase finished before it began") }
        try flushWaiting()
        try writer!.finish()
        let database = writer!.database
        writer = nil
        if path == nil { self.database = database }
    }

    public mutating func abandon() {
        close()
        if let path { truncate(path, 0) }
    }

    private mutating func close() {
        writer = nil
        waiting = nil
        early = [:]
        database = nil
    }
}
