// The one interface between the readers and the writers of every format (README, "Architecture"):
// a source hands a briefcase to a sink part by part, in the order every format stores it — the
// head, then each element (a table with its rows, or a delta with its changes) — so that one
// element at a time need be in memory, and each element is read once.

/// What a briefcase says before its elements, whatever its format: the container it is (or was)
/// in, the code page of its 8-bit strings (named by a JSON or snapshot document, a folder's,
/// given, or detected), and a single-file briefcase's properties and header padding.
public struct BriefcaseHead: Hashable, Sendable {
    /// The container the briefcase is (or was) in.
    public var container: ContainerFormat
    /// The code page of the briefcase's 8-bit strings.
    public var codePage: CodePage
    /// A single file's properties (a folder's `Properties.plist`), in order.
    public var properties: [BriefcaseProperty]
    /// Bytes between a single file's properties and its data, kept for byte-exact writing.
    public var headerPadding: ByteString

    /// A head of these parts.
    public init(container: ContainerFormat, codePage: CodePage, properties: [BriefcaseProperty] = [], headerPadding: ByteString = .empty) {
        self.container = container
        self.codePage = codePage
        self.properties = properties
        self.headerPadding = headerPadding
    }
}

/// What a sink needs of a source, and what it does with the elements: one value, read by the
/// source before a run (never a question that changes the sink).
public struct SinkNeeds: Sendable, Equatable {
    /// Every element's head before the first `begin` (`prepare(heads:)`): a sink that lays its
    /// output out from the names and columns (a folder's file names, a snapshot's ids). A source
    /// that cannot give heads first (a JSON document read as it arrives) reads the briefcase whole.
    public var headsFirst: Bool
    /// Only each element's head and count (`element(summary:at:)`, `info`): a source that can read
    /// heads alone (a binary briefcase, by offset) reads nothing else. One that cannot still hands
    /// whole elements.
    public var headsOnly: Bool
    /// Rows are written from the bytes they are kept as (`Rows.visitStored`), never made values:
    /// a source may decode from its file mapped into memory (a sink that made values would copy
    /// each string out of the mapping).
    public var rowsFromTheirBytes: Bool
    /// A large table's rows can be written on several threads (`useJobsWithinElements`): a source
    /// whose elements are too large to be decoded ahead on its jobs hands them one at a time.
    public var jobsWithinElements: Bool
    /// Every 8-bit string written as UTF-8 is checked as it is written (a JSON writer checks each
    /// one anyway): `elementCheckingUTF8` returns the answer, which spares a source that detects
    /// the code page a second walk over the element.
    public var checksUTF8: Bool
    /// Every element is kept (a document collected whole, `BriefcaseCollector`): a source reads
    /// each into memory of its own, not into the memory of the element before.
    public var keepsElements: Bool

    /// Needs of these kinds; none by default (elements whole, in stream order).
    public init(headsFirst: Bool = false, headsOnly: Bool = false, rowsFromTheirBytes: Bool = false, jobsWithinElements: Bool = false,
                checksUTF8: Bool = false, keepsElements: Bool = false) {
        self.headsFirst = headsFirst
        self.headsOnly = headsOnly
        self.rowsFromTheirBytes = rowsFromTheirBytes
        self.jobsWithinElements = jobsWithinElements
        self.checksUTF8 = checksUTF8
        self.keepsElements = keepsElements
    }
}

/// Takes a briefcase from a source: `begin` with its head, `element` for each element in order,
/// then `finish`. A source may `abandon` after `begin` — when it fails, or to start over (a code
/// page that a later element contradicts, a JSON document whose head comes after its elements) —
/// and then `begin` again: everything received before is void. After `finish`, nothing comes.
///
/// The contract is about the data: the head, the elements (by stream position), their heads
/// first when the sink asks (`needs`), and on several threads the sink's own work on each element
/// (`elementPreparation()`).
public protocol BriefcaseSink {
    /// Starts (or starts again) with the briefcase's head.
    mutating func begin(_ head: BriefcaseHead) throws(BriefcaseError)
    /// Takes the next element: a table with its rows, or a delta with its changes.
    mutating func element(_ element: Element) throws(BriefcaseError)
    /// Completes the output: nothing more comes.
    mutating func finish() throws(BriefcaseError)
    /// Forgets everything received since `begin` (the source failed, or starts over).
    mutating func abandon()

    /// The element at stream position `position`, from a source that knows positions (what a
    /// sink that ordered the elements in `prepare(heads:)` goes by). Default: `element(_:)`.
    mutating func element(_ element: Element, at position: Int) throws(BriefcaseError)

    /// What the sink needs of the source (`SinkNeeds`). Default: none.
    var needs: SinkNeeds { get }

    /// Every element's head (a table without rows, a delta without changes), before the first
    /// `begin`, when `needs.headsFirst`; returns the stream positions in the order the sink wants
    /// the elements (a position may come more than once), or nil for stream order. Default: nil.
    mutating func prepare(heads: [Element]) throws(BriefcaseError) -> [Int]?

