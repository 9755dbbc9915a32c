import Foundation

/// What worker threads make of an element's bytes: the model (`ModelReading`), or what
/// `validate` checks as it reads (`CheckedReading`).
protocol ElementReading: Sendable {
    associatedtype Product: Sendable
    /// Whether what it makes shares the bytes it was read from (the model's values do; the
    /// checks' findings do not): then those bytes stay with the product until the taker lets it go.
    static var productSharesBytes: Bool { get }
    /// Reads the element `entry` from `decoder`'s bytes (which hold its range).
    func read(_ decoder: inout Bin2Decoder, _ entry: ElementIndex.Entry, positionBase: Int) throws(BriefcaseError) -> Product
    /// The reading of the element at `position` (what is known of it already).
    func forElement(_ position: Int) -> Self
}

extension ElementReading {
    func forElement(_ position: Int) -> Self { self }
}

/// Elements decoded into the model; those whose heads were read before (`heads`, by position)
/// from where their heads end.
struct ModelReading: ElementReading {
    static var productSharesBytes: Bool { true }
    var heads: [ElementHeadRead?] = []
    private var head: ElementHeadRead?

    init(heads: [ElementHeadRead?] = []) { self.heads = heads }

    func read(_ decoder: inout Bin2Decoder, _ entry: ElementIndex.Entry, positionBase: Int) throws(BriefcaseError) -> Element {
        try decoder.decodeElement(entry, positionBase: positionBase, head: head)
    }

    func forElement(_ position: Int) -> ModelReading {
        guard position < heads.count, let known = heads[position] else { return self }
        var reading = ModelReading()
        reading.head = known
        return reading
    }
}

/// An element as the driver loop (`BriefcaseElements.read(into:…)`) takes it from the decoding:
/// what it was read into or the error it failed with, and what the decoder warned about (also
/// before a failure).
struct DecodedElement<Product: Sendable, Prepared: Sendable>: Sendable {
    var outcome: Result<Product, BriefcaseError>
    var warnings: [DecodingWarning]
    /// What the sink's `elementPreparation()` made of the element on the worker that decoded it.
    var prepared: Prepared? = nil
    /// The memory the element was read into, when it shares it: the taker hands it back to the
    /// workers (`ByteArrayPool`) once it has let the element go.
    var buffer: [UInt8] = []
}

/// The elements at `positions` (indices into `BriefcaseElements.elements`, the order the driver
/// hands them to its sink; one may come more than once), decoded one after another and taken in
/// that order, as the run's `ReadingPlan` says. Inline, each is decoded when taken, on the
/// caller's thread, into the memory of the one before (no thread, no lock: the path every
/// single-core run takes). Ahead, they are decoded by worker threads (`ElementsDecodedAhead`);
/// the caller takes the same
/// elements, warnings and errors in the same order, so whatever it does with them — what it
/// writes, reports, detects — is what it would with one job.
///
/// `ReadingPlan.Mode.rowsWithin`: one worker reads and decodes the next elements while the caller
/// works on the one it took, that one and those read adding up to at most twice the largest
/// (`WorkDoneAhead`'s budget with one job). For a sink that spends the jobs within each element
/// (`SinkNeeds.jobsWithinElements`): the reading and the decoder's pass over a large
/// element are one thread's work, and without this the other cores wait through them, element
/// after element (→ json, 1 GB, two jobs: about a quarter of the run).
struct ElementDecoding<Reading: ElementReading, Prepared: Sendable> {
    private let reader: BriefcaseElements
    private let reading: Reading
    private let positions: [Int]
    private var taken = 0
    private let ahead: ElementsDecodedAhead<Reading, Prepared>?
    /// Whether the workers hand on each prepared element's head only, its rows or changes let go
    /// once prepared (`ElementPreparation.needsRows` false, and the caller reads heads only).
    let dropsRows: Bool
    /// The memory of the element taken last, handed back to the workers at the next `next()`.
    private var lastBuffer: [UInt8] = []
    /// Whether elements are decoded from the file mapped (`mapped` below), and the element taken
    /// last, whose pages go at the next `next()`.
    private let mapped: Bool
    /// Inline reads go to fresh memory (`ReadingPlan.freshMemory`).
    private let freshMemory: Bool
    private var lastTaken: Int?

