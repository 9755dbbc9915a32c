/// A table of a briefcase: its stored rows (the dataset element) and its pending changes (the
/// delta element of the same name). Either may be absent: a table with no pending changes has no
/// delta, and a briefcase may hold a delta whose table it does not store.
///
/// A class, so that a briefcase can hand out the same cached object until its cache is cleared.
public final class BriefcaseTable: @unchecked Sendable {
    public var dataset: Table?
    public var delta: Delta?

    public init(dataset: Table?, delta: Delta? = nil) {
        precondition(dataset != nil || delta != nil, "a briefcase table needs a dataset or a delta")
        self.dataset = dataset
        self.delta = delta
    }

    /// The name (of the dataset, else of the delta).
    public var name: ByteString { dataset?.name ?? delta!.name }

    /// The rows with the pending delta replayed (see `Table.applying(_:)`).
    public func currentRows() -> (rows: [Row], problems: [DeltaApplicationProblem]) {
        let base = dataset ?? Table(name: name, fields: delta!.loggedFields.map { FieldDescriptor(name: $0.name, type: $0.type) })
        guard let delta else { return (base.rows, []) }
        return base.applying(delta)
    }

    /// Its elements in the order a file holds them: the delta first when `deltaFirst` (as .NET
    /// writes them).
    func elements(deltaFirst: Bool) -> [Element] {
        let parts = deltaFirst ? [delta.map(Element.delta), dataset.map(Element.table)] : [dataset.map(Element.table), delta.map(Element.delta)]
        return parts.compactMap { $0 }
    }
}