    /// The head and count of the element at stream position `position`, from a source that read
    /// only that (`needs.headsOnly`). Default: nothing.
    mutating func element(summary: ElementSummary, at position: Int) throws(BriefcaseError)

    /// The element at `position`, returning whether every 8-bit string it wrote as UTF-8 was
    /// valid UTF-8: asked of a sink whose `needs.checksUTF8`. Default: `element(_:at:)`, true.
    mutating func elementCheckingUTF8(_ element: Element, at position: Int) throws(BriefcaseError) -> Bool

    /// Uses `jobs` threads within each large element, for the rest of the run: said by a source
    /// that hands a sink whose `needs.jobsWithinElements` its elements one at a time. Default:
    /// nothing.
    mutating func useJobsWithinElements(_ jobs: Int)

    /// What the sink's work on an element done on another thread makes (`elementPreparation()`):
    /// a JSON writer's encoded object, a binary writer's encoded element. `Never` (the default):
    /// no such work.
    associatedtype Prepared: Sendable = Never

    /// Work on each element that can be done on any thread before the element's turn — a JSON
    /// writer's encoding of it — asked for after each `begin` (the work may depend on the head).
    /// A source decoding on several threads has its workers do it, and hands the result to
    /// `element(_:prepared:at:)`. nil (the default): none.
    func elementPreparation() -> ElementPreparation<Prepared>?

    /// The element at `position` with what `elementPreparation()` made of it on another thread.
    /// Default: `element(_:at:)`.
    mutating func element(_ element: Element, prepared: Prepared, at position: Int) throws(BriefcaseError)

    /// `element(_:prepared:at:)`, returning whether its 8-bit strings were valid UTF-8 (as
    /// `elementCheckingUTF8(_:at:)`). Default: `element(_:prepared:at:)`, true.
    mutating func elementCheckingUTF8(_ element: Element, prepared: Prepared, at position: Int) throws(BriefcaseError) -> Bool
}

/// What a sink lets be done to an element on any thread (`BriefcaseSink.elementPreparation()`).
public struct ElementPreparation<Prepared: Sendable>: Sendable {
    /// Makes the sink's result for one element; called on worker threads, in any order, with the
    /// number of jobs of the run: a large element may be worked on by that many threads at once
    /// (the caller's among them), so that it does not keep one core busy while the others wait.
    public let prepare: @Sendable (_ element: Element, _ jobs: Int) -> Prepared
    /// Whether `element(_:prepared:at:)` reads the element's rows or changes beside the result.
    /// When not (a JSON writer, which writes the bytes it prepared), the worker lets them go as
    /// soon as it has prepared them and hands on the element's head only — so their memory is
    /// used again for the worker's next element instead of waiting, fresh, for the sink's turn.
    /// Such a sink must check UTF-8 (`SinkNeeds.checksUTF8`: code page detection then needs no rows).
    public let needsRows: Bool

    /// A preparation doing `prepare` to each element; `needsRows` false: the sink gets only the
    /// head of each element prepared.
    public init(needsRows: Bool = true, _ prepare: @escaping @Sendable (Element) -> Prepared) {
        self.prepare = { element, _ in prepare(element) }
        self.needsRows = needsRows
    }

    /// A preparation doing `prepare` to each element with the run's number of jobs.
    public init(needsRows: Bool = true, jobs prepare: @escaping @Sendable (_ element: Element, _ jobs: Int) -> Prepared) {
        self.prepare = prepare
        self.needsRows = needsRows
    }
}

extension BriefcaseSink {
    public mutating func element(_ element: Element, at position: Int) throws(BriefcaseError) { try self.element(element) }
    public var needs: SinkNeeds { SinkNeeds() }
    public mutating func prepare(heads: [Element]) throws(BriefcaseError) -> [Int]? { nil }
    public mutating func element(summary: ElementSummary, at position: Int) throws(BriefcaseError) {}
    /// The element written by `element(_:at:)`: nothing is checked.
    public mutating func elementCheckingUTF8(_ element: Element, at position: Int) throws(BriefcaseError) -> Bool {
        try self.element(element, at: position)
        return true
    }
    /// No jobs within elements.
    public mutating func useJobsWithinElements(_ jobs: Int) {}
    /// No preparation: the elements come whole to `element(_:at:)`.
    public func elementPreparation() -> ElementPreparation<Prepared>? { nil }
    /// Passes the element to `element(_:at:)`, the result of the preparation unused.
    public mutating func element(_ element: Element, prepared: Prepared, at position: Int) throws(BriefcaseError) {
        try self.element(element, at: position)
    }
    /// The element written by `element(_:prepared:at:)`: nothing is checked.
    public mutating func elementCheckingUTF8(_ element: Element, prepared: Prepared, at position: Int) throws(BriefcaseError) -> Bool {
        try self.element(element, prepared: prepared, at: position)
        return true
    }
}

/// Keeps every element it is given: what the whole-document API collects a source into.
public struct BriefcaseCollector: BriefcaseSink {
    /// The head received, once `begin` was called.
    public private(set) var head: BriefcaseHead?
    /// The elements received, in order.
    public private(set) var elements: [Element] = []

    /// An empty collector.
    public init() {}

