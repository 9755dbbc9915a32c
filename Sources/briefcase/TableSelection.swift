import BriefcaseKit

/// `cat`'s sink: of the elements a source reads, it keeps the first table named `wanted`
/// (case-insensitive, in the code page the source gives) and the delta paired with it
/// (`ElementPairing`: the first delta of the table's name, ASCII letters without case), and drops
/// the others as they pass, so memory holds the one table; it also notes every table's name, for
/// the message when none matches. (A delta named `wanted` without such a table is printed as its
/// own rows: the first of them.)
struct TableSelection: BriefcaseSink {
    let wanted: String
    private(set) var codePage = CodePage.utf8
    private(set) var tableNames: [String] = []
    private(set) var dataset: Table?
    /// The first delta of each name key that `wanted` matches, until the table is known.
    private var deltas: [[UInt8]: Delta] = [:]
    private var firstDelta: Delta?

    init(named name: String) {
        wanted = name.lowercased()
    }

    /// The delta paired with the table chosen, or (no such table) the first delta named `wanted`.
    var delta: Delta? { dataset.map { deltas[nameKey($0.name)] } ?? firstDelta }

    mutating func begin(_ head: BriefcaseHead) throws(BriefcaseError) {
        abandon()
        codePage = head.codePage
    }

    mutating func element(_ element: Element) throws(BriefcaseError) {
        let name = codePage.decodeForDisplay(element.name)
        let matches = name.lowercased() == wanted
        switch element {
        case .table(let table):
            tableNames.append(name)
            if matches && dataset == nil { dataset = table }
        case .delta(let delta):
            guard matches else { return }
            if firstDelta == nil { firstDelta = delta }
            // (The first table named `wanted` is the first of its name key: its delta is the
            // first delta of that key.)
            if deltas[nameKey(delta.name)] == nil { deltas[nameKey(delta.name)] = delta }
        }
    }

    mutating func finish() throws(BriefcaseError) {}

    mutating func abandon() {
        tableNames = []
        dataset = nil
        deltas = [:]
        firstDelta = nil
    }
}
