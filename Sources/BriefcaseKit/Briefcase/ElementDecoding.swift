import Foundation

/// What worker threads make of an element's bytes: the model (`ModelReading`), or what
/// `validate` checks as it reads (`CheckedReading`).
protocol ElementReading: Sendable {
    associatedtype Product: Sendable
    /// Reads the element `entry` from `decoder`'s bytes (which hold its range).
    func read(_ decoder: inout Bin2Decoder, _ entry: ElementIndex.Entry, positionBase: Int) throws(BriefcaseError) -> Product
}

/// Elements decoded into the model.
struct ModelReading: ElementReading {
    func read(_ decoder: inout Bin2Decoder, _ entry: ElementIndex.Entry, positionBase: Int) throws(BriefcaseError) -> Element {
        try decoder.decodeElement(entry, positionBase: positionBase)
    }
}

/// An element as the driver loop (`BriefcaseElements.read(into:…)`) takes it from the decoding:
/// what it was read into or the error it failed with, and what the decoder warned about (also
/// before a failure).
struct DecodedElement<Product: Sendable>: Sendable {
    var outcome: Result<Product, BriefcaseError>
    var warnings: [DecodingWarning]
}

/// The elements at `positions` (indices into `BriefcaseElements.elements`, the order the driver
/// hands them to its sink; one may come more than once), decoded one after another and taken in
/// that order. With one job, each is decoded when taken, on the caller's thread, into the memory
/// of the one before (no thread, no lock: the path every single-core run takes). With more, they
/// are decoded ahead by worker threads (`ElementsDecodedAhead`); the caller takes the same
/// elements, warnings and errors in the same order, so whatever it does with them — what it
/// writes, reports, detects — is what it would with one job.
struct ElementDecoding<Reading: ElementReading> {
    private let reader: BriefcaseElements
    private let reading: Reading
    private let positions: [Int]
    private var taken = 0
    private let ahead: ElementsDecodedAhead<Reading>?

    init(_ reader: BriefcaseElements, reading: Reading, positions: [Int], jobs: Int) {
        self.reader = reader
        self.reading = reading
        self.positions = positions
        // Workers only pay when there is more than one element to share among them.
        ahead = jobs > 1 && positions.count > 1
            ? ElementsDecodedAhead(reader.elements, reading: reading, positions: positions, jobs: jobs) : nil
    }

    /// The next element and its position; nil after the last. Taking one lets the one taken
    /// before go (the workers may then decode one more).
    mutating func next() -> (position: Int, decoded: DecodedElement<Reading.Product>)? {
        guard taken < positions.count else { return nil }
        let position = positions[taken]
        taken += 1
        if let ahead { return (position, ahead.take(taken - 1)) }
        var warnings: [DecodingWarning] = []
        do throws(BriefcaseError) {
            let element = try reader.read(position, reading, warnings: &warnings)
            return (position, DecodedElement(outcome: .success(element), warnings: warnings))
        } catch {
            return (position, DecodedElement(outcome: .failure(error), warnings: warnings))
        }
    }

    /// Stops the workers (waiting for the decoding they are in) and lets go of what they
    /// decoded: when the caller is done, or gives up early (an error, a restart).
    func stop() {
        ahead?.stop()
    }
}

/// Worker threads decoding `positions` ahead of the one thread that takes them in order.
///
/// How far ahead: the elements decoded ahead of the one the taker holds — being decoded, or
/// decoded and waiting — add up to at most `jobs` times the largest element's bytes (its range
/// in the file), and number at most `jobs` × 16. So memory holds at most `jobs` + 1 elements the
/// size of the largest, the sink's included, where one job holds one (plus each worker's read
/// buffer, reused for its next element as the single-core path reuses its one). A bound in bytes
/// rather than in elements: briefcases put small tables between large ones, and a window of a few
/// elements would leave the workers idle behind the small ones while the sink writes a large one.
///
/// `@unchecked Sendable`: the workers and the taker share the object, and every mutable property
/// is read and written only with `condition` locked; the elements it hands across are `Sendable`.
final class ElementsDecodedAhead<Reading: ElementReading>: @unchecked Sendable {
    private let elements: [BriefcaseElements.Stored]
    private let reading: Reading
    private let positions: [Int]
    /// `bytesBefore[k]`: the bytes of the elements at `positions[0 ..< k]`.
    private let bytesBefore: [Int]
    private let budget: Int
    private let maximumAhead: Int
    private let condition = NSCondition()
    /// Decoded elements by sequence number modulo `slots.count` (`taker ... taker + maximumAhead`).
    private var slots: [DecodedElement<Reading.Product>?]
    /// The next sequence number a worker decodes.
    private var nextToDecode = 0
    /// The sequence number the taker holds or waits for: those before it are let go.
    private var taker = 0
    private var stopped = false
    private var runningWorkers: Int

