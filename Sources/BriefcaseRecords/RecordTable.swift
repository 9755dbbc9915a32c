import BriefcaseKit

/// A table of a briefcase in Swift's terms: its fields, its rows as `Record`s or as your
/// `Decodable` type, and edits of its current rows recorded as Data Abstract pending changes.
///
/// A value (`Sendable`): edit a copy, then hand it back with `RecordBriefcase.setTable(_:)` and
/// `save()`. The rows are the whole table in memory; for a table too large for that, read its
/// stored rows one at a time with `RecordBriefcase.storedRecords(of:)`.
///
/// ```swift
/// var customers = try briefcase.table("Customers")
/// let all = try customers.rows(as: Customer.self)          // current rows: pending delta applied
/// try customers.update(at: 0, setting: ["Name": "Ada"])    // recorded as a pending update
/// try briefcase.setTable(customers)
/// try briefcase.save()                                     // writes only this table anew
/// ```
public struct RecordTable: Sendable {
    /// The table's name, decoded with the briefcase's code page.
    public let name: String
    let index: FieldIndex
    /// The stored rows, the pending delta and the edits (the codec's one change mechanism).
    public internal(set) var tracker: ChangeTracker
    /// Whether the briefcase stores the table's rows (false: it stores only its delta).
    let hasDataset: Bool
    /// Where the table was read from: its position and stored name in the briefcase.
    let origin: (position: Int, name: ByteString)?

    /// Which rows to read: the current ones (the stored rows with the pending changes applied,
    /// as Data Abstract's client shows them), or the stored ones (as the server last sent them).
    public enum RowState: Sendable {
        /// The stored rows with the pending changes applied.
        case current
        /// The rows as stored (as the server last sent them).
        case stored
    }

    init(_ table: BriefcaseTable, codePage: CodePage, origin: (position: Int, name: ByteString)?) {
        let stored = table.storedTable
        name = codePage.decodeForDisplay(table.name)
        index = FieldIndex(table: stored, codePage: codePage)
        tracker = ChangeTracker(table: stored, delta: table.delta)
        hasDataset = table.dataset != nil
        self.origin = origin
    }

    /// The fields, in order.
    public var fields: [RecordField] { index.fields }
    /// The field named `name` (exactly, else case-insensitively), or nil.
    public func field(_ name: String) -> RecordField? { index.column(name).map { index.fields[$0] } }
    /// The fields changes find their rows by (the delta's key fields, else the schema's
    /// `InPrimaryKey` fields); empty when the table has none.
    public var keyFields: [String] { tracker.keyColumns.map { index.fields[$0].name } }

    /// How many current rows there are.
    public var count: Int { tracker.count }
    /// How many rows the briefcase stores.
    public var storedCount: Int { tracker.table.rows.count }

    /// The rows, current or stored, as `Record`s.
    public func records(_ state: RowState = .current) -> [Record] {
        rows(state).enumerated().map { Record(index: index, values: $0.element, position: $0.offset, table: name) }
    }

    /// The current row at `position`.
    public func record(at position: Int) throws(RecordError) -> Record {
        do throws(ChangeTrackingError) {
            return Record(index: index, values: try tracker.row(at: position), position: position, table: name)
        } catch {
            throw RecordError(.noSuchRow, error.message, table: name, row: position)
        }
    }

    /// The rows (current, or stored when asked) decoded into `type` through a `Decoder`:
    /// properties by field name, `Optional` for NULL (Spec/records-api.md §5). Errors name the
    /// table, the row and the field.
    public func rows<T: Decodable>(as type: T.Type, _ state: RowState = .current) throws(RecordError) -> [T] {
        var result: [T] = []
        for (position, values) in rows(state).enumerated() {
            result.append(try Record(index: index, values: values, position: position, table: name).decode(as: type))
        }
        return result
    }

    func rows(_ state: RowState) -> Rows { state == .current ? Rows(tracker.rows) : tracker.table.rows }

    // MARK: pending changes

    /// The pending changes: those the briefcase held, with the edits recorded.
    public var pendingChanges: [DeltaChange] { tracker.delta.changes.array }
    /// The delta the table will be stored with (nil: none).
    public var pendingDelta: Delta? { tracker.pendingDelta }
    /// Whether an edit changed the pending changes.
    public var hasEdits: Bool { tracker.hasEdits }
    /// Changes of the stored delta that could not be replayed over the stored rows (kept as they are).
    public var replayProblems: [String] { tracker.problems.map(\.description) }

    /// The table as the codec stores it: the stored rows (unchanged) and the pending delta.
    public var briefcaseTable: BriefcaseTable {
        BriefcaseTable(dataset: hasDataset || tracker.pendingDelta == nil ? tracker.table : nil, delta: tracker.pendingDelta)
    }
}