    /// With `prepare`, each worker also does the sink's work on what it read
    /// (`BriefcaseSink.elementPreparation()`); the work may replace the product by what the
    /// taker still needs of it (then `keepsBytes` says whether that shares the bytes read).
    ///
    /// `mapped`: the elements that read well so (`Stored.readsWellMapped`: tables) are decoded
    /// from the file mapped into memory (`Stored.readMapped`), not from copies read into buffers;
    /// the pages of each element taken go once the next is taken.
    init(_ reader: BriefcaseElements, reading: Reading, positions: [Int], plan: ReadingPlan,
         prepare: (@Sendable (inout Reading.Product) -> Prepared)? = nil) {
        self.reader = reader
        self.reading = reading
        self.positions = positions
        let workers: Int
        switch plan.mode {
        case .inline: workers = 0
        case .elementsAhead(let count): workers = count
        case .rowsWithin: workers = positions.count > 1 ? 1 : 0  // (one reads ahead while the sink works within)
        }
        ahead = workers > 0
            ? ElementsDecodedAhead(reader.elements, reading: reading, positions: positions, jobs: workers, mapped: plan.mapped,
                                   freshMemory: plan.freshMemory,
                                   prepare: plan.prepares ? prepare : nil,
                                   keepsBytes: Reading.productSharesBytes && !plan.dropsRows) : nil
        dropsRows = ahead != nil && Reading.productSharesBytes && plan.dropsRows
        mapped = plan.mapped
        freshMemory = plan.freshMemory
    }

    /// The next element and its position; nil after the last. Taking one lets the one taken
    /// before go (the workers may then decode one more).
    mutating func next() -> (position: Int, decoded: DecodedElement<Reading.Product, Prepared>)? {
        guard taken < positions.count else { return nil }
        let position = positions[taken]
        taken += 1
        if mapped {
            if let last = lastTaken { reader.elements[last].releaseMapped() }
            lastTaken = position
        }
        if let ahead {
            // The element taken before is gone by now (the caller holds one at a time): its memory
            // is free for the workers again. Were it still held, copy-on-write would keep it safe.
            var handed: [UInt8] = []
            swap(&handed, &lastBuffer)  // handed on, not copied: the workers' next read needs it unshared
            ahead.giveBack(consume handed)
            var decoded = ahead.take(taken - 1)
            lastBuffer = decoded.buffer
            decoded.buffer = []
            return (position, decoded)
        }
        var warnings: [DecodingWarning] = []
        do throws(BriefcaseError) {
            let stored = reader.elements[position]
            let element = mapped && stored.readsWellMapped ? try stored.readMapped(reading.forElement(position), warnings: &warnings)
                : freshMemory ? try stored.read(reading.forElement(position), warnings: &warnings)
                : try reader.read(position, reading.forElement(position), warnings: &warnings)
            return (position, DecodedElement(outcome: .success(element), warnings: warnings))
        } catch {
            return (position, DecodedElement(outcome: .failure(error), warnings: warnings))
        }
    }

    /// Stops the workers (waiting for the decoding they are in) and lets go of what they
    /// decoded: when the caller is done, or gives up early (an error, a restart).
    func stop() {
        ahead?.stop()
        if let lastTaken { reader.elements[lastTaken].releaseMapped() }
    }
}

/// Worker threads decoding `positions` ahead of the one thread that takes them in order, within
/// `WorkDoneAhead`'s byte budget (the elements' ranges in the file). Each worker reads into memory
/// used before, as the single-core path reuses its one buffer: its own, when what it reads into
/// does not keep the bytes (`validate`'s checks), else one of `buffers`, which the taker hands
/// back once it has let the element go. Fresh memory costs a page fault per 4 KiB — as much, on a
/// VM, as what a second core gains — so once the first elements are through, none is needed.
final class ElementsDecodedAhead<Reading: ElementReading, Prepared: Sendable>: Sendable {
    private let work: WorkDoneAhead<DecodedElement<Reading.Product, Prepared>>
    private let buffers: ByteArrayPool

