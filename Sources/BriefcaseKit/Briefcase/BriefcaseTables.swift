import Dispatch
import Synchronization

/// A briefcase read table by table (Spec/diff.md §8, Spec/merge.md §3): its properties and its
/// tables with their deltas, each table read only when it is wanted — as `diff` compares and
/// `merge` merges two or three briefcases.
///
/// A document in memory has them all. A binary briefcase opened element by element
/// (`BriefcaseElements`: a `.daBriefcase`, a bare Bin2 stream, a folder) has its element index
/// only: each table is decoded from its file mapped when it is read (its rows stay views into
/// the mapping, no copy) and let go once done with, so a comparison or a merge holds the tables
/// it is working on, never the whole briefcase.
public struct BriefcaseTables: Sendable, TableSource {
    /// The briefcase's properties, in order.
    public let properties: [BriefcaseProperty]
    /// Its tables with their deltas, then the deltas of no table (`TablePlace.places`).
    package let places: [TablePlace]
    private let source: Source

    private enum Source: Sendable {
        case document(DocumentTables)
        case elements(ElementsReading)
    }

    /// A document in memory.
    public init(_ document: BriefcaseDocument) {
        let tables = DocumentTables(document)
        properties = tables.properties
        places = tables.places
        source = .document(tables)
    }

    /// A binary briefcase read table by table as the comparison reaches it. Its code page is
    /// `encoding`, or detected as `convert` detects it (`readingReport()`): each element's
    /// strings checked against the heads' choice as it is read — or, not `checkingAsRead` (for a
    /// caller that may not need the code page at all), every element's strings looked at only
    /// if `readingReport()` is asked for.
    public init(_ elements: BriefcaseElements, encoding: CodePage? = nil, checkingAsRead: Bool = true) {
        properties = elements.properties
        let stored = elements.elements
        places = TablePlace.places(kinds: stored.map(\.kind), names: stored.map(\.name), sizes: { stored[$0].range.count })
        source = .elements(ElementsReading(elements, encoding: encoding, checkingAsRead: checkingAsRead))
    }

    /// The elements without their rows and changes (names, fields, schemas), in stream order;
    /// nil where a head cannot be read (its element fails when read whole).
    package var heads: [Element?] {
        switch source {
        case .document(let tables): tables.elements.map { $0.head as Element? }
        case .elements(let reading): reading.heads
        }
    }

    package func read(_ place: TablePlace) throws(BriefcaseError) -> TableAndDelta {
        switch source {
        case .document(let tables): return tables.read(place)
        case .elements(let reading): return try TableAndDelta(place) { i throws(BriefcaseError) in try reading.read(i) }
        }
    }

    /// Element `i` (in stream order) alone, decoded as `read(_:)` decodes it.
    package func element(_ i: Int) throws(BriefcaseError) -> Element {
        switch source {
        case .document(let tables): return tables.elements[i]
        case .elements(let reading): return try reading.read(i)
        }
    }

    /// Element `i` decoded as `element(_:)` decodes it, and `work` done on it while its strings
    /// are checked on another core (both only read it): `OnDemandDatabase` orders a table's rows
    /// while the check that must precede its first row runs.
    /// Without `work`, a large table's strings are checked on two threads.
    package func element(_ i: Int, alongside work: ((Element) -> Void)?) throws(BriefcaseError) -> Element {
        switch source {
        case .document(let tables):
            work?(tables.elements[i])
            return tables.elements[i]
        case .elements(let reading): return try reading.read(i, twoThreads: true, alongside: work)
        }
    }

    /// Whether an element read so far held a string the code page its heads suggest cannot take
    /// (`readingReport()` then looks at every element); false for a document in memory.
    package var contradictsHeads: Bool {
        guard case .elements(let reading) = source else { return false }
        return reading.contradicted
    }

    /// The warnings of the elements read so far, in file order, then the container's (none for a
    /// document in memory: told when it was read).
    package var warningsSoFar: [DecodingWarning] {
        guard case .elements(let reading) = source else { return [] }
        return reading.warningsSoFar
    }

    package func release(_ place: TablePlace) {
        guard case .elements(let reading) = source else { return }
        for i in [place.table, place.delta].compactMap({ $0 }) { reading.release(i) }
    }

    /// What reading the briefcase met, once compared: the elements' warnings in file order, then
    /// the container's, and the code page, as `convert` reports them. The elements the
    /// comparison did not read (`DiffOptions.tables`) are read now, for their warnings and their
    /// strings; so, when a string contradicts the code page the heads suggest, is every element
    /// once more (the exact detection of `convert`). Nil for a document in memory (it was read
    /// whole, its warnings and code page told then).
    package func readingReport() throws(BriefcaseError) -> ElementConversionReport? {
        guard case .elements(let reading) = source else { return nil }
        return try reading.report()
    }

