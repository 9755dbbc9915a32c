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
    /// What the sink's `elementPreparation()` made of the element on the worker that decoded it.
    var prepared: (any Sendable)? = nil
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

    /// With `prepare`, each worker also does the sink's work on what it read
    /// (`BriefcaseSink.elementPreparation()`).
    init(_ reader: BriefcaseElements, reading: Reading, positions: [Int], jobs: Int,
         prepare: (@Sendable (Reading.Product) -> any Sendable)? = nil) {
        self.reader = reader
        self.reading = reading
        self.positions = positions
        // Workers only pay when there is more than one element to share among them.
        ahead = jobs > 1 && positions.count > 1
            ? ElementsDecodedAhead(reader.elements, reading: reading, positions: positions, jobs: jobs, prepare: prepare) : nil
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

/// Worker threads decoding `positions` ahead of the one thread that takes them in order, within
/// `WorkDoneAhead`'s byte budget (the elements' ranges in the file). Each worker reads into a
/// buffer of its own, reused for its next element as the single-core path reuses its one — unless
/// the taker may still hold the element whose bytes it is (fresh memory then).
final class ElementsDecodedAhead<Reading: ElementReading>: Sendable {
    private let work: WorkDoneAhead<DecodedElement<Reading.Product>>

    init(_ elements: [BriefcaseElements.Stored], reading: Reading, positions: [Int], jobs: Int,
         prepare: (@Sendable (Reading.Product) -> any Sendable)?) {
        work = WorkDoneAhead(sizes: positions.map { elements[$0].range.count }, jobs: jobs, name: "briefcase element decoding") {
            var spare: [UInt8] = []
            return { n, mayReuse in
                var warnings: [DecodingWarning] = []
                do throws(BriefcaseError) {
                    let stored = elements[positions[n]]
                    let product = mayReuse ? try stored.read(reading, warnings: &warnings, reusing: &spare)
                                           : try stored.read(reading, warnings: &warnings)
                    return DecodedElement(outcome: .success(product), warnings: warnings, prepared: prepare?(product))
                } catch {
                    return DecodedElement(outcome: .failure(error), warnings: warnings)
                }
            }
        }
    }

    /// The element of sequence number `n` (each in turn from 0), waiting for it to be decoded.
    func take(_ n: Int) -> DecodedElement<Reading.Product> { work.take(n) }

    /// Stops the workers and drops what is left decoded.
    func stop() { work.stop() }
}

extension ElementDecoding where Reading == ModelReading {
    /// The elements decoded into the model; with `preparation`, each worker also does the sink's
    /// work on the element it decoded.
    init(_ reader: BriefcaseElements, positions: [Int], jobs: Int, preparation: ElementPreparation? = nil) {
        self.init(reader, reading: ModelReading(), positions: positions, jobs: jobs, prepare: preparation.map { $0.prepare })
    }
}