    init(_ elements: [BriefcaseElements.Stored], reading: Reading, positions: [Int], jobs: Int, mapped: Bool, freshMemory: Bool = false,
         prepare: (@Sendable (inout Reading.Product) -> Prepared)?, keepsBytes: Bool) {
        let sizes = positions.map { elements[$0].range.count }
        let largest = sizes.max() ?? 0
        // As many kept as elements are usually in flight: the taker's and one per worker.
        let buffers = ByteArrayPool(maximumKept: jobs + 1)
        self.buffers = buffers
        work = WorkDoneAhead(sizes: sizes, jobs: jobs, name: "briefcase element decoding") {
            var own: [UInt8] = []
            return { n in
                var warnings: [DecodingWarning] = []
                let stored = elements[positions[n]], reading = reading.forElement(positions[n])
                let readsMapped = mapped && stored.readsWellMapped
                // Taken out of `own` (not copied): a second reference would make the read copy it.
                // Every array gets room for the largest element at once, so any serves any element;
                // the pool's that already touched the most memory go to the largest. A small
                // element gets memory of its own size: taking a pool's array, it would leave the
                // next large one, read while it waits, without. (One read mapped takes none.)
                var spare: [UInt8] = []
                let small = sizes[n] < largest / 8
                // A sink that keeps every element never gives memory back: each gets its own size.
                let fresh = freshMemory && !readsMapped
                let pooled = keepsBytes && !readsMapped && !fresh
                if pooled { spare = small ? [] : buffers.take(atLeast: sizes[n]) } else if !keepsBytes { swap(&spare, &own) }
                defer { if !keepsBytes { swap(&spare, &own) } }
                do throws(BriefcaseError) {
                    var product = readsMapped ? try stored.readMapped(reading, warnings: &warnings)
                        : fresh ? try stored.read(reading, warnings: &warnings)
                        : try stored.read(reading, warnings: &warnings, reusing: &spare, minimumCapacity: keepsBytes && small ? 0 : largest)
                    let prepared = prepare?(&product)
                    var decoded = DecodedElement(outcome: .success(product), warnings: warnings, prepared: prepared)
                    if pooled { decoded.buffer = spare }
                    return decoded
                } catch {
                    if pooled { buffers.giveBack(spare) }
                    return DecodedElement(outcome: .failure(error), warnings: warnings)
                }
            }
        }
    }

    /// The element of sequence number `n` (each in turn from 0), waiting for it to be decoded.
    func take(_ n: Int) -> DecodedElement<Reading.Product, Prepared> { work.take(n) }

    /// Stops the workers and drops what is left decoded.
    func stop() { work.stop() }

    /// Memory an element was read into, free again once the taker let the element go.
    func giveBack(_ buffer: [UInt8]) { buffers.giveBack(buffer) }
}

extension ElementDecoding where Reading == ModelReading {
    /// The elements decoded into the model as `plan` says; with `preparation`, each worker also
    /// does the sink's work on the element it decoded, and lets its rows go after when the plan
    /// says so (`ReadingPlan.dropsRows`).
    /// `heads`: by position, those read before (`BriefcaseElements.headRead`), not read again.
    init(_ reader: BriefcaseElements, positions: [Int], plan: ReadingPlan, preparation: ElementPreparation<Prepared>? = nil,
         heads: [ElementHeadRead?] = []) {
        var prepare: (@Sendable (inout Element) -> Prepared)?
        if let preparation, case .elementsAhead(let jobs) = plan.mode {
            let dropsRows = plan.dropsRows
            prepare = { (element: inout Element) -> Prepared in
                let prepared = preparation.prepare(element, jobs)
                if dropsRows { element = element.detachedHead }
                return prepared
            }
        }
        self.init(reader, reading: ModelReading(heads: heads), positions: positions, plan: plan, prepare: prepare)
    }

    /// The elements decoded into the model on `jobs`, nothing prepared (`ReadingPlan.plain`).
    init(_ reader: BriefcaseElements, positions: [Int], jobs: Int) {
        self.init(reader, positions: positions, plan: .plain(jobs: jobs, elementCount: positions.count))
    }
}
