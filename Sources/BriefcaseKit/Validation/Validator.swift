import Foundation

/// How `Validator` reads and judges its input.
public struct ValidationOptions: Sendable {
    /// The code page of 8-bit strings; nil: detected (`CodePage.detect`).
    public var codePage: CodePage?
    /// Count warnings as errors.
    public var strict: Bool
    /// Elements of a binary briefcase decoded at once (`BriefcaseElements.read(into:…:jobs:)`):
    /// the findings are the same whatever the number. Default 1: no thread started.
    public var jobs: Int

    /// Options: the code page to read 8-bit strings with (nil: detect), strict checks, and worker threads.
    public init(codePage: CodePage? = nil, strict: Bool = false, jobs: Int = 1) {
        self.codePage = codePage
        self.strict = strict
        self.jobs = jobs
    }
}

/// Checks a briefcase beyond what decoding needs, and reports every problem with its byte offset
/// and element (Spec/validation.md).
///
/// Errors are what Data Abstract cannot read or would read wrongly; warnings are what it tolerates
/// (padding, stale positions, disagreeing counts it ignores). Decoding stops at the first fatal
/// problem of the header or the index; a damaged element is reported and the other elements are
/// still checked, since the index says where each one is.
///
/// ```swift
/// let report = Validator.validate(bytes: try FileIO.read(path), container: .dabriefcase, path: path)
/// for finding in report.errors { print(finding) }
/// ```
public enum Validator {
    /// The index of the first character of `text` that breaks a GUID's `8-4-4-4-12` hexadecimal
    /// text (the `guid-text` check), or nil: what writers of new values check too.
    package static func guidProblem(_ text: ByteString) -> Int? { ValidationRun.guidProblem(text) }

    /// At most this many findings of one check in one element; one more finding says how many
    /// were left out.
    public static let findingLimit = 20

    /// Validates a `DABRC600` file or a bare `DABIN200` stream held in memory.
    public static func validate(bytes: [UInt8], container: ContainerFormat, path: String,
                                options: ValidationOptions = ValidationOptions()) -> ValidationReport {
        validate(bytes: bytes, container: container, path: path, options: options, checkingWhileReading: true)
    }

    /// `checkingWhileReading` false: the elements are decoded into the model and every check
    /// runs over it at the end — how `validate` worked before it checked values in the decoder's
    /// pass, kept for the tests that compare the two.
    static func validate(bytes: [UInt8], container: ContainerFormat, path: String, options: ValidationOptions,
                         checkingWhileReading: Bool) -> ValidationReport {
        var run = ValidationRun(options: options)
        run.checkingWhileReading = checkingWhileReading
        do throws(BriefcaseError) {
            try run.addFile(.memory(bytes), container: container, file: nil)
        } catch {
            run.add(.error, .input, error.message, offset: error.offset) // bytes in memory: reading cannot fail
        }
        return run.finish(path: path, format: container.rawValue)
    }

    /// Validates a `DABRC600` file or a bare `DABIN200` stream on disk, reading the header, the
    /// index and then each element by offset: never the whole file (bytes after the index are
    /// a warning, not read). Throws only when the file cannot be opened or read (`.io`).
    public static func validateFile(at path: String, container: ContainerFormat,
                                    options: ValidationOptions = ValidationOptions()) throws(BriefcaseError) -> ValidationReport {
        var run = ValidationRun(options: options)
        try run.addFile(.file(try RandomAccessFile(path: path)), container: container, file: nil)
        return run.finish(path: path, format: container.rawValue)
    }

    /// Validates a decoded model: every check that does not need the bytes (the model read into a
    /// `ValidationSink`). Findings carry no offsets.
    public static func validate(document: BriefcaseDocument, path: String, format: String = "json",
                                options: ValidationOptions = ValidationOptions()) -> ValidationReport {
        var sink = ValidationSink(path: path, format: format, options: options)
        try! document.read(into: &sink, codePage: options.codePage ?? .utf8)  // the sink refuses nothing
        return sink.report!
    }

