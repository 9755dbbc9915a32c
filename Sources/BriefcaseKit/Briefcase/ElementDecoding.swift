import Foundation

/// An element as the driver loop (`BriefcaseElements.read(into:…)`) takes it from the decoding:
/// the element or the error it failed with, and what the decoder warned about (also before a
/// failure).
struct DecodedElement: Sendable {
    var outcome: Result<Element, BriefcaseError>
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
struct ElementDecoding {
    private let reader: BriefcaseElements
    private let positions: [Int]
    private var taken = 0
    private let ahead: ElementsDecodedAhead?

    /// With `preparation`, each worker also does the sink's work on the element it decoded.
    init(_ reader: BriefcaseElements, positions: [Int], jobs: Int, preparation: ElementPreparation? = nil) {
        self.reader = reader
        self.positions = positions
        // Workers only pay when there is more than one element to share among them.
        ahead = jobs > 1 && positions.count > 1
            ? ElementsDecodedAhead(reader.elements, positions: positions, jobs: jobs, preparation: preparation) : nil
    }

    /// The next element and its position; nil after the last. Taking one lets the one taken
    /// before go (the workers may then decode one more).
    mutating func next() -> (position: Int, decoded: DecodedElement)? {
        guard taken < positions.count else { return nil }
        let position = positions[taken]
        taken += 1
        if let ahead { return (position, ahead.take(taken - 1)) }
        var warnings: [DecodingWarning] = []
        do throws(BriefcaseError) {
            let element = try reader.decode(position, warnings: &warnings)
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
final class ElementsDecodedAhead: Sendable {
    private let work: WorkDoneAhead<DecodedElement>

    init(_ elements: [BriefcaseElements.Stored], positions: [Int], jobs: Int, preparation: ElementPreparation?) {
        work = WorkDoneAhead(sizes: positions.map { elements[$0].range.count }, jobs: jobs, name: "briefcase element decoding") {
            var spare: [UInt8] = []
            return { n, mayReuse in
                var warnings: [DecodingWarning] = []
                do throws(BriefcaseError) {
                    let stored = elements[positions[n]]
                    let element = mayReuse ? try stored.decode(warnings: &warnings, reusing: &spare) : try stored.decode(warnings: &warnings)
                    return DecodedElement(outcome: .success(element), warnings: warnings, prepared: preparation?.prepare(element))
                } catch {
                    return DecodedElement(outcome: .failure(error), warnings: warnings)
                }
            }
        }
    }

    /// The element of sequence number `n` (each in turn from 0), waiting for it to be decoded.
    func take(_ n: Int) -> DecodedElement { work.take(n) }

    /// Stops the workers and drops what is left decoded.
    func stop() { work.stop() }
}
