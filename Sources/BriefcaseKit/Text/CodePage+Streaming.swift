import Dispatch
import Synchronization
/// Code page detection when the elements come one at a time (Spec/robustness.md, "Streaming
/// conversion"). `CodePage.detect(in:)` looks at every 8-bit string, values included, but a
/// streaming writer must name the code page before the first row. So the choice is made from the
/// heads (names, schemas, descriptors: all that reveals a code page), and each decoded element
/// is then checked against it: the choice stands exactly when every later string decodes under
/// `mustDecode`. When one does not, the caller starts over with `CodePageWitnesses`, which gives
/// what `detect(in:)` gives for the whole briefcase without holding it.
package struct StreamingCodePageDetection: Sendable {
    /// What the heads say: the code page and why.
    public let detection: CodePageDetection
    /// The code page every 8-bit string of the rows and changes must decode under for
    /// `detection` to be the whole briefcase's: UTF-8 when the heads are UTF-8; the candidate the
    /// heads chose; for the windows-1252 fallback, the candidate its hint names (its reason and
    /// hint do not change otherwise); nil when nothing can change the answer.
    let mustDecode: CodePage?

    /// Detects the code page from the elements' heads and the properties.
    public init(heads: [Element], properties: [BriefcaseProperty]) {
        let stream = Bin2Stream(elements: heads)
        let detection = CodePage.detect(in: stream, properties: properties)
        self.detection = detection
        if detection.codePage == .utf8 {
            mustDecode = .utf8
        } else if detection.hint != nil {
            // The first multi-byte candidate that decodes the heads is the one the hint names.
            mustDecode = CodePage.detectionCandidates.prefix(4).first { candidate in
                candidate.withDecodabilityTest { body in CodePage.forEachEightBitString(in: stream, properties: properties, body) }
            }
        } else {
            // A chosen candidate, or windows-1252 without hint (checking it is merely cautious:
            // a string it cannot decode makes the caller start over, with the same answer).
            mustDecode = detection.codePage
        }
    }

    /// True when the choice stands as long as every 8-bit string of the rows and changes is valid
    /// UTF-8 (the heads' strings are already known to be), which a UTF-8 writer checks anyway.
    public var holdsWhileValidUTF8: Bool { mustDecode == .utf8 }

    /// Whether `other` chose the same code page and holds on the same strings (two briefcases
    /// whose heads agree).
    package func agrees(with other: StreamingCodePageDetection) -> Bool {
        detection.codePage == other.detection.codePage && mustDecode == other.mustDecode
    }

    /// True when `element`'s 8-bit strings leave `detection` unchanged.
    public func holds(for element: Element) -> Bool { holds(for: element, twoThreads: false) }

    /// True when `element`'s 8-bit strings leave `detection` unchanged; with `twoThreads`, a
    /// large table's rows looked at in two halves side by side (`OnDemandDatabase`, before a
    /// statement's first row).
    public func holds(for element: Element, twoThreads: Bool) -> Bool {
        guard let mustDecode else { return true }
        if twoThreads, case .table(let table) = element, table.rows.count >= Self.rowsCheckedInTwo {
            // The rows in two halves, on two threads (each with its own decoder).
            let head = Table(name: table.name, schema: table.schema, fields: table.fields, rows: [])
            guard holds(for: .table(head)) else { return false }
            let middle = table.rows.count / 2
            let halves = [0 ..< middle, middle ..< table.rows.count]
            let failed = Mutex(false)
            DispatchQueue.concurrentPerform(iterations: 2) { k in
                let holds = mustDecode.withDecodabilityTest { body in CodePage.forEachEightBitString(inRowsOf: table, halves[k], body) }
                if !holds { failed.withLock { $0 = true } }
            }
            return !failed.withLock { $0 }
        }
        let stream = Bin2Stream(elements: [element])
        return mustDecode.withDecodabilityTest { body in CodePage.forEachEightBitString(in: stream, properties: [], body) }
    }

    /// Rows from which a table's check is worth two threads.
    static let rowsCheckedInTwo = 16_384
}

/// Collects, element by element, the few strings that decide `CodePage.detect(in:)`: one
/// non-ASCII string, and for UTF-8 and each candidate one string it cannot decode. Detecting over
/// the heads plus these witnesses gives exactly what detecting over the whole briefcase gives:
/// a code page that decodes every string of the briefcase decodes the witnesses (they are
/// strings of it), and one that does not fails on its witness; the name pairs come from heads.
package struct CodePageWitnesses: Sendable {
    private var witnesses: [ByteString] = []
    private var nonASCII = false
    private var open: [CodePage] = [.utf8] + CodePage.detectionCandidates

    /// No elements seen yet.
    public init() {}

    /// Takes one element's 8-bit strings into account.
    public mutating func add(_ element: Element) {
        let stream = Bin2Stream(elements: [element])
        if !nonASCII {
            _ = CodePage.forEachEightBitString(in: stream, properties: []) { string in
                if ASCII.isASCII(string) { return true }
                witnesses.append(ByteString(Array(string)))
                nonASCII = true
                return false
            }
        }
        guard nonASCII else { return } // all ASCII: every candidate decodes it
        open = open.filter { candidate in
            var failing: ByteString?
            _ = candidate.withDecodabilityTest { body in
                CodePage.forEachEightBitString(in: stream, properties: []) { string in
                    if body(string) { return true }
                    failing = ByteString(Array(string))
                    return false
                }
            }
            guard let failing else { return true }
            witnesses.append(failing)
            return false
        }
    }

    /// What `CodePage.detect(in:)` gives for the briefcase whose element heads are `heads` and
    /// whose elements were all passed to `add`.
    public func detection(heads: [Element], properties: [BriefcaseProperty]) -> CodePageDetection {
        let carrier = Delta(name: .empty, loggedFields: [], changes: witnesses.map {
            DeltaChange(type: ChangeType(rawValue: 0), recordID: 0, message: $0, oldValues: [], newValues: [])
        })
        return CodePage.detect(in: Bin2Stream(elements: heads + [.delta(carrier)]), properties: properties)
    }
}

extension Element {
    /// The element without its rows (a table) or changes (a delta): what code page detection
    /// needs of it besides the values.
    public var head: Element {
        switch self {
        case .table(var table): table.rows = []; return .table(table)
        case .delta(var delta): delta.changes = []; return .delta(delta)
        }
    }
}
