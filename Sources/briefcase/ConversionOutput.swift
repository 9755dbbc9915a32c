import JSONCore
import BriefcaseDatastore
import BriefcaseJSON
import BriefcaseKit
import BriefcaseSQLite

/// Where `convert` writes: the output format's sink over a temporary file or folder next to
/// OUTPUT (or standard output), moved into place by `finish` once everything is written, so a
/// failed conversion leaves nothing behind; `discard` removes what was written.
protocol ConversionOutput: ForwardingSink {
    mutating func discard()
}

/// An output written through an `AtomicOutputSink` into `file`, a temporary file that `commit`
/// puts in place; `discard` removes it.
protocol AtomicFileOutput: ConversionOutput {
    var file: AtomicOutput { get }
}

extension AtomicFileOutput {
    mutating func discard() {
        var file = file
        file.discard()
    }
}

/// A single-file briefcase or a bare Bin2 stream (`BinarySink`). Standard output and gzip are
/// written from memory at the end: the writer patches the index position, which a pipe or a
/// compressed stream cannot seek back to.
struct BinaryConversionOutput: ConversionOutput, PassingPreparedElements {
    var inner: BinarySink<SeekableOutput>


    init(path: String, container: ContainerFormat) throws(BriefcaseError) {
        inner = BinarySink(output: try SeekableOutput(path: path), container: container)
    }


    mutating func finish() throws(BriefcaseError) {
        try inner.finish()
        var output = inner.output
        try output.commit()
    }

    mutating func discard() {
        var output = inner.output
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
struct JSONConversionOutput: AtomicFileOutput, PassingPreparedElements {
    var inner: JSONDocumentEncoder<AtomicOutputSink>
    let file: AtomicOutput

    init(path: String, progress: ProgressBar?) throws(BriefcaseError) {
        let target: AtomicOutputSink
        (file, target) = try AtomicOutputSink.make(path: path, progress: progress)
        inner = JSONDocumentEncoder(sink: target, codePage: .utf8)
    }


    mutating func finish() throws(BriefcaseError) {
        try inner.finish()
        var sink = inner.writer.sink
        try sink.commit()
    }
}

/// A folder briefcase (`FolderSink`) written into a temporary folder next to OUTPUT, which then
/// takes its place (`FolderOutput.replace`).
struct FolderConversionOutput: ConversionOutput {
    var inner: FolderSink
    private let destination: String
    private let registration: Int

    init(path: String) {
        destination = path
        let (temporary, registration) = FolderOutput.temporary(for: path)
        self.registration = registration
        inner = FolderSink(path: temporary)
    }


    mutating func finish() throws(BriefcaseError) {
        try inner.finish()
        try FolderOutput.replace(destination, with: inner.path, registration: registration)
    }

    mutating func discard() {
        FolderOutput.remove(inner.path, registration: registration)
    }
}

/// The datastore snapshot document (`SnapshotSink`), gzip for a `.gz` name. Limits broken are
/// known only at the end: refused then (unless `ignoreLimits`), so nothing is left behind.
struct SnapshotConversionOutput: AtomicFileOutput {
    var inner: SnapshotSink<AtomicOutputSink>
    let file: AtomicOutput
    private let inputPath: String
    private let ignoreLimits: Bool

    init(path: String, inputPath: String, ignoreLimits: Bool, progress: ProgressBar?) throws(BriefcaseError) {
        let target: AtomicOutputSink
        (file, target) = try AtomicOutputSink.make(path: path, progress: progress)
        self.inputPath = inputPath
        self.ignoreLimits = ignoreLimits
        inner = SnapshotSink(output: target)
    }


    mutating func finish() throws(BriefcaseError) {
        try inner.finish()
        try check(inner.summary!)
        var sink = inner.writer.sink
        try sink.commit()
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

/// An SQLite database (`SQLiteSink`) written into a temporary file next to OUTPUT, which takes
/// its place once complete.
struct SQLiteConversionOutput: ConversionOutput {
    var inner: SQLiteSink
    private var file: AtomicOutput

    init(path: String) throws(BriefcaseError) {
        guard path != "-" else { throw BriefcaseError(.io, "an SQLite database cannot be written to standard output", file: path) }
        file = try AtomicOutput(path: path)
        inner = SQLiteSink(path: file.temporaryPath!)
    }

    mutating func finish() throws(BriefcaseError) {
        try inner.finish() // closes the database: every byte is in the file
        try file.commit()
    }

    mutating func discard() {
        inner.abandon()
        file.discard()
    }
}
