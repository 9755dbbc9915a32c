/// A table of a briefcase: its stored rows (the dataset element) and its pending changes (the
/// delta element of the same name). Either may be absent: a table with no pending changes has no
/// delta, and a briefcase may hold a delta whose table it does not store.
///
/// A value: what `Briefcase.table(named:)` returns is a copy of the cached table, so it can be
/// handed to other threads and edited freely; an edited copy goes back into the briefcase with
/// `Briefcase.setTable(_:at:)` (or `addTable`), and only then does `write()` encode it.
public struct BriefcaseTable: Hashable, Sendable {
    /// The dataset element: the stored rows; nil when the table has only a delta.
    public var dataset: Table?
    /// The delta element: the pending changes; nil when there are none.
    public var delta: Delta?

    /// A table of `dataset` and `delta`, which have the same name.
    public init(dataset: Table?, delta: Delta? = nil) {
        precondition(dataset != nil || delta != nil, "a briefcase table needs a dataset or a delta")
        self.dataset = dataset
        self.delta = delta
    }

    /// The name (of the dataset, else of the delta).
    public var name: ByteString { dataset?.name ?? delta!.name }

    /// The dataset, or for a table stored only as its delta, an empty table of the logged fields
    /// (what the delta's changes are replayed over).
    public var storedTable: Table {
        dataset ?? Table(name: name, fields: delta!.loggedFields.map { FieldDescriptor(name: $0.name, type: $0.type) })
    }

    /// The rows with the pending delta replayed (see `Table.applying(_:)`).
    public func currentRows() -> (rows: [Row], problems: [DeltaApplicationProblem]) {
        guard let delta else { return (storedTable.rows.array, []) }
        return storedTable.applying(delta)
    }

    /// Its elements in the order a file holds them: the delta first when `deltaFirst` (as .NET
    /// writes them).
    func elements(deltaFirst: Bool) -> [Element] {
        let parts = deltaFirst ? [delta.map(Element.delta), dataset.map(Element.table)] : [dataset.map(Element.table), delta.map(Element.delta)]
        return parts.compactMap { $0 }
    }
}