    init(_ elements: [BriefcaseElements.Stored], reading: Reading, positions: [Int], jobs: Int) {
        self.elements = elements
        self.reading = reading
        self.positions = positions
        var total = 0, largest = 0
        bytesBefore = [0] + positions.map { position in
            let count = elements[position].range.count
            largest = max(largest, count)
            total += count
            return total
        }
        budget = jobs * max(largest, 1)
        maximumAhead = jobs * 16
        slots = Array(repeating: nil, count: maximumAhead + 1)
        runningWorkers = min(jobs, positions.count)
        for _ in 0 ..< runningWorkers {
            let worker = Thread { [self] in work() }
            worker.name = "briefcase element decoding"
            worker.start()
        }
    }

    /// Whether sequence number `n` may be decoded now (called with `condition` locked): it is the
    /// one the taker waits for, or it is within the budget of the elements ahead of it.
    private func mayDecode(_ n: Int) -> Bool {
        n == taker || (n - taker <= maximumAhead && bytesBefore[n + 1] - bytesBefore[taker + 1] <= budget)
    }

    /// The element of sequence number `n` (each in turn from 0), waiting for it to be decoded.
    func take(_ n: Int) -> DecodedElement<Reading.Product> {
        condition.lock()
        defer { condition.unlock() }
        if taker != n {
            taker = n  // the one before is let go: workers may start more
            condition.broadcast()
        }
        while true {
            if let decoded = slots[n % slots.count] {
                slots[n % slots.count] = nil
                return decoded
            }
            condition.wait()
        }
    }

    /// Asks the workers to stop, waits until they have, and drops what is left decoded.
    func stop() {
        condition.lock()
        defer { condition.unlock() }
        stopped = true
        condition.broadcast()
        while runningWorkers > 0 { condition.wait() }
        slots = []
    }

    /// One worker: takes the next sequence number when it may be decoded, decodes it unlocked,
    /// and puts it in its slot.
    private func work() {
        var spare: [UInt8] = []
        var spareHolds = -1  // the sequence number whose bytes `spare` holds
        condition.lock()
        while true {
            while !stopped && nextToDecode < positions.count && !mayDecode(nextToDecode) { condition.wait() }
            guard !stopped && nextToDecode < positions.count else { break }
            let n = nextToDecode
            nextToDecode += 1
            // The bytes of an element the taker may still have are not overwritten: fresh memory then.
            let reuse = spareHolds < taker
            condition.unlock()
            var warnings: [DecodingWarning] = []
            let outcome: Result<Reading.Product, BriefcaseError>
            do throws(BriefcaseError) {
                let stored = elements[positions[n]]
                outcome = .success(reuse ? try stored.read(reading, warnings: &warnings, reusing: &spare)
                                         : try stored.read(reading, warnings: &warnings))
            } catch {
                outcome = .failure(error)
            }
            if reuse { spareHolds = n }
            condition.lock()
            if !stopped { slots[n % slots.count] = DecodedElement(outcome: outcome, warnings: warnings) }
            condition.broadcast()
        }
        runningWorkers -= 1
        condition.broadcast()
        condition.unlock()
    }
}

extension ElementDecoding where Reading == ModelReading {
    /// The elements decoded into the model.
    init(_ reader: BriefcaseElements, positions: [Int], jobs: Int) {
        self.init(reader, reading: ModelReading(), positions: positions, jobs: jobs)
    }
}