    /// The code page its heads and properties suggest, and what its strings must keep to for
    /// it to stand; nil for a document in memory, or a code page given.
    package var headsDetection: StreamingCodePageDetection? {
        guard case .elements(let reading) = source else { return nil }
        return reading.check
    }

    /// Whether every element not read yet keeps to `check` (each read now, its warnings kept).
    package func unreadElementsHold(_ check: StreamingCodePageDetection) throws(BriefcaseError) -> Bool {
        guard case .elements(let reading) = source else { return true }
        return try reading.readUnread(checking: check)
    }

    /// The warnings of `readingReport()` without its code page: no string looked at. Nil for
    /// a document in memory.
    package func readingWarnings() throws(BriefcaseError) -> [DecodingWarning]? {
        guard case .elements(let reading) = source else { return nil }
        return try reading.warnings()
    }
}

/// A briefcase as a comparison or a merge walks it: properties, the places of the tables, and each
/// table read when wanted (failing as `Failure`), then let go.
package protocol TableSource: Sendable {
    associatedtype Failure: Error
    var properties: [BriefcaseProperty] { get }
    var places: [TablePlace] { get }
    func read(_ place: TablePlace) throws(Failure) -> TableAndDelta
    func release(_ place: TablePlace)
}

/// A document in memory as a side: nothing to read, nothing that fails.
package struct DocumentTables: TableSource {
    package let properties: [BriefcaseProperty]
    package let places: [TablePlace]
    package let elements: [Element]

    package init(_ document: BriefcaseDocument) {
        elements = document.file.stream.elements
        properties = document.file.properties
        places = TablePlace.places(kinds: elements.map(\.kind), names: elements.map(\.name), sizes: { _ in 1 })
    }

    package func read(_ place: TablePlace) -> TableAndDelta { TableAndDelta(place) { elements[$0] } }
    package func release(_ place: TablePlace) {}
}

extension TableAndDelta {
    /// The table and delta at `place`, each element as `element` gives it.
    package init<Failure: Error>(_ place: TablePlace, _ element: (Int) throws(Failure) -> Element) throws(Failure) {
        var table: Table?, delta: Delta?
        if let i = place.table, case .table(let found) = try element(i) { table = found }
        if let i = place.delta, case .delta(let found) = try element(i) { delta = found }
        self.init(table: table, delta: delta, position: place.table)
    }
}

/// Where a table and its delta are among a briefcase's elements.
package struct TablePlace: Sendable {
    /// The table's (or the delta's) name.
    package var name: ByteString
    /// The places of the table and of its delta (nil: none).
    package var table: Int?
    package var delta: Int?
    /// The bytes of both (how much work reading it is).
    package var size: Int
    package var key: [UInt8] { nameKey(name) }

    /// The tables with their deltas (by the one pairing rule, Spec/bin2.md §8.10) in stream
    /// order, then the deltas of no table, of elements of these kinds and names.
    package static func places(kinds: [ElementKind], names: [ByteString], sizes: (Int) -> Int) -> [TablePlace] {
        let pairing = ElementPairing(kinds: kinds, names: names)
        var tables: [TablePlace] = [], orphans: [TablePlace] = []
        for (i, kind) in kinds.enumerated() {
            let mate = pairing.partner[i]
            switch kind {
            case .table: tables.append(TablePlace(name: names[i], table: i, delta: mate, size: sizes(i) + (mate.map(sizes) ?? 0)))
            case .delta where mate == nil: orphans.append(TablePlace(name: names[i], table: nil, delta: i, size: sizes(i)))
            case .delta: break
            }
        }
        return tables + orphans
    }
}

/// A binary briefcase's elements read one at a time, from any thread, with what reading them
/// met: their warnings, and whether their strings keep the code page the heads suggest.
private final class ElementsReading: Sendable {
    let stored: [BriefcaseElements.Stored]
    let heads: [Element?]
    let properties: [BriefcaseProperty]
    let containerWarnings: [DecodingWarning]
    let encoding: CodePage?
    /// The code page the heads suggest and what the rest must keep to it (nil: given).
    let check: StreamingCodePageDetection?
    /// Whether each element's strings are checked as it is read (else: all at once, if asked).
    let checkingAsRead: Bool
    private let state = Mutex(State())

    private struct State {
        /// Each element's warnings, once it was read.
        var warnings: [Int: [DecodingWarning]] = [:]
        /// Whether an element read held a string the heads' code page cannot take.
        var contradicted = false
    }

