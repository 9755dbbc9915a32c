/// Which pending delta is which table's: the one rule by which `info`, `cat`, the lazy
/// `Briefcase`, folder output and SQLite (both ways) pair them (Spec/bin2.md §8.10). In stream
/// order, the k-th table of a name and the k-th delta of that name go together — names compared
/// as Data Abstract compares them, ASCII letters without case (`namesMatch`). A table without a
/// k-th delta has no pending changes; a delta without a k-th table stands alone.
///
/// Built whole (`init(kinds:names:)`), or element by element as a stream arrives (`add`): each
/// element is paired as soon as its partner has come, so a writer that takes the elements one at
/// a time knows at once which earlier element an element completes.
package struct ElementPairing: Sendable {
    /// For each element, by its place in the order given, the place of its partner (a table's
    /// delta, a delta's table), or nil while it has none.
    package private(set) var partner: [Int?] = []
    /// The elements still waiting for a partner, by name key and kind, first come first served.
    private var waiting: [Waiting: Queue] = [:]

    private struct Waiting: Hashable {
        var key: [UInt8]
        var kind: ElementKind
    }

    /// Places in arrival order, taken from the front.
    private struct Queue {
        var places: [Int] = []
        var head = 0
        mutating func take() -> Int? {
            guard head < places.count else { return nil }
            head += 1
            return places[head - 1]
        }
    }

    /// No elements yet: `add` them as they come.
    package init() {}

    /// The pairs of the elements of these kinds and names, in stream order.
    package init(kinds: [ElementKind], names: [ByteString]) {
        for (kind, name) in zip(kinds, names) { add(kind, named: name) }
    }

    /// The pairs of `elements`, in stream order.
    package init(_ elements: [Element]) {
        for element in elements { add(element.kind, named: element.name) }
    }

    /// Adds the next element; returns the place of its partner when the partner came before it
    /// (the element completes that pair), else nil (it waits for one).
    @discardableResult
    package mutating func add(_ kind: ElementKind, named name: ByteString) -> Int? {
        add(kind, key: nameKey(name))
    }

    /// `add(_:named:)` with the name's key (`nameKey`: ASCII letters lower-cased) given.
    @discardableResult
    package mutating func add(_ kind: ElementKind, key: [UInt8]) -> Int? {
        let place = partner.count
        partner.append(nil)
        let other: ElementKind = kind == .table ? .delta : .table
        if let mate = waiting[Waiting(key: key, kind: other)]?.take() {
            partner[place] = mate
            partner[mate] = place
            return mate
        }
        waiting[Waiting(key: key, kind: kind), default: Queue()].places.append(place)
        return nil
    }
}