    /// Validates a folder briefcase: every `*.daBriefcase` table file (findings name the file),
    /// `Properties.plist`, and duplicate table names across files. Throws only when the folder or
    /// one of its files cannot be read (`.io`).
    public static func validateFolder(at path: String, options: ValidationOptions = ValidationOptions()) throws(BriefcaseError) -> ValidationReport {
        guard let names = FileIO.directoryEntries(path) else { throw BriefcaseError(.io, "cannot list the folder", file: path) }
        var run = ValidationRun(options: options)
        let tableFiles = names.sorted().filter {
            $0.lowercased().hasSuffix("." + Briefcase.fileExtension.lowercased()) && !$0.hasPrefix(".")
        }
        for name in tableFiles {
            // (Its handle is kept for a second pass if the code page needs one; `OpenDescriptors`
            // keeps few descriptors open, whatever the number of files.)
            try run.addFile(.file(try RandomAccessFile(path: path + "/" + name)), container: .dabriefcase, file: name)
        }
        let plistPath = path + "/" + Briefcase.propertiesFileName
        let hasPlist = FileIO.exists(plistPath)
        if hasPlist {
            do throws(BriefcaseError) {
                _ = try PropertiesPlist.decode(try FileIO.read(plistPath))
            } catch {
                if error.kind == .io { throw error }
                run.add(.error, .folder, error.message, offset: error.offset, file: Briefcase.propertiesFileName)
            }
        }
        if tableFiles.isEmpty && !hasPlist {
            run.add(.warning, .folder, "no table files (*.\(Briefcase.fileExtension)) and no \(Briefcase.propertiesFileName): an empty briefcase")
        }
        return run.finish(path: path, format: "folder")
    }

    /// Findings in reading order: by file (folders), then by offset, findings without an offset first.
    public static func ordered(_ findings: [Finding]) -> [Finding] {
        findings.enumerated().sorted { a, b in
            let fileA = a.element.file ?? "", fileB = b.element.file ?? ""
            if fileA != fileB { return fileA < fileB }
            let offsetA = a.element.offset ?? -1, offsetB = b.element.offset ?? -1
            if offsetA != offsetB { return offsetA < offsetB }
            return a.offset < b.offset
        }.map(\.element)
    }
}

/// One validation in progress: structural findings are collected while the inputs are decoded;
/// the model checks run in `finish`, once the code page (for names in messages) is known.
struct ValidationRun {
    enum Severity { case error, warning }

    struct Pending {
        var severity: Severity
        var check: ValidationCheck
        /// The message, given the code page of the names it shows.
        var message: (CodePage) -> String
        var offset: Int?
        var element: ByteString?
        var file: String?
        var rank: Rank
    }

    /// Where a finding comes in the order of the checks as they run over a whole decoded
    /// briefcase — what the finding cap keeps and how ties in the report's order are broken —
    /// whenever it is made: the checks on values run as each element is read, the checks on
    /// heads (which need every element, and the code page) at the end, but a report lists
    /// findings as if: decoding findings (phase 0), duplicate names (1), then element by element
    /// (2, the element's place) its head's findings (part 0) before its values' (part 1).
    struct Rank: Comparable {
        var phase = 0, ordinal = 0, part = 0
        static func < (a: Rank, b: Rank) -> Bool { (a.phase, a.ordinal, a.part) < (b.phase, b.ordinal, b.part) }
        static let decoding = Rank()
    }

    /// A decoded element and where it is (nil offsets for a model without bytes).
    struct Located {
        var element: Element
        var file: String?
        /// The first byte of the element's body.
        var start: Int?
        /// The element is a head (a table without rows, a delta without changes) whose values
        /// were checked as it was read (`CheckedElement`).
        var valuesChecked = false
        /// A delta's changes (also when `valuesChecked` dropped them).
        var changeCount = 0
    }

    /// An element name as the index (or the model) lists it, for the duplicate check.
    struct Listed {
        var kind: ElementKind
        var name: ByteString
        var file: String?
        /// Where its index entry is.
        var entryOffset: Int?
    }

    struct CapKey: Hashable {
        var file: String?
        var element: ByteString?
        var check: ValidationCheck
    }