    init(_ elements: BriefcaseElements, encoding: CodePage?, checkingAsRead: Bool) {
        self.checkingAsRead = checkingAsRead
        stored = elements.elements
        heads = elements.elements.indices.map { try? elements.head($0) }
        properties = elements.properties
        containerWarnings = elements.containerWarnings
        self.encoding = encoding
        check = encoding == nil ? StreamingCodePageDetection(heads: heads.compactMap { $0 }, properties: properties) : nil
    }

    /// Element `i` decoded and checked; `twoThreads`, the check side by side with `work` (or,
    /// without, with itself: `StreamingCodePageDetection.holds(for:twoThreads:)`).
    func read(_ i: Int, twoThreads: Bool = false, alongside work: ((Element) -> Void)? = nil) throws(BriefcaseError) -> Element {
        var warnings: [DecodingWarning] = []
        let element = try stored[i].decodeInPlace(warnings: &warnings)
        var holds = true
        if twoThreads, let work, checkingAsRead, let check {
            // Two items on two threads: the check, and the caller's work, which is done before
            // this returns (both only read the element).
            let checked = Mutex(true)
            nonisolated(unsafe) let work = work
            DispatchQueue.concurrentPerform(iterations: 2) { k in
                if k == 0 {
                    let result = check.holds(for: element)
                    checked.withLock { $0 = result }
                } else {
                    work(element)
                }
            }
            holds = checked.withLock { $0 }
        } else {
            holds = checkingAsRead ? check?.holds(for: element, twoThreads: twoThreads) ?? true : true
            work?(element)
        }
        state.withLock { state in
            state.warnings[i] = warnings
            if !holds { state.contradicted = true }
        }
        return element
    }

    func release(_ i: Int) { stored[i].releaseMapped() }

    var contradicted: Bool { state.withLock { $0.contradicted } }

    var warningsSoFar: [DecodingWarning] {
        state.withLock { state in stored.indices.flatMap { state.warnings[$0] ?? [] } } + containerWarnings
    }

    /// Reads each element not read yet (its warnings kept); whether all of them keep to `check`.
    @discardableResult
    func readUnread(checking check: StreamingCodePageDetection? = nil) throws(BriefcaseError) -> Bool {
        var holds = true
        for i in stored.indices where state.withLock({ $0.warnings[i] == nil }) {
            let element = try read(i)
            holds = (check?.holds(for: element) ?? true) && holds
            release(i)
        }
        return holds
    }

    /// Every element's warnings in file order (the elements not read yet are read now), then the container's.
    func warnings() throws(BriefcaseError) -> [DecodingWarning] {
        try readUnread()
        return state.withLock { state in stored.indices.flatMap { state.warnings[$0] ?? [] } } + containerWarnings
    }

    func report() throws(BriefcaseError) -> ElementConversionReport {
        var report = ElementConversionReport(codePage: encoding ?? .utf8)
        report.warnings = try warnings()
        guard let check else { return report }
        var detection = check.detection
        if !checkingAsRead && check.mustDecode != nil || state.withLock({ $0.contradicted }) {
            // The exact detection: every element's strings, a few kept as witnesses.
            var witnesses = CodePageWitnesses()
            for i in stored.indices {
                var ignored: [DecodingWarning] = []
                witnesses.add(try stored[i].decodeInPlace(warnings: &ignored))
                release(i)
            }
            detection = witnesses.detection(heads: heads.compactMap { $0 }, properties: properties)
        }
        report.codePage = detection.codePage
        report.detection = detection
        return report
    }
}

/// A table and its pending delta (by the one pairing rule, Spec/bin2.md §8.10), or a delta
/// without a table.
public struct TableAndDelta: Sendable {
    /// The table (nil for a delta without one).
    public var table: Table?
    /// Its pending delta (nil when it has none).
    public var delta: Delta?
    /// The table's place among the stream's elements (nil for a delta without a table).
    public var position: Int?
    /// The table's (or the delta's) name.
    public var name: ByteString { table?.name ?? delta!.name }

    /// The stream's tables with their deltas, in stream order, then the deltas of no table.
    public static func entries(of stream: Bin2Stream) -> [TableAndDelta] {
        let elements = stream.elements
        return TablePlace.places(kinds: elements.map(\.kind), names: elements.map(\.name), sizes: { _ in 0 })
            .map { TableAndDelta($0) { elements[$0] } }
    }

    /// Whether each field of the table is in its key (its schema's `InPrimaryKey` is True).
    public var keyFlags: [Bool] {
        guard let table else { return [] }
        let keys = Set(table.primaryKeyColumns)
        return table.fields.indices.map(keys.contains)
    }
}
