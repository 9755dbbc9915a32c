import BriefcaseKit
import Foundation

/// A briefcase — a `.daBriefcase` file or a `.briefcase` folder — in Swift's terms: table and
/// property names as `String`, tables as `RecordTable`s, saving that writes only what changed.
///
/// ```swift
/// let briefcase = try RecordBriefcase(path: "Orders.daBriefcase")
/// var orders = try briefcase.table("Orders")
/// try orders.update(at: 0, setting: ["Amount": Decimal(string: "80.5")!])
/// try briefcase.setTable(orders)
/// try briefcase.save()
/// ```
///
/// Not `Sendable` (it owns open files and a cache); its tables are values to share instead.
public final class RecordBriefcase {
    /// The codec's briefcase underneath, for whatever this API does not cover.
    public let briefcase: Briefcase

    /// Opens the briefcase at `path`: a folder briefcase for a directory, else a single file.
    /// Only its header, properties and index are read now; tables when asked for.
    public init(path: String, codePage: CodePage? = nil) throws(RecordError) {
        do throws(BriefcaseError) {
            briefcase = try Briefcase.open(path, codePage: codePage)
        } catch {
            throw RecordError(error)
        }
    }

    /// Opens the briefcase at the file `url` (a folder or a single file).
    public convenience init(url: URL, codePage: CodePage? = nil) throws(RecordError) {
        guard url.isFileURL else { throw RecordError(.briefcase(.io), "\(url) is not a file URL") }
        try self.init(path: url.path, codePage: codePage)
    }

    /// A new, empty briefcase to be saved at `path`, a single file or a folder (nothing is
    /// written until `save()`).
    public init(newAt path: String, kind: Briefcase.Kind = .file) {
        briefcase = Briefcase(newAt: path, kind: kind)
    }

    /// Wraps a briefcase opened with the codec.
    public init(_ briefcase: Briefcase) {
        self.briefcase = briefcase
    }

    /// Where the briefcase is.
    public var path: String { briefcase.path }
    /// The names of its tables, in order.
    public var tableNames: [String] { briefcase.tableNames }

    /// The briefcase's properties (name, value), in stored order, decoded with its code page.
    public var properties: [(name: String, value: String)] {
        briefcase.properties.map { (briefcase.codePage.decodeForDisplay($0.name), briefcase.codePage.decodeForDisplay($0.value)) }
    }

    /// The value of property `name`, or nil.
    public func property(_ name: String) -> String? { briefcase.property(name) }

    /// Sets (or adds) property `name`; saved by `save()`.
    public func setProperty(_ name: String, _ value: String) { briefcase.setProperty(name, value) }

    /// The table named `name` (case-insensitive), decoded whole, with its pending changes.
    public func table(_ name: String) throws(RecordError) -> RecordTable {
        guard let position = briefcase.tableIndex(named: name) else {
            throw RecordError(.unknownTable, "no table named '\(name)' (the tables are \(tableNames.joined(separator: ", ")))", table: name)
        }
        do throws(BriefcaseError) {
            let table = try briefcase.table(at: position)
            return RecordTable(table, codePage: briefcase.codePage, origin: (position, table.name))
        } catch {
            throw RecordError(error, table: name)
        }
    }

