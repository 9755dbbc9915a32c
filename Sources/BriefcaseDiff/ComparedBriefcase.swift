import BriefcaseKit
import Synchronization

/// One side of a comparison (Spec/diff.md §1, §8): a briefcase's properties and its tables with
/// their deltas, each table read only when it is compared.
///
/// A document in memory has them all. A binary briefcase opened element by element
/// (`BriefcaseElements`: a `.daBriefcase`, a bare Bin2 stream, a folder) has its element index
/// only: each table is decoded from its file mapped when it is compared (its rows stay views into
/// the mapping, no copy) and let go once compared, so a comparison holds the tables it is
/// comparing, never the whole briefcase.
public struct ComparedBriefcase: Sendable, TableSource {
    /// The briefcase's properties, in order.
    public let properties: [BriefcaseProperty]
    /// Its tables with their deltas, then the deltas of no table (`TablePlace.places`).
    let places: [TablePlace]
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
    /// `encoding`, or detected as `convert` detects it (`readingReport()`).
    public init(_ elements: BriefcaseElements, encoding: CodePage? = nil) {
        properties = elements.properties
        let stored = elements.elements
        places = TablePlace.places(kinds: stored.map(\.kind), names: stored.map(\.name), sizes: { stored[$0].range.count })
        source = .elements(ElementsReading(elements, encoding: encoding))
    }

    /// The elements without their rows and changes (names, fields, schemas), in stream order;
    /// nil where a head cannot be read (its element fails when read whole).
    package var heads: [Element?] {
        switch source {
        case .document(let tables): tables.elements.map { $0.head as Element? }
        case .elements(let reading): reading.heads
        }
    }

    func read(_ place: TablePlace) throws(BriefcaseError) -> TableAndDelta {
        switch source {
        case .document(let tables): return tables.read(place)
        case .elements(let reading): return try TableAndDelta(place) { i throws(BriefcaseError) in try reading.read(i) }
        }
    }

    func release(_ place: TablePlace) {
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
}

/// One side of a comparison as `BriefcaseComparison` walks it: properties, the places of the
/// tables, and each table read when compared (failing as `Failure`), then let go.
protocol TableSource: Sendable {
    associatedtype Failure: Error
    var properties: [BriefcaseProperty] { get }
    var places: [TablePlace] { get }
    func read(_ place: TablePlace) throws(Failure) -> TableAndDelta
    func release(_ place: TablePlace)
}

/// A document in memory as a side: nothing to read, nothing that fails.
struct DocumentTables: TableSource {
    let properties: [BriefcaseProperty]
    let places: [TablePlace]
    let elements: [Element]

    init(_ document: BriefcaseDocument) {
        elements = document.file.stream.elements
        properties = document.file.properties
        places = TablePlace.places(kinds: elements.map(\.kind), names: elements.map(\.name), sizes: { _ in 1 })
    }

    func read(_ place: TablePlace) -> TableAndDelta { TableAndDelta(place) { elements[$0] } }
    func release(_ place: TablePlace) {}
}

extension TableAndDelta {
    /// The table and delta at `place`, each element as `element` gives it.
    init<Failure: Error>(_ place: TablePlace, _ element: (Int) throws(Failure) -> Element) throws(Failure) {
        var table: Table?, delta: Delta?
        if let i = place.table, case .table(let found) = try element(i) { table = found }
        if let i = place.delta, case .delta(let found) = try element(i) { delta = found }
        self.init(table: table, delta: delta, position: place.table)
    }
}

/// Where a table and its delta are among a briefcase's elements.
struct TablePlace: Sendable {
    /// The table's (or the delta's) name.
    var name: ByteString
    /// The places of the table and of its delta (nil: none).
    var table: Int?
    var delta: Int?
    /// The bytes of both (how much work comparing it is).
    var size: Int
    var key: [UInt8] { nameKey(name) }

    /// The tables with their deltas (by the one pairing rule, Spec/bin2.md §8.10) in stream
    /// order, then the deltas of no table, of elements of these kinds and names.
    static func places(kinds: [ElementKind], names: [ByteString], sizes: (Int) -> Int) -> [TablePlace] {
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
    private let state = Mutex(State())

    private struct State {
        /// Each element's warnings, once it was read.
        var warnings: [Int: [DecodingWarning]] = [:]
        /// Whether an element read held a string the heads' code page cannot take.
        var contradicted = false
    }

    init(_ elements: BriefcaseElements, encoding: CodePage?) {
        stored = elements.elements
        heads = elements.elements.indices.map { try? elements.head($0) }
        properties = elements.properties
        containerWarnings = elements.containerWarnings
        self.encoding = encoding
        check = encoding == nil ? StreamingCodePageDetection(heads: heads.compactMap { $0 }, properties: properties) : nil
    }

    func read(_ i: Int) throws(BriefcaseError) -> Element {
        var warnings: [DecodingWarning] = []
        let element = try stored[i].decodeInPlace(warnings: &warnings)
        let holds = check?.holds(for: element) ?? true
        state.withLock { state in
            state.warnings[i] = warnings
            if !holds { state.contradicted = true }
        }
        return element
    }

    func release(_ i: Int) { stored[i].releaseMapped() }

    func report() throws(BriefcaseError) -> ElementConversionReport {
        for i in stored.indices where state.withLock({ $0.warnings[i] == nil }) {
            _ = try read(i)
            release(i)
        }
        let (warnings, contradicted) = state.withLock { state in
            (stored.indices.flatMap { state.warnings[$0] ?? [] }, state.contradicted)
        }
        var report = ElementConversionReport(codePage: encoding ?? .utf8)
        report.warnings = warnings + containerWarnings
        guard let check else { return report }
        var detection = check.detection
        if contradicted {
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
