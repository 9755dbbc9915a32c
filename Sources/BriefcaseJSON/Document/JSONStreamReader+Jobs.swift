import JSONCore
import BriefcaseKit
import CSystemShims

/// The elements of a JSON document parsed ahead on worker threads (`JSONStreamReader.jobs`),
/// taken by the reader's own loop in order.
///
/// A quick scan first finds where each item of `elements` starts (strings skipped, brackets
/// counted: no value is parsed). Each worker parses an element from its start with the reader's
/// own `element(_:_:)` — the code a single job runs, from the same position, so the same element
/// or the same error. The reader's loop still walks the array's punctuation itself and takes
/// an element from the workers only when it stands at the start the scan found; anywhere else
/// (a document the scan misread) it parses the element itself. So what the sink gets, and any
/// error, are those of one job, byte for byte.
struct ElementsParsedAhead<Prepared: Sendable> {
    /// Where each item of the array starts.
    private let starts: [Int]
    private let work: WorkDoneAhead<Result<ParsedElement, BriefcaseError>>

    /// An element parsed ahead, where it ends, and what the sink's preparation made of it
    /// (`BriefcaseSink.elementPreparation()`; then, when the preparation needs no rows, the
    /// element is its head only).
    struct ParsedElement: Sendable {
        var element: Element
        var end: Int
        var prepared: Prepared?
    }

    /// Nil when there are fewer than two items, more than `JSONArrayScan.maximumCount`, or the scan finds no
    /// end to the array (the reader then goes on alone).
    init?(_ buf: UnsafeBufferPointer<UInt8>, array: Int, reader: ValueReader, jobs: Int, preparation: ElementPreparation<Prepared>? = nil,
          scanned: (@Sendable (Range<Int>) -> Void)? = nil) {
        guard let (starts, close) = JSONArrayScan.itemStarts(buf, array: array, scanned: scanned), starts.count > 1,
              starts.count <= JSONArrayScan.maximumCount else { return nil }
        self.starts = starts
        let sizes = starts.indices.map { k in (k + 1 < starts.count ? starts[k + 1] : close) - starts[k] }
        let bytes = SharedBytes(buf: buf)
        work = WorkDoneAhead(sizes: sizes, jobs: jobs, name: "briefcase JSON element parsing") {
            { n in
                var parser = JSONStreamReader(UnsafeRawBufferPointer(bytes.buf))
                parser.i = starts[n]
                parser.scanned = scanned
                // The element's bytes are not read again by the worker (the reader passes over
                // them): their pages may go now rather than when the reader gets past them.
                defer { scanned?(starts[n] ..< parser.i) }
                do throws(BriefcaseError) {
                    var parsed = ParsedElement(element: try parser.element(n, reader), end: parser.i)
                    if let preparation {
                        parsed.prepared = preparation.prepare(parsed.element, jobs)
                        if !preparation.needsRows { parsed.element = parsed.element.head }  // the rows' memory goes now
                    }
                    return .success(parsed)
                } catch {
                    return .failure(error)
                }
            }
        }
    }

    /// Element `index` and where it ends, when the reader stands at `position`, where the scan
    /// found it; nil when the scan found it elsewhere (the reader then parses it itself).
    func take(_ index: Int, at position: Int) throws(BriefcaseError) -> ParsedElement? {
        guard index < starts.count else { return nil }
        let parsed = work.take(index)
        guard starts[index] == position else { return nil }
        return try parsed.get()
    }

    func stop() { work.stop() }
}

/// Where the items of a JSON array start, found without parsing them (`ElementsParsedAhead`),
/// and where the array ends (a snapshot document's rows, read after the members that follow them).
package enum JSONArrayScan {
    /// More items than this are read by one job: the scan's list would be large for little gain.
    static let maximumCount = 4096

    /// The offset of the `]` of the array opening at `array`, and how many items it has; nil when
    /// the bytes end first or a `}` closes it. Only strings and nesting are followed, as in
    /// `itemStarts`: what is inside is the reader's to judge.
    /// `scanned` hears of each stretch read through, as in `itemStarts`.
    package static func close(_ buf: UnsafeBufferPointer<UInt8>, array: Int, scanned: ((Range<Int>) -> Void)? = nil)
        -> (close: Int, count: Int)?
    {
        guard let base = buf.baseAddress, array < buf.count, buf[array] == .openBracket else { return nil }
        var state = briefcase_json_scan()
        var close = 0
        var from = array + 1
        while from < buf.count {
            let to = min(buf.count, from + (1 << 23))
            let result = briefcase_json_scan_items(&state, base, from, to, nil, 0, &close)
            scanned?(from ..< (result == 1 ? close : to))
            switch result {
            case 0: from = to
            case 1: return (close, state.count)
            default: return nil
            }
        }
        return nil
    }

    /// The offsets where the items of the array opening at `array` start, and the offset of its
    /// `]`; nil when the bytes end first, or there are more than `maximumCount` items. Only
    /// strings and nesting are followed (`briefcase_json_scan_items`, C with SSE2): what is
    /// between is the parser's to judge. `scanned` hears of each stretch read through (8 MiB at a
    /// time, so that a mapped document's pages can go as the scan passes).
    static func itemStarts(_ buf: UnsafeBufferPointer<UInt8>, array: Int,
                           scanned: (@Sendable (Range<Int>) -> Void)? = nil) -> (starts: [Int], close: Int)? {
        guard let base = buf.baseAddress, array < buf.count, buf[array] == .openBracket else { return nil }
        var state = briefcase_json_scan()
        var starts = [Int](repeating: 0, count: maximumCount)
        var close = 0
        var from = array + 1
        while from < buf.count {
            let to = min(buf.count, from + (1 << 23))
            let result = starts.withUnsafeMutableBufferPointer { found in
                briefcase_json_scan_items(&state, base, from, to, found.baseAddress!, maximumCount, &close)
            }
            scanned?(from ..< to)
            switch result {
            case 0: from = to
            case 1: return (Array(starts.prefix(state.count)), close)
            default: return nil
            }
        }
        return nil
    }
}

/// The document's bytes, shared with the worker threads, which only read them while the reader
/// runs (`JSONStreamReader(_:)`: the bytes stay valid meanwhile).
private struct SharedBytes: @unchecked Sendable {
    let buf: UnsafeBufferPointer<UInt8>
}
