/// An element left out by `--skip-damaged`: its bytes did not decode.
public struct SkippedElement: Sendable, CustomStringConvertible {
    /// The element's position in `BriefcaseElements.elements`.
    public var index: Int
    /// Table or delta.
    public var kind: ElementKind
    /// The element's name, as text.
    public var name: String
    /// Why its bytes did not decode.
    public var error: BriefcaseError
    /// `skipped damaged table 'Orders': offset 1234: what is wrong` (the file is the caller's to
    /// name), escaped for a terminal as `BriefcaseError.description` is.
    public var description: String { TerminalText.escaped(unescapedDescription) }

    /// The same line, not escaped (`BriefcaseError.unescapedDescription`).
    package var unescapedDescription: String {
        "skipped damaged \(kind.label) '\(name)': " + BriefcaseError.describe(error.message, file: nil, element: nil, offset: error.offset)
    }
}

/// What an element-by-element conversion met on the way.
public struct ElementConversionReport: Sendable {
    /// The code page the output was written with.
    public var codePage: CodePage
    /// How it was detected (nil when it was given).
    public var detection: CodePageDetection?
    /// Decoding warnings in file order, then the container's.
    public var warnings: [DecodingWarning] = []
    /// The elements left out as damaged, in file order.
    public var skipped: [SkippedElement] = []

    /// Nothing met yet, written with `codePage`.
    package init(codePage: CodePage) { self.codePage = codePage }
}

extension BriefcaseElements {
    /// Above this many bytes of elements ahead (`jobs` × the largest element), a sink that can
    /// use the jobs within each element (`SinkNeeds.jobsWithinElements`) gets them one at a time, while
    /// one worker reads and decodes the next ones (at most the largest element's size beyond the
    /// one taken): the first touches of that much memory cost more than working on elements at
    /// once gains. → json with two jobs on this project's 2-core VM: 1 GB, largest element
    /// 200 MB: 3.0–5.4 s ahead, 1.5–1.9 s within; 100 MB, largest 20 MB: 211–247 ms and 325–363 ms
    /// of CPU ahead, 191–219 ms and 267–296 ms within; 50 MB and 30 MB (largest 10 and 6 MB): the
    /// same time either way; 10 MB: ahead a few ms faster. (256 MiB before the next elements were
    /// read meanwhile: then 100 MB was faster ahead.)
    public static let elementsAheadBudget = 32 << 20

    /// Reads the briefcase into `sink`: decodes the elements in turn, one in memory at a time,
    /// in the order the sink asks for (`prepare(heads:)`; default: file order; an element may
    /// come more than once, its warnings and damage reported the first time), between
    /// `begin` — with the code page to write in — and `finish`. On an error the sink is abandoned.
    ///
    /// Code page: `encoding` when given; else detected as `CodePage.detect(in:)` would over the
    /// whole (readable) briefcase, without holding it: from the heads first, each element then
    /// checked against the choice (`StreamingCodePageDetection`; a sink that checks UTF-8
    /// answers for an element while UTF-8 is the choice: `elementCheckingUTF8`). If an element
    /// contradicts it, the sink is abandoned and begun again after one pass that detects exactly
    /// (`CodePageWitnesses`). Without `canRestart` (standard output) that pass comes first.
    ///
    /// Damage: an element whose bytes fail to decode stops the reading with its error (file,
    /// element, offset) — or, with `skipDamaged`, is left out and listed in the report. I/O
    /// errors always stop it.
    ///
    /// Jobs: with `jobs` above 1, worker threads decode elements ahead of the sink
    /// (`ElementDecoding`), which is still called from this thread alone, element by element in
    /// its order: what it writes, the warnings and the elements left out, the code page chosen
    /// and any restart are those of `jobs: 1`, byte for byte. Memory then holds up to `jobs` + 1
    /// elements the size of the largest instead of one (fewer when the sink's
    /// `elementPreparation()` needs no rows: the workers then keep only what they prepared; two
    /// when elements go one at a time to a sink that takes the jobs within them, as above
    /// `elementsAheadBudget`). The default, 1, starts no thread: a
    /// library does not take the machine's cores unasked (the `briefcase` tool passes `--jobs`,
    /// by default every core). A briefcase in memory (`init(bytes:as:)`), whose values all share
    /// its one buffer, measured slower with two jobs than with one (README, Round 3): prefer a file.
    public func read<Sink: BriefcaseSink>(into sink: inout Sink, encoding: CodePage?, skipDamaged: Bool,
                                          canRestart: Bool = true, jobs: Int = 1) throws(BriefcaseError) -> ElementConversionReport {
        try read(into: &sink, encoding: encoding, skipDamaged: skipDamaged, canRestart: canRestart, jobs: jobs,
                 aheadBudget: Self.elementsAheadBudget)
    }

