/// The elements of a binary briefcase read for `validate`: in one pass of the decoder, which
/// checks the values as it reads them (`CheckedReading`); what needs every element (the heads'
/// checks, the code page) waits for `finish`, with only the heads kept.
extension ValidationRun {
    /// Reads every element of one file: each one decoded is checked and its head kept, each one
    /// left out is an error (and an overlap, when it reads on into the next), and what the
    /// decoder warned about is classified. Findings come as `BriefcaseElements.read(into:)`
    /// with `skipDamaged` hands things to a sink: an element's warnings, then the element; or
    /// the element left out, then its warnings.
    mutating func addElements(_ elements: BriefcaseElements, index: ElementIndex, source: BriefcaseSource,
                              file: String?) throws(BriefcaseError) {
        if checkingWhileReading {
            try addElements(elements, reading: CheckedReading(), index: index, source: source, file: file) { run, checked, start in
                run.add(checked, start: start, file: file)
            }
        } else {
            try addElements(elements, reading: ModelReading(), index: index, source: source, file: file) { run, element, start in
                var changeCount = 0
                if case .delta(let delta) = element { changeCount = delta.changes.count }
                run.located.append(Located(element: element, file: file, start: start, changeCount: changeCount))
            }
        }
    }

    private mutating func addElements<Reading: ElementReading>(_ elements: BriefcaseElements, reading: Reading, index: ElementIndex,
                                                               source: BriefcaseSource, file: String?,
                                                               _ take: (inout ValidationRun, Reading.Product, _ start: Int) -> Void) throws(BriefcaseError) {
        let entries = index.entries
        var decoding = ElementDecoding<Reading, Never>(elements, reading: reading, positions: Array(entries.indices),
                                                       plan: .plain(jobs: options.jobs, elementCount: entries.count))
        defer { decoding.stop() }
        var decoded: [Int] = []
        while let (position, element) = decoding.next() {
            let entry = entries[position]
            switch element.outcome {
            case .success(let product):
                addWarnings(element.warnings, element: entry.name, file: file)
                take(&self, product, entry.range.lowerBound)
                decoded.append(position)
            case .failure(let error):
                guard error.kind != .io else { throw error }
                let check: ValidationCheck = error.reason == .bytesAfterElement ? .elementBounds : .decoding
                add(.error, check, error.message, offset: error.offset, element: entry.name, file: file)
                if check == .decoding { try diagnoseOverrun(entry, index: index, source: source, file: file) }
                addWarnings(element.warnings, element: entry.name, file: file)
            }
        }
        readers.append((elements, decoded))
    }

    mutating func addWarnings(_ warnings: [DecodingWarning], element: ByteString, file: String?) {
        for warning in warnings {
            let check: ValidationCheck
            switch warning.reason {
            case .schemaEnd?: check = .schemaEnd
            case .maskPadding?: check = .maskPadding
            default: check = .decoding
            }
            add(.warning, check, warning.message, offset: warning.offset, element: element, file: file)
        }
    }

    /// The checks on an element's values, now (ranked as if they came at the end: `Rank`); its
    /// head is kept for the rest.
    private mutating func add(_ checked: CheckedElement, start: Int, file: String?) {
        let ordinal = located.count
        rank = Rank(phase: 2, ordinal: ordinal, part: 1)
        defer { rank = .decoding }
        if values.valid {
            if !checked.valuesValidUTF8 { values.valid = false }
            if values.nonASCII == nil { values.nonASCII = checked.nonASCII }
        }
        switch checked.body {
        case .table(let table, let flagged):
            let names = table.fields.map(\.name), storages = table.fields.map(\.type.storage)
            for row in flagged {
                var offset: Int? = row.start
                checkRow(row.values, index: row.index, names: names, storages: storages, offset: &offset, element: table.name, file: file)
            }
            located.append(Located(element: .table(table), file: file, start: start, valuesChecked: true))
        case .delta(let delta, let changeCount, let flagged):
            let names = delta.loggedFields.map(\.name), storages = delta.loggedFields.map(\.type.storage)
            for change in flagged {
                var offset: Int? = change.start
                checkChange(change.change, index: change.index, names: names, storages: storages, offset: &offset,
                            element: delta.name, file: file)
            }
            located.append(Located(element: .delta(delta), file: file, start: start, valuesChecked: true, changeCount: changeCount))
        }
    }

    /// What `CodePage.detect(in:)` gives for every element checked (and the properties). When
    /// the values were read for the checks (only heads kept), their 8-bit strings were all
    /// looked at for the first step (all UTF-8?); if that does not settle it, the elements are
    /// read once more for the strings that do (`CodePageWitnesses`: a file that is not UTF-8).
    mutating func detectCodePage() -> CodePageDetection {
        let heads = located.map(\.element)
        guard located.contains(where: \.valuesChecked) else {
            return CodePage.detect(in: Bin2Stream(elements: heads), properties: properties)
        }
        if values.valid {
            // The heads and a non-ASCII value, if any: UTF-8 exactly when the whole briefcase is.
            let witness = values.nonASCII.map { string -> Element in
                .delta(Delta(name: .empty, loggedFields: [], changes: [
                    DeltaChange(type: .insert, recordID: 0, message: string, oldValues: [], newValues: []),
                ]))
            }
            let detection = CodePage.detect(in: Bin2Stream(elements: heads + (witness.map { [$0] } ?? [])), properties: properties)
            if detection.codePage == .utf8 { return detection }
        }
        var witnesses = CodePageWitnesses()
        for (elements, positions) in readers {
            for position in positions {
                var ignored: [DecodingWarning] = []
                // (They decoded a moment ago; reading them again cannot fail but for I/O.)
                guard let element = try? elements.decode(position, warnings: &ignored) else { continue }
                witnesses.add(element)
            }
        }
        return witnesses.detection(heads: heads, properties: properties)
    }
}
