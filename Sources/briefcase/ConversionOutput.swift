import JSONCore
import BriefcaseDatastore
import BriefcaseJSON
import BriefcaseKit

/// Where `convert` writes: the output format's sink over a temporary file or folder next to
/// OUTPUT (or standard output), moved into place by `finish` once everything is written, so a
/// failed conversion leaves nothing behind; `discard` removes what was written.
protocol ConversionOutput: BriefcaseSink {
    mutating func discard()
}

/// A single-file briefcase or a bare Bin2 stream (`BinarySink`). Standard output and gzip are
/// written from memory at the end: the writer patches the index position, which a pipe or a
/// compressed stream cannot seek back to.
struct BinaryConversionOutput: ConversionOutput {
    private var sink: BinarySink<SeekableOutput>
    private var output: SeekableOutput { sink.output }

    init(path: String, container: ContainerFormat) throws(BriefcaseError) {
        sink = BinarySink(output: try SeekableOutput(path: path), container: container)
    }

    mutating func begin(_ head: BriefcaseHead) throws(BriefcaseError) { try sink.begin(head) }
    mutating func element(_ element: Element) throws(BriefcaseError) { try sink.element(element) }
    mutating func abandon() { sink.abandon() }

    mutating func finish() throws(BriefcaseError) {
        try sink.finish()
        var output = sink.output
        try output.commit()
    }

    mutating func discard() {
        var output = sink.output
        output.discard()
    }
}

/// An atomic file, or memory for standard output and gzip (then written whole by `commit`).
struct SeekableOutput: BriefcaseStreamOutput {
    let path: String
    private var file: AtomicOutput?
    private var memory = MemoryStreamOutput()

    init(path: String) throws(BriefcaseError) {
        self.path = path
        file = path == "-" || GzipOutput.wanted(path) ? nil : try AtomicOutput(path: path)
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) throws(BriefcaseError) {
        if file != nil { try file!.append(bytes) } else { try memory.append(bytes) }
    }

    mutating func overwrite(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(BriefcaseError) {
        if file != nil { try file!.overwrite(bytes, at: offset) } else { try memory.overwrite(bytes, at: offset) }
    }

    mutating func reset() throws(BriefcaseError) {
        if file != nil { try file!.reset() } else { try memory.reset() }
    }

    mutating func commit() throws(BriefcaseError) {
        if file != nil { try file!.commit() } else { try GzipOutput.writeAtomically(memory.bytes, to: path) }
    }

    mutating func discard() { file?.discard() }
}

/// The JSON document (`JSONDocumentEncoder`), gzip for a `.gz` name.
struct JSONConversionOutput: ConversionOutput {
    private var sink: JSONDocumentEncoder<AtomicOutputSink>
    private let file: AtomicOutput

    init(path: String, progress: ProgressBar?) throws(BriefcaseError) {
        file = try AtomicOutput(path: path)
        do {
            var target = try AtomicOutputSink(output: file, gzip: GzipOutput.wanted(path))
            target.progress = progress
            sink = JSONDocumentEncoder(sink: target, codePage: .utf8)
        } catch {
            var file = file
            file.discard()
            throw error
        }
    }

    mutating func begin(_ head: BriefcaseHead) throws(BriefcaseError) { try sink.begin(head) }
    mutating func element(_ element: Element) throws(BriefcaseError) { try sink.element(element) }
    mutating func abandon() { sink.abandon() }
    mutating func wroteOnlyValidUTF8() -> Bool? { sink.wroteOnlyValidUTF8() }

    mutating func finish() throws(BriefcaseError) {
        try sink.finish()
        try sink.writer.sink.finish()
        var output = sink.writer.sink.output
        try output.commit()
    }

    mutating func discard() {
        var file = file
        file.discard()
    }
}

/// A folder briefcase (`FolderSink`) written into a temporary folder next to OUTPUT, which then
/// takes its place (`FolderOutput.replace`).
struct FolderConversionOutput: ConversionOutput {
    private var sink: FolderSink
    private let destination: String
    private let registration: Int

    init(path: String) {
        destination = path
        let (temporary, registration) = FolderOutput.temporary(for: path)
        self.registration = registration
        sink = FolderSink(path: temporary)
    }

    var needsHeads: Bool { true }
    mutating func prepare(heads: [Element]) throws(BriefcaseError) -> [Int]? { try sink.prepare(heads: heads) }
    mutating func begin(_ head: BriefcaseHead) throws(BriefcaseError) { try sink.begin(head) }
    mutating func element(_ element: Element) throws(BriefcaseError) { try sink.element(element) }
    mutating func element(_ element: Element, at position: Int) throws(BriefcaseError) { try sink.element(element, at: position) }
    mutating func abandon() { sink.abandon() }

    mutating func finish() throws(BriefcaseError) {
        try sink.finish()
        try FolderOutput.replace(destination, with: sink.path, registration: registration)
    }

    mutating func discard() {
        FolderOutput.remove(sink.path, registration: registration)
    }
}

/// The datastore snapshot document (`SnapshotSink`), gzip for a `.gz` name. Limits broken are
/// known only at the end: refused then (unless `ignoreLimits`), so nothing is left behind.
struct SnapshotConversionOutput: ConversionOutput {
    private var sink: SnapshotSink<AtomicOutputSink>
    private let file: AtomicOutput
    private let inputPath: String
    private let ignoreLimits: Bool

    init(path: String, inputPath: String, ignoreLimits: Bool, progress: ProgressBar?) throws(BriefcaseError) {
        file = try AtomicOutput(path: path)
        self.inputPath = inputPath
        self.ignoreLimits = ignoreLimits
        do {
            var target = try AtomicOutputSink(output: file, gzip: GzipOutput.wanted(path))
            target.progress = progress
            sink = SnapshotSink(output: target)
        } catch {
            var file = file
            file.discard()
            throw error
        }
    }

    var needsHeads: Bool { true }
    mutating func prepare(heads: [Element]) throws(BriefcaseError) -> [Int]? { try sink.prepare(heads: heads) }
    mutating func begin(_ head: BriefcaseHead) throws(BriefcaseError) { try sink.begin(head) }
    mutating func element(_ element: Element) throws(BriefcaseError) { try sink.element(element) }
    mutating func element(_ element: Element, at position: Int) throws(BriefcaseError) { try sink.element(element, at: position) }
    mutating func abandon() { sink.abandon() }

    mutating func finish() throws(BriefcaseError) {
        try sink.finish()
        try check(sink.summary!)
        try sink.writer.sink.finish()
        var output = sink.writer.sink.output
        try output.commit()
    }

    mutating func discard() {
        var file = file
        file.discard()
    }

    /// Prints the mapping's warnings, and its limit violations: as warnings with
    /// `--ignore-limits`, else as errors, throwing the last.
    private func check(_ summary: SnapshotExportSummary) throws(BriefcaseError) {
        for warning in summary.warnings { Console.warning("\(inputPath): \(warning)") }
        guard let last = summary.limitViolations.last else { return }
        if ignoreLimits {
            for violation in summary.limitViolations {
                Console.warning("\(file.path): \(violation) (written anyway: --ignore-limits)")
            }
        } else {
            for violation in summary.limitViolations.dropLast() { Console.error("\(file.path): \(violation)") }
            var error = BriefcaseError(.invalidData, last.message + "; refused (--ignore-limits writes it anyway)", file: file.path)
            error.element = last.element
            throw error
        }
    }
}