    /// The same with another bound than `elementsAheadBudget` on the bytes of elements ahead (tests
    /// show both ways with small briefcases).
    func read<Sink: BriefcaseSink>(into sink: inout Sink, encoding: CodePage?, skipDamaged: Bool, canRestart: Bool = true,
                                   jobs: Int, aheadBudget: Int) throws(BriefcaseError) -> ElementConversionReport {
        do throws(BriefcaseError) {
            if sink.needs.headsOnly {
                let report = try readHeads(into: &sink, encoding: encoding)
                try sink.finish()
                return report
            }
            // Each head is read once, for the sink and for the code page detection.
            let heads: [ElementHeadRead?] = sink.needs.headsFirst || (encoding == nil && canRestart) ? elements.indices.map { try? headRead($0) } : []
            var order: [Int]?
            if sink.needs.headsFirst {
                var complete: [Element] = []
                for (i, read) in heads.enumerated() {
                    if let read { complete.append(read.element) } else { complete.append(try head(i)) }  // (unreadable: its error)
                }
                order = try sink.prepare(heads: complete)
            }
            let report = try read(into: &sink, order: order, heads: heads, encoding: encoding, skipDamaged: skipDamaged,
                                  canRestart: canRestart, jobs: max(1, jobs), aheadBudget: aheadBudget)
            try sink.finish()
            return report
        } catch {
            sink.abandon()
            throw error
        }
    }

    /// For a sink that takes heads only: each element's head and count, nothing else read; the
    /// code page (when not given) detected from the heads alone, as a briefcase's names are what
    /// such a sink shows.
    private func readHeads<Sink: BriefcaseSink>(into sink: inout Sink, encoding: CodePage?) throws(BriefcaseError) -> ElementConversionReport {
        let summaries = try elements.indices.map { (i) throws(BriefcaseError) in try summary(i) }
        var report = ElementConversionReport(codePage: encoding ?? .utf8)
        if encoding == nil {
            let detection = StreamingCodePageDetection(heads: summaries.map(\.head), properties: properties).detection
            report.codePage = detection.codePage
            report.detection = detection
        }
        try sink.begin(BriefcaseHead(container: container, codePage: report.codePage, properties: properties, headerPadding: headerPadding))
        for (i, summary) in summaries.enumerated() { try sink.element(summary: summary, at: i) }
        report.warnings = containerWarnings
        return report
    }