    /// Puts an edited table back, to be written by `save()`: the table it was read as, or a new
    /// table (added; one of the same name is replaced). A table read but not edited changes
    /// nothing, so its bytes are copied as they are. Before it is taken, its pending delta is
    /// checked to replay to its current rows (`ChangeTracker.verify()`).
    public func setTable(_ table: RecordTable) throws(RecordError) {
        do throws(ChangeTrackingError) {
            try table.tracker.verify()
        } catch {
            throw RecordError(error, table: table.name, field: nil)
        }
        guard let origin = table.origin else {
            // Its names were encoded in the table's code page: they must read the same in the briefcase's.
            let names = [table.name] + table.fields.map(\.name)
            if table.index.codePage != briefcase.codePage, let name = names.first(where: { briefcase.codePage.encode($0) != table.index.codePage.encode($0) }) {
                throw RecordError(.cannotStore, "the name '\(name)' is written in \(table.index.codePage.name), the briefcase's names in \(briefcase.codePage.name): make the table with codePage: \(briefcase.codePage.name)", table: table.name)
            }
            briefcase.addTable(table.briefcaseTable)
            return
        }
        guard table.hasEdits else { return }
        // Found again by position when the table is still there, else by name.
        let position = (try? briefcase.table(at: origin.position)).map { $0.name == origin.name } == true
            ? origin.position : briefcase.tableIndex(named: table.name)
        do throws(BriefcaseError) {
            if let position { try briefcase.setTable(table.briefcaseTable, at: position) } else { briefcase.addTable(table.briefcaseTable) }
        } catch {
            throw RecordError(error, table: table.name)
        }
    }

    /// Removes the table named `name`; false when there is none.
    @discardableResult
    public func removeTable(_ name: String) -> Bool { briefcase.removeTable(named: name) }

    /// Writes the briefcase where it is: tables put back with edits (or added) are encoded, every
    /// other table is copied byte for byte; atomically (a temporary file renamed over the old).
    public func save() throws(RecordError) {
        do throws(BriefcaseError) { try briefcase.write() } catch { throw RecordError(error) }
    }

    /// Writes the briefcase to `path` as `kind` (a copy; from then on the briefcase is that one).
    /// Anything already at `path` is an error unless `replacing` (`Briefcase.write(to:as:replacing:)`).
    public func save(to path: String, as kind: Briefcase.Kind? = nil, replacing: Bool = false) throws(RecordError) {
        do throws(BriefcaseError) {
            try briefcase.write(to: path, as: kind ?? briefcase.kind, replacing: replacing)
        } catch {
            throw RecordError(error)
        }
    }

    /// The stored rows of table `name`, one row decoded at a time as they are iterated, without
    /// the table in memory (`StoredRows`): for tables too large to read whole. These are the
    /// stored rows; the pending changes are not applied (that needs the whole table).
    public func storedRecords(of name: String) throws(RecordError) -> StoredRecords {
        guard let position = briefcase.tableIndex(named: name) else {
            throw RecordError(.unknownTable, "no table named '\(name)' (the tables are \(tableNames.joined(separator: ", ")))", table: name)
        }
        do throws(BriefcaseError) {
            let rows = try briefcase.storedRows(ofTableAt: position)
            return StoredRecords(rows: rows, index: FieldIndex(table: rows.head.table, codePage: briefcase.codePage),
                                 table: briefcase.codePage.decodeForDisplay(rows.head.name))
        } catch {
            throw RecordError(error, table: name)
        }
    }
}

/// A table's stored rows as `Record`s, decoded one at a time: each element is the next row or
/// the error that ends the rows.
///
/// ```swift
/// for result in try briefcase.storedRecords(of: "Log") {
///     let entry = try result.get().decode(as: LogEntry.self)
/// }
/// ```
public struct StoredRecords: Sequence, Sendable {
    let rows: StoredRows
    let index: FieldIndex
    let table: String

    /// The table's fields.
    public var fields: [RecordField] { index.fields }
    /// How many rows the table stores.
    public var count: Int { rows.head.rowCount }

    /// An iterator over the rows, from the first.
    public func makeIterator() -> Iterator { Iterator(cursor: rows.makeIterator(), index: index, table: table) }

    /// Reads the rows one at a time.
    public struct Iterator: IteratorProtocol, Sendable {
        var cursor: StoredRowCursor
        let index: FieldIndex
        let table: String

        /// The next row (or the error reading it, after which there is none), nil after the last.
        public mutating func next() -> Result<Record, RecordError>? {
            let position = cursor.rowsRead
            return cursor.next().map { result in
                result.map { Record(index: index, values: $0, position: position, table: table) }
                    .mapError { RecordError($0, table: table).located(row: position) }
            }
        }
    }
}