    let options: ValidationOptions
    var pending: [Pending] = []
    var located: [Located] = []
    var listed: [Listed] = []
    var properties: [BriefcaseProperty] = []
    var counts: [CapKey: Int] = [:]
    /// The keys past `Validator.findingLimit`, in the order they got there, with the severity of
    /// the last finding kept for each (no scan of `pending` per key: that was quadratic).
    var capped: [(key: CapKey, rank: Rank)] = []
    var lastSeverity: [CapKey: Severity] = [:]
    /// The decoded tables by `nameKey`, for matching deltas to tables (built on first use).
    var tablesByName: [[UInt8]: [(Table, String?)]]?
    /// Set while the model checks run.
    var codePage: CodePage = .utf8
    /// Values checked as the decoder reads them (`CheckedReading`), or in the model at the end.
    var checkingWhileReading = true
    /// What findings are ranked as now (`Rank`).
    var rank = Rank.decoding
    /// The element readers of the files read (`addFile`), with the positions of the elements
    /// that decoded, for detecting the code page when the values are not all UTF-8.
    var readers: [(elements: BriefcaseElements, positions: [Int])] = []
    /// Whether every 8-bit value string of the elements read with `CheckedReading` is valid
    /// UTF-8, and the first of them that is not ASCII.
    var values = EightBitValues()

    init(options: ValidationOptions) {
        self.options = options
    }

    mutating func add(_ severity: Severity, _ check: ValidationCheck, _ message: String, offset: Int? = nil,
                      element: ByteString? = nil, file: String? = nil) {
        add(severity, check, { _ in message }, offset: offset, element: element, file: file)
    }

    /// A finding whose message names things in the briefcase's code page (known only at the end).
    mutating func add(_ severity: Severity, _ check: ValidationCheck, _ message: @escaping (CodePage) -> String, offset: Int? = nil,
                      element: ByteString? = nil, file: String? = nil) {
        let key = CapKey(file: file, element: element, check: check)
        let count = counts[key, default: 0] + 1
        counts[key] = count
        if count == Validator.findingLimit + 1 { capped.append((key, rank)) }
        guard count <= Validator.findingLimit else { return }
        lastSeverity[key] = severity
        pending.append(Pending(severity: severity, check: check, message: message, offset: offset, element: element, file: file, rank: rank))
    }

    // MARK: inputs

    /// Decodes one `DABRC600` file or `DABIN200` stream, recording what fails on the way. Only a
    /// failing read of a file on disk throws (`.io`).
    mutating func addFile(_ source: BriefcaseSource, container: ContainerFormat, file: String?) throws(BriefcaseError) {
        var streamStart = 0
        if container == .dabriefcase {
            let header: BriefcaseFileCodec.Header
            do throws(BriefcaseError) {
                header = try source.header().header
            } catch {
                if error.kind == .io { throw error }
                let check: ValidationCheck = error.reason == .dataOffset ? .dataOffset : .header
                add(.error, check, error.message, offset: error.offset, file: file)
                return
            }
            properties += header.properties
            if !header.headerPadding.isEmpty {
                let end = header.dataOffset - header.headerPadding.count
                add(.warning, .dataOffset,
                    "\(header.headerPadding.count) bytes between the end of the properties (\(end)) and the data offset \(header.dataOffset); Data Abstract skips them",
                    offset: end, file: file)
            }
            streamStart = header.dataOffset
        }

        let index: ElementIndex
        do throws(BriefcaseError) {
            index = try source.index(streamStart: streamStart)
        } catch {
            if error.kind == .io { throw error }
            let check: ValidationCheck = error.offset == streamStart && error.reason == .signature ? .header : .index
            add(.error, check, error.message, offset: error.offset, file: file)
            return
        }
        for entry in index.entries {
            listed.append(Listed(kind: entry.kind, name: entry.name, file: file, entryOffset: entry.entryOffset))
        }
        if let trailing = index.trailingBytesWarning {
            add(.warning, .trailingBytes, "\(index.streamEnd - index.end) bytes after the element index, which ends the briefcase; Data Abstract ignores them",
                offset: trailing.offset, file: file)
        }

        try addElements(BriefcaseElements(source, container: container, properties: [], headerPadding: .empty, index: index),
                        index: index, source: source, file: file)
    }