    private func read<Sink: BriefcaseSink>(into sink: inout Sink, order: [Int]?, heads readHeads: [ElementHeadRead?], encoding: CodePage?,
                                           skipDamaged: Bool, canRestart: Bool, jobs: Int,
                                           aheadBudget: Int) throws(BriefcaseError) -> ElementConversionReport {
        var report = ElementConversionReport(codePage: encoding ?? .utf8)
        var seen = Set<Int>()  // in this pass
        /// The element decoded at position `i`, or nil when it is left out; its warnings go to the
        /// report (the first time it comes, and only when it decodes).
        func takeOrSkip<Prepared>(_ decoded: DecodedElement<Element, Prepared>, at i: Int, _ report: inout ElementConversionReport,
                        sink: inout Sink) throws(BriefcaseError) -> Element? {
            let again = !seen.insert(i).inserted
            switch decoded.outcome {
            case .success(let element):
                if !again { report.warnings += decoded.warnings }
                return element
            case .failure(let error):
                guard skipDamaged, error.kind != .io else { throw error }
                if !again {
                    report.skipped.append(SkippedElement(index: i, kind: elements[i].kind, name: elements[i].label, error: error))
                }
                return nil
            }
        }
        /// One pass handing every element to the sink; false (the sink abandoned) when an
        /// element contradicts `check`.
        func pass(_ codePage: CodePage, check: StreamingCodePageDetection?) throws(BriefcaseError) -> Bool {
            report.warnings = []
            report.skipped = []
            seen = []
            try sink.begin(BriefcaseHead(container: container, codePage: codePage, properties: properties, headerPadding: headerPadding))
            // The run, planned once (`ReadingPlan`): elements so large that `jobs` of them ahead
            // would hold too much memory go one at a time to a sink that can use the jobs within
            // each, the next one read meanwhile from the file mapped (no copy, no memory of the
            // process's own: `ByteSource`); so are the elements of one job for a sink that writes
            // rows from their bytes. Elements decoded ahead on several threads are read into
            // buffers, the workers also doing the sink's own work on each (a JSON writer's
            // encoding). Code page detection needs no rows when the sink checks what it writes as
            // UTF-8 (a JSON writer does; a binary one, which copies bytes, does not).
            let needs = sink.needs
            let sinkChecksUTF8 = needs.checksUTF8
            let positions = order ?? Array(elements.indices)
            let preparation = sink.elementPreparation()
            let plan = ReadingPlan.make(jobs: jobs, elementCount: positions.count, largestElement: elements.map(\.range.count).max() ?? 0,
                                        aheadBudget: aheadBudget, needs: needs, preparationNeedsRows: preparation?.needsRows,
                                        headsSuffice: check.map { $0.holdsWhileValidUTF8 && sinkChecksUTF8 } ?? true)
            if let within = plan.jobsWithinElements { sink.useJobsWithinElements(within) }
            var decoding = ElementDecoding(self, positions: positions, plan: plan, preparation: plan.prepares ? preparation : nil, heads: readHeads)
            defer { decoding.stop() }
            func hand(_ element: Element, _ decoded: DecodedElement<Element, Sink.Prepared>, at i: Int) throws(BriefcaseError) {
                if let prepared = decoded.prepared { try sink.element(element, prepared: prepared, at: i) } else { try sink.element(element, at: i) }
            }
            /// Hands the element to a sink that checks UTF-8: whether its 8-bit strings were.
            func handChecking(_ element: Element, _ decoded: DecodedElement<Element, Sink.Prepared>, at i: Int) throws(BriefcaseError) -> Bool {
                if let prepared = decoded.prepared { return try sink.elementCheckingUTF8(element, prepared: prepared, at: i) }
                return try sink.elementCheckingUTF8(element, at: i)
            }
            while let (i, decoded) = decoding.next() {
                guard let element = try takeOrSkip(decoded, at: i, &report, sink: &sink) else { continue }
                if let check {
                    if check.holdsWhileValidUTF8 && sinkChecksUTF8 {
                        guard try handChecking(element, decoded, at: i) else { sink.abandon(); return false }
                        continue
                    } else if check.holdsWhileValidUTF8 {
                        // A sink that let the rows go must check; one that did not is read again exactly.
                        guard !decoding.dropsRows else { sink.abandon(); return false }
                        try hand(element, decoded, at: i)
                    } else {
                        try hand(element, decoded, at: i)
                    }
                    guard check.holds(for: element) else { sink.abandon(); return false }
                } else {
                    try hand(element, decoded, at: i)
                }
            }
            report.warnings += containerWarnings
            return true
        }

        if let encoding {
            _ = try pass(encoding, check: nil)
            return report
        }
        if canRestart {
            // Unreadable heads are left out: their elements fail (or are skipped) when decoded.
            var heads: [Element] = []
            var headOf: [Int: Int] = [:]
            for i in elements.indices {
                guard let head = readHeads[i] else { continue }
                headOf[i] = heads.count
                heads.append(head.element)
            }
            let check = StreamingCodePageDetection(heads: heads, properties: properties)
            if try pass(check.detection.codePage, check: check) {
                // Skipped elements must not have swayed the choice (their heads were read).
                let skippedIndices = Set(report.skipped.map(\.index))
                let kept = elements.indices.compactMap { i -> Element? in
                    guard let h = headOf[i], !skippedIndices.contains(i) else { return nil }
                    return heads[h]
                }
                let again = report.skipped.isEmpty ? check.detection : CodePage.detect(in: Bin2Stream(elements: kept), properties: properties)
                if again.codePage == check.detection.codePage, again.reason == check.detection.reason, again.hint == check.detection.hint {
                    report.codePage = check.detection.codePage
                    report.detection = check.detection
                    return report
                }
                sink.abandon()
            }
        }
        // The exact pass: every readable element once, keeping heads and witnesses only.
        var heads: [Element] = []
        var witnesses = CodePageWitnesses()
        var decoding = ElementDecoding<ModelReading, Never>(self, positions: Array(elements.indices), jobs: jobs)
        defer { decoding.stop() }
        while let (_, decoded) = decoding.next() {  // (warnings are reported by the pass that writes)
            switch decoded.outcome {
            case .success(let element):
                heads.append(element.head)
                witnesses.add(element)
            case .failure(let error):
                guard skipDamaged, error.kind != .io else { throw error }
            }
        }
        decoding.stop()  // (before the pass that writes decodes again)
        let detection = witnesses.detection(heads: heads, properties: properties)
        _ = try pass(detection.codePage, check: nil)
        report.codePage = detection.codePage
        report.detection = detection
        return report
    }
}
