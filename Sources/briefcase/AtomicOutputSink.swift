import JSONCore
import BriefcaseKit

/// Writes bytes to an `AtomicOutput` for the JSON writer; with `gzip`, compressed on the way
/// (then call `finish()` once the writer has flushed, before committing the output).
struct AtomicOutputSink: ResettableByteSink {
    let file: SharedAtomicOutput
    private var compressor: GzipCompressor?
    /// Shows the bytes written, when a progress bar is up.
    var progress: ProgressBar?
    private var written = 0

    /// A temporary file for `path` and a sink into it (gzip for a `.gz` name), showing the bytes
    /// written on `progress`; nothing is left behind when the sink cannot be made.
    static func make(path: String, replacing: Bool, progress: ProgressBar?) throws(BriefcaseError) -> (SharedAtomicOutput, AtomicOutputSink) {
        let file = try SharedAtomicOutput(path: path, replacing: replacing)
        var sink = try AtomicOutputSink(output: file, gzip: GzipOutput.wanted(path))
        sink.progress = progress
        return (file, sink)
    }

    init(output: SharedAtomicOutput, gzip: Bool) throws(BriefcaseError) {
        self.file = output
        compressor = gzip ? try GzipCompressor() : nil
    }

    mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
        written += bytes.count
        progress?.update("writing", done: written, total: 0)
        guard let compressor else { return try file.append(bytes) }
        try compressor.compress(bytes) { (piece) throws(BriefcaseError) in try file.output.write(piece) }
    }

    /// Forgets what was written (the output emptied, compression started again).
    mutating func reset() throws {
        try file.reset()
        if compressor != nil { compressor = try GzipCompressor() }
        written = 0
    }

    /// Writes the end of the gzip stream (nothing without gzip).
    mutating func finish() throws(BriefcaseError) {
        try compressor?.finish { (piece) throws(BriefcaseError) in try file.output.write(piece) }
    }

    /// Ends the gzip stream and puts the file in its place (after the writer has flushed).
    mutating func commit() throws(BriefcaseError) {
        try finish()
        try file.commit()
    }
}
