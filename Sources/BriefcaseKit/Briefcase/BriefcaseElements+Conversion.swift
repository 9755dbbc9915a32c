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
    /// Decodes the elements in turn, one in memory at a time, and hands each to `consume`;
    /// `start` begins (or, rarely, begins again) the output with the code page to write in.
    ///
    /// Code page: `encoding` when given; else detected as `CodePage.detect(in:)` would over the
    /// whole (readable) briefcase, without holding it: from the heads first, each element then
    /// checked against the choice (`StreamingCodePageDetection`). If an element contradicts it,
    /// `abandon` drops the output so far and the conversion starts over after one pass that
    /// detects exactly (`CodePageWitnesses`). Without `canRestart` (standard output) that pass
    /// comes first.
    ///
    /// Damage: an element whose bytes fail to decode stops the conversion with its error (file,
    /// element, offset) — or, with `skipDamaged`, is left out and listed in the report. I/O
    /// errors always stop it. `order` (default: file order) is the order to decode them in; an
    /// element may come more than once (its warnings and damage are reported the first time).
    ///
    /// `allValidUTF8`, when given, tells after each `consume` whether every 8-bit string it wrote
    /// as UTF-8 was valid UTF-8 (a JSON writer validates each one anyway): while UTF-8 is the
    /// choice, that answer replaces walking the element's strings a second time.
    public func convert(encoding: CodePage?, skipDamaged: Bool, canRestart: Bool = true, order: [Int]? = nil,
                        start: (CodePage) throws -> Void,
                        consume: (_ index: Int, Element) throws -> Void,
                        allValidUTF8: (() -> Bool)? = nil,
                        abandon: () -> Void) throws -> ElementConversionReport {
        var report = ElementConversionReport(codePage: encoding ?? .utf8)
        var decoded = Set<Int>()  // in this pass
        func decodeOrSkip(_ i: Int, _ report: inout ElementConversionReport) throws(BriefcaseError) -> Element? {
            let again = !decoded.insert(i).inserted
            var repeated: [DecodingWarning] = []
            do throws(BriefcaseError) {
                return again ? try decode(i, warnings: &repeated) : try decode(i, warnings: &report.warnings)
            } catch {
                guard skipDamaged, error.kind != .io else { throw error }
                if !again {
                    report.skipped.append(SkippedElement(index: i, kind: elements[i].kind, name: elements[i].label, error: error))
                }
                return nil
            }
        }
        /// One pass writing every element; false when an element contradicts `check`.
        func pass(_ codePage: CodePage, check: StreamingCodePageDetection?) throws -> Bool {
            decoded = []
            report.warnings = []
            report.skipped = []
            try start(codePage)
            do {
                for i in order ?? Array(elements.indices) {
                    guard let element = try decodeOrSkip(i, &report) else { continue }
                    if let check {
                        if check.holdsWhileValidUTF8, let allValidUTF8 {
                            _ = allValidUTF8() // what came before this element was checked already
                            try consume(i, element)
                            guard allValidUTF8() else { abandon(); return false }
                            continue
                        }
                        guard check.holds(for: element) else { abandon(); return false }
                    }
                    try consume(i, element)
                }
            } catch {
                abandon()
                throw error
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
                guard let head = try? head(i) else { continue }
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
                abandon()
            }
        }
        // The exact pass: every readable element once, keeping heads and witnesses only.
        var heads: [Element] = []
        var witnesses = CodePageWitnesses()
        var scratch = ElementConversionReport(codePage: .utf8)
        decoded = []
        for i in elements.indices {
            guard let element = try decodeOrSkip(i, &scratch) else { continue }
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
