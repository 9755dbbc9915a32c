import JSONCore
import BriefcaseDatastore
import BriefcaseJSON
import BriefcaseKit
import BriefcaseSQLite

/// Where `convert` writes: the output format's sink over a temporary file or folder next to
/// OUTPUT (or standard output). `finish` (the sink's end) completes it; `commit` then moves it
/// into place — without `--force`, never over something that appeared at OUTPUT meanwhile
/// (`BriefcaseError.outputExists`) — so a failed conversion leaves nothing behind; `discard`
/// removes what was written. Between the two, `Conversion` checks that the input did not change.
protocol ConversionOutput: ForwardingSink {
    mutating func commit() throws(BriefcaseError)
    mutating func discard()
}

/// An output written through an `AtomicOutputSink` into `file`, a temporary file that `commit`
/// puts in place; `discard` removes it.
protocol AtomicFileOutput: ConversionOutput {
    var file: SharedAtomicOutput { get }
}

extension AtomicFileOutput {
    mutating func discard() { file.discard() }
}

/// A single-file briefcase or a bare Bin2 stream (`BinarySink`). Standard output and gzip are
/// written from memory at the end: the writer patches the index position, which a pipe or a
/// compressed stream cannot seek back to.
struct BinaryConversionOutput: ConversionOutput, PassingPreparedElements {
    var inner: BinarySink<SeekableOutput>


    init(path: String, container: ContainerFormat, replacing: Bool) throws(BriefcaseError) {
        inner = BinarySink(output: try SeekableOutput(path: path, replacing: replacing), container: container)
    }

    mutating func commit() throws(BriefcaseError) { try inner.output.commit() }

    mutating func discard() { inner.output.discard() }
}

/// An atomic file, or memory for standard output and gzip (then written whole by `commit`: for
/// gzip, into the atomic file made at the start like any other).
struct SeekableOutput: BriefcaseStreamOutput {
    let path: String
    private let file: SharedAtomicOutput?
    private var memory: MemoryStreamOutput?

    init(path: String, replacing: Bool) throws(BriefcaseError) {
        self.path = path
        file = path == "-" ? nil : try SharedAtomicOutput(path: path, replacing: replacing)
        memory = path == "-" || GzipOutput.wanted(path) ? MemoryStreamOutput() : nil
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) throws(BriefcaseError) {
        if memory != nil { try memory!.append(bytes) } else { try file!.append(bytes) }
    }

    mutating func overwrite(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(BriefcaseError) {
        if memory != nil { try memory!.overwrite(bytes, at: offset) } else { try file!.overwrite(bytes, at: offset) }
    }

    mutating func reset() throws(BriefcaseError) {
        if memory != nil { try memory!.reset() } else { try file!.reset() }
    }

    func commit() throws(BriefcaseError) {
        guard let memory else { return try file!.commit() }
        guard let file else { return try FileIO.writeAtomically(memory.bytes, to: "-") }
        try Gzip.write(memory.bytes, compressedTo: &file.output)
        try file.commit()
    }

    func discard() { file?.discard() }
}

/// The JSON document (`JSONDocumentEncoder`), gzip for a `.gz` name.
struct JSONConversionOutput: AtomicFileOutput, PassingPreparedElements {
    var inner: JSONDocumentEncoder<AtomicOutputSink>
    let file: SharedAtomicOutput

    init(path: String, replacing: Bool, progress: ProgressBar?) throws(BriefcaseError) {
        let target: AtomicOutputSink
        (file, target) = try AtomicOutputSink.make(path: path, replacing: replacing, progress: progress)
        inner = JSONDocumentEncoder(sink: target, codePage: .utf8)
    }

    mutating func commit() throws(BriefcaseError) {
        var sink = inner.writer.sink
        try sink.commit()
    }
}

/// A folder briefcase (`FolderSink`) written into a temporary folder next to OUTPUT, which then
/// takes its place (`FolderOutput.replace`).
struct FolderConversionOutput: ConversionOutput {
    var inner: FolderSink
    private let destination: String
    private let temporary: FolderOutput.Temporary
    private let replacing: Bool

    init(path: String, replacing: Bool) throws(BriefcaseError) {
        destination = path
        self.replacing = replacing
        temporary = try FolderOutput.Temporary(for: path)
        inner = FolderSink(path: temporary.path, replacing: true)  // (the folder is ours, new and empty)
    }

    mutating func commit() throws(BriefcaseError) {
        try FolderOutput.replace(destination, with: temporary, replacing: replacing)
    }

    mutating func discard() {
        FolderOutput.remove(temporary)
    }
}

/// The datastore snapshot document (`SnapshotSink`), gzip for a `.gz` name. Limits broken are
/// known only at the end: refused then (unless `ignoreLimits`), so nothing is left behind.
struct SnapshotConversionOutput: AtomicFileOutput {
    var inner: SnapshotSink<AtomicOutputSink>
    let file: SharedAtomicOutput
    private let inputPath: String
    private let ignoreLimits: Bool

    init(path: String, replacing: Bool, inputPath: String, ignoreLimits: Bool, progress: ProgressBar?) throws(BriefcaseError) {
        let target: AtomicOutputSink
        (file, target) = try AtomicOutputSink.make(path: path, replacing: replacing, progress: progress)
        self.inputPath = inputPath
        self.ignoreLimits = ignoreLimits
        inner = SnapshotSink(output: target)
    }


    mutating func finish() throws(BriefcaseError) {
        try inner.finish()
        try check(inner.summary!)
    }

    mutating func commit() throws(BriefcaseError) {
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

/// An SQLite database (`SQLiteSink`, which writes into a temporary file next to OUTPUT that takes
/// its place once complete).
struct SQLiteConversionOutput: ConversionOutput {
    var inner: SQLiteSink

    init(path: String, replacing: Bool) throws(BriefcaseError) {
        guard path != "-" else { throw BriefcaseError(.io, "an SQLite database cannot be written to standard output", file: path) }
        inner = SQLiteSink(path: path, replacing: replacing)
    }

    mutating func finish() throws(BriefcaseError) {
        try inner.finishWriting() // closes the database: every byte is in the file
    }

    mutating func commit() throws(BriefcaseError) {
        try inner.commit()
    }

    mutating func discard() {
        inner.abandon()
    }
}
