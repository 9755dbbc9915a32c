/// An element left out by `--skip-damaged`: its bytes did not decode.
public struct SkippedElement: Sendable, CustomStringConvertible {
    /// The element's position in `BriefcaseElements.elements`.
    public var index: Int
    public var kind: ElementKind
    public var name: String
    public var error: BriefcaseError
    /// `skipped damaged table 'Orders': offset 1234: what is wrong` (the file is the caller's to name).
    public var description: String {
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
    public var skipped: [SkippedElement] = []
}

extension BriefcaseElements {
    /// Reads the briefcase into `sink`: decodes the elements in turn, one in memory at a time,
    /// in the order the sink asks for (`prepare(heads:)`; default: file order; an element may
    /// come more than once, its warnings and damage reported the first time), between
    /// `begin` — with the code page to write in — and `finish`. On an error the sink is abandoned.
    ///
    /// Code page: `encoding` when given; else detected as `CodePage.detect(in:)` would over the
    /// whole (readable) briefcase, without holding it: from the heads first, each element then
    /// checked against the choice (`StreamingCodePageDetection`; the sink's
    /// `wroteOnlyValidUTF8()` answers for an element while UTF-8 is the choice). If an element
    /// contradicts it, the sink is abandoned and begun again after one pass that detects exactly
    /// (`CodePageWitnesses`). Without `canRestart` (standard output) that pass comes first.
    ///
    /// Damage: an element whose bytes fail to decode stops the reading with its error (file,
    /// element, offset) — or, with `skipDamaged`, is left out and listed in the report. I/O
    /// errors always stop it.
    public func read<Sink: BriefcaseSink>(into sink: inout Sink, encoding: CodePage?, skipDamaged: Bool,
                                          canRestart: Bool = true) throws(BriefcaseError) -> ElementConversionReport {
        do throws(BriefcaseError) {
            // Each head is read once, for the sink and for the code page detection.
            let heads: [Element?] = sink.needsHeads || (encoding == nil && canRestart) ? elements.indices.map { try? head($0) } : []
            var order: [Int]?
            if sink.needsHeads {
                var complete: [Element] = []
                for (i, read) in heads.enumerated() {
                    if let read { complete.append(read) } else { complete.append(try head(i)) }  // (unreadable: its error)
                }
                order = try sink.prepare(heads: complete)
            }
            let report = try read(into: &sink, order: order, heads: heads, encoding: encoding, skipDamaged: skipDamaged,
                                  canRestart: canRestart)
            try sink.finish()
            return report
        } catch {
            sink.abandon()
            throw error
        }
    }

    private func read<Sink: BriefcaseSink>(into sink: inout Sink, order: [Int]?, heads readHeads: [Element?], encoding: CodePage?,
                                           skipDamaged: Bool, canRestart: Bool) throws(BriefcaseError) -> ElementConversionReport {
        var report = ElementConversionReport(codePage: encoding ?? .utf8)
        var decoded = Set<Int>()  // in this pass
        /// Element `i`, or nil when it is left out; its warnings go to the report (the first time
        /// it is decoded, and only when it decodes) and to the sink (after `leftOut` for one that fails).
        func decodeOrSkip(_ i: Int, _ report: inout ElementConversionReport, sink: inout Sink) throws(BriefcaseError) -> Element? {
            let again = !decoded.insert(i).inserted
            var warnings: [DecodingWarning] = []
            do throws(BriefcaseError) {
                let element = try decode(i, warnings: &warnings)
                if !again {
                    report.warnings += warnings
                    sink.warnings(warnings, at: i)
                }
                return element
            } catch {
                guard skipDamaged, error.kind != .io else { throw error }
                if !again {
                    report.skipped.append(SkippedElement(index: i, kind: elements[i].kind, name: elements[i].label, error: error))
                    try sink.leftOut(at: i, error: error)
                    sink.warnings(warnings, at: i)
                }
                return nil
            }
        }
        /// One pass handing every element to the sink; false (the sink abandoned) when an
        /// element contradicts `check`.
        func pass(_ codePage: CodePage, check: StreamingCodePageDetection?) throws(BriefcaseError) -> Bool {
            report.warnings = []
            report.skipped = []
            decoded = []
            try sink.begin(BriefcaseHead(container: container, codePage: codePage, properties: properties, headerPadding: headerPadding))
            for i in order ?? Array(elements.indices) {
                guard let element = try decodeOrSkip(i, &report, sink: &sink) else { continue }
                if let check {
                    if check.holdsWhileValidUTF8 {
                        _ = sink.wroteOnlyValidUTF8() // what came before this element was checked already
                        try sink.element(element, at: i)
                        if let valid = sink.wroteOnlyValidUTF8() {
                            guard valid else { sink.abandon(); return false }
                            continue
                        }
                    } else {
                        try sink.element(element, at: i)
                    }
                    guard check.holds(for: element) else { sink.abandon(); return false }
                } else {
                    try sink.element(element, at: i)
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
                heads.append(head)
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
        for i in elements.indices {
            var ignored: [DecodingWarning] = []  // (reported by the pass that writes)
            let element: Element
            do throws(BriefcaseError) {
                element = try decode(i, warnings: &ignored)
            } catch {
                guard skipDamaged, error.kind != .io else { throw error }
                continue
            }
            heads.append(element.head)
            witnesses.add(element)
        }
        let detection = witnesses.detection(heads: heads, properties: properties)
        _ = try pass(detection.codePage, check: nil)
        report.codePage = detection.codePage
        report.detection = detection
        return report
    }
}