    /// An element that failed to decode: when its data reads through, past its end, it overlaps what the index places after it (the next element, or the index itself).
    mutating func diagnoseOverrun(_ entry: ElementIndex.Entry, index: ElementIndex, source: BriefcaseSource, file: String?) throws(BriefcaseError) {
        // Read on to the end of the index at most: what follows it is not part of the briefcase.
        let (bytes, base) = try source.bytes(entry.range.lowerBound ..< index.end)
        var reader = ByteReader(bytes: bytes, base: base, readerIndex: entry.range.lowerBound, endIndex: index.end)
        var decoder = Bin2Decoder(bytes: bytes, base: base)
        do throws(BriefcaseError) {
            switch entry.kind {
            case .table: _ = try decoder.decodeTable(&reader, name: entry.name, positionBase: index.positionBase)
            case .delta: _ = try decoder.decodeDelta(&reader, name: entry.name)
            }
        } catch {
            return
        }
        let boundary = entry.range.upperBound
        guard reader.readerIndex > boundary else { return }
        let neighbour = index.entries.first { $0.range.lowerBound == boundary }
        let end = reader.readerIndex, label = entry.kind.label
        add(.error, .elementBounds, { codePage in
            let next = neighbour.map { "\($0.kind.label) '\(codePage.decodeForDisplay($0.name))', which starts there" }
                ?? "the element index, which starts there"
            return "the \(label)'s data runs on to offset \(end), past offset \(boundary) into \(next): the elements overlap"
        }, offset: boundary, element: entry.name, file: file)
    }

    /// The head of a briefcase without bytes (a JSON document, a model).
    mutating func addHead(_ head: BriefcaseHead) {
        properties += head.properties
        if !head.headerPadding.isEmpty {
            add(.warning, .dataOffset, "\(head.headerPadding.count) bytes between the end of the properties and the data offset; Data Abstract skips them")
        }
    }

    /// An element without bytes.
    mutating func addElement(_ element: Element) {
        listed.append(Listed(kind: element.kind, name: element.name, file: nil, entryOffset: nil))
        var changeCount = 0
        if case .delta(let delta) = element { changeCount = delta.changes.count }
        located.append(Located(element: element, file: nil, start: nil, changeCount: changeCount))
    }

    // MARK: result

    mutating func finish(path: String, format: String) -> ValidationReport {
        var reason: String?
        if let chosen = options.codePage {
            codePage = chosen
        } else {
            let detection = detectCodePage()
            codePage = detection.codePage
            if !detection.codePage.isUTF8 { reason = detection.reason }
        }

        rank = Rank(phase: 1)
        checkDuplicateNames()
        for (i, item) in located.enumerated() {
            rank = Rank(phase: 2, ordinal: i, part: 0)
            switch item.element {
            case .table(let table): checkTableHead(table, at: item)
            case .delta(let delta): checkDeltaHead(delta, changeCount: item.changeCount, at: item)
            }
            guard !item.valuesChecked else { continue }
            rank.part = 1
            switch item.element {
            case .table(let table): checkRows(table, at: item)
            case .delta(let delta): checkChanges(delta, at: item)
            }
        }
        // In the order the checks would have made them over the whole briefcase (`Rank`; the
        // order they were made in within a rank), then a line for each capped key, in the order
        // the keys reached the cap in that same order.
        var ordered = pending.enumerated().sorted { ($0.element.rank, $0.offset) < ($1.element.rank, $1.offset) }.map(\.element)
        for (_, (key, rank)) in capped.enumerated().sorted(by: { ($0.element.rank, $0.offset) < ($1.element.rank, $1.offset) }) {
            let count = counts[key] ?? 0, severity = lastSeverity[key] ?? .error
            let more = "\(count - Validator.findingLimit) more \(key.check.rawValue) findings in this element are not shown"
            ordered.append(Pending(severity: severity, check: key.check, message: { _ in more },
                                   offset: nil, element: key.element, file: key.file, rank: rank))
        }

        var errors: [Finding] = [], warnings: [Finding] = []
        for item in ordered {
            let finding = Finding(item.check, item.message(codePage), offset: item.offset,
                                  element: item.element.map(codePage.decodeForDisplay), file: item.file)
            if item.severity == .error || options.strict { errors.append(finding) } else { warnings.append(finding) }
        }
        return ValidationReport(path: path, format: format, encoding: codePage.name, encodingReason: reason,
                                errors: Validator.ordered(errors), warnings: Validator.ordered(warnings))
    }

    /// A name for messages.
    func text(_ bytes: ByteString) -> String { codePage.decodeForDisplay(bytes) }
}
