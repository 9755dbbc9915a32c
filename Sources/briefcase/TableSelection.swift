import BriefcaseKit

/// `cat`'s sink: of the elements a source reads, it keeps the first table and the first delta
/// named `wanted` (case-insensitive, in the code page the source gives) and drops the others as
/// they pass, so memory holds the one table; it also notes every table's name, for the message
/// when none matches.
struct TableSelection: BriefcaseSink {
    let wanted: String
    private(set) var codePage = CodePage.utf8
    private(set) var tableNames: [String] = []
    private(set) var dataset: Table?
    private(set) var delta: Delta?

    init(named name: String) {
        wanted = name.lowercased()
    }

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
            if matches && self.delta == nil { self.delta = delta }
        }
    }

    mutating func finish() throws(BriefcaseError) {}

    mutating func abandon() {
        tableNames = []
        dataset = nil
        delta = nil
    }
}