    /// It keeps every element.
    public var needs: SinkNeeds { SinkNeeds(keepsElements: true) }

    /// The document once finished (nil before).
    public private(set) var document: BriefcaseDocument?

    /// Keeps the head and forgets earlier elements.
    public mutating func begin(_ head: BriefcaseHead) throws(BriefcaseError) {
        self.head = head
        elements = []
        document = nil
    }

    /// Keeps the element.
    public mutating func element(_ element: Element) throws(BriefcaseError) {
        elements.append(element)
    }

    /// Makes the document of what was received.
    public mutating func finish() throws(BriefcaseError) {
        guard let head else { throw BriefcaseError(.invalidModel, "internal: a briefcase finished before it began") }
        let file = BriefcaseFile(properties: head.properties, stream: Bin2Stream(elements: elements), headerPadding: head.headerPadding)
        document = BriefcaseDocument(container: head.container, file: file)
    }

    /// Forgets what was received.
    public mutating func abandon() {
        head = nil
        elements = []
        document = nil
    }
}

/// A sink around another (`inner`): everything passes through, except what the wrapper adds by
/// implementing it itself.
package protocol ForwardingSink: BriefcaseSink {
    /// The type of the sink wrapped.
    associatedtype Inner: BriefcaseSink
    /// The sink wrapped.
    var inner: Inner { get set }
}

extension ForwardingSink {
    /// Passes the head on.
    public mutating func begin(_ head: BriefcaseHead) throws(BriefcaseError) { try inner.begin(head) }
    /// Passes the element on.
    public mutating func element(_ element: Element) throws(BriefcaseError) { try inner.element(element) }
    public mutating func element(_ element: Element, at position: Int) throws(BriefcaseError) { try inner.element(element, at: position) }
    /// Finishes the wrapped sink.
    public mutating func finish() throws(BriefcaseError) { try inner.finish() }
    /// Abandons the wrapped sink.
    public mutating func abandon() { inner.abandon() }
    /// The inner sink's needs, but for what would hand elements past the wrapper's own
    /// `element(_:at:)`: the UTF-8 check and jobs within elements go through
    /// `PassingPreparedElements` only.
    public var needs: SinkNeeds {
        var needs = inner.needs
        needs.checksUTF8 = false
        needs.jobsWithinElements = false
        return needs
    }
    public mutating func prepare(heads: [Element]) throws(BriefcaseError) -> [Int]? { try inner.prepare(heads: heads) }
    public mutating func element(summary: ElementSummary, at position: Int) throws(BriefcaseError) { try inner.element(summary: summary, at: position) }
    // (`elementPreparation()` is not passed through by default: a wrapper that looks at the
    // elements would miss those handed over prepared. One that does not opts in with
    // `PassingPreparedElements`.)
}

/// A forwarding sink that lets its inner sink's preparation through (`elementPreparation()`,
/// `element(_:prepared:at:)`, of the inner sink's `Prepared` type), and its needs whole: for
/// wrappers that do not look at the elements themselves.
package protocol PassingPreparedElements: ForwardingSink where Prepared == Inner.Prepared {}

extension PassingPreparedElements {
    /// The inner sink's needs, whole.
    public var needs: SinkNeeds { inner.needs }
    /// The inner sink's preparation.
    public func elementPreparation() -> ElementPreparation<Prepared>? { inner.elementPreparation() }
    /// Passes the element and its prepared result to the inner sink.
    public mutating func element(_ element: Element, prepared: Prepared, at position: Int) throws(BriefcaseError) {
        try inner.element(element, prepared: prepared, at: position)
    }
    /// Passes the element to the inner sink, with its answer.
    public mutating func elementCheckingUTF8(_ element: Element, at position: Int) throws(BriefcaseError) -> Bool {
        try inner.elementCheckingUTF8(element, at: position)
    }
    /// Passes the element and its prepared result to the inner sink, with its answer.
    public mutating func elementCheckingUTF8(_ element: Element, prepared: Prepared, at position: Int) throws(BriefcaseError) -> Bool {
        try inner.elementCheckingUTF8(element, prepared: prepared, at: position)
    }
    /// Passes the jobs on.
    public mutating func useJobsWithinElements(_ jobs: Int) { inner.useJobsWithinElements(jobs) }
}

/// A sink that writes in a code page of its own choosing (`--encoding`), whatever the source
/// names: the head it passes on names `codePage`.
package struct CodePageOverride<Inner: BriefcaseSink>: PassingPreparedElements {
    package typealias Prepared = Inner.Prepared
    /// The sink the heads go to.
    public var inner: Inner
    /// The code page the output is written in; nil: the source's.
    public let codePage: CodePage?

    /// With `codePage` nil, the heads pass unchanged.
    public init(_ sink: Inner, codePage: CodePage?) {
        self.inner = sink
        self.codePage = codePage
    }

    /// Passes the head on, naming `codePage` when one is set.
    public mutating func begin(_ head: BriefcaseHead) throws(BriefcaseError) {
        var head = head
        if let codePage { head.codePage = codePage }
        try inner.begin(head)
    }
}
