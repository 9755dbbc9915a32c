import BriefcaseJSON
import BriefcaseKit

extension StreamingConversion {
    /// json → dabriefcase / bin2 element by element (`JSONStreamConversion`): a regular input file
    /// is mapped and its pages dropped as elements are consumed; the output is written as the
    /// elements come, atomically. Standard input and gzip inputs are read into memory, and
    /// standard output and gzip outputs are built in memory (they cannot seek back to patch the
    /// index position), then written as before.
    static func convertJSON(input: String, output: String, container: ContainerFormat, progress: ProgressBar?) throws {
        let mapped: MappedFile?
        do {
            mapped = GzipInput.isGzipped(input) ? nil : try MappedFile(path: input)
        } catch {
            throw error.inFile(input)
        }
        if let mapped {
            let total = mapped.count
            let consumed: (Int) -> Void = { offset in
                mapped.release(upTo: offset)
                progress?.update("converting", done: offset, total: total)
            }
            if output == "-" || GzipOutput.wanted(output) {
                var memory = MemoryStreamOutput()
                try run(input: input, output: output) {
                    try JSONStreamConversion.convert(mapped.bytes, to: &memory, as: container, consumed: consumed)
                }
                do { try GzipOutput.writeAtomically(memory.bytes, to: output) } catch { throw error.inFile(output) }
            } else {
                var atomic: AtomicOutput
                do { atomic = try AtomicOutput(path: output) } catch { throw error.inFile(output) }
                do {
                    try run(input: input, output: output) {
                        try JSONStreamConversion.convert(mapped.bytes, to: &atomic, as: container, consumed: consumed)
                    }
                    do { try atomic.commit() } catch { throw error.inFile(output) }
                } catch {
                    atomic.discard()
                    throw error
                }
            }
            withExtendedLifetime(mapped) {}
            return
        }
        // Standard input or gzip: the whole (decompressed) document in memory, as before.
        let loaded: GzipInput.Bytes
        do { loaded = try GzipInput.read(input) } catch { throw error.file == nil ? error.inFile(input) : error }
        var memory = MemoryStreamOutput()
        try run(input: input, output: output) {
            try loaded.decoding { bytes in
                try bytes.withUnsafeBytes { raw in
                    try JSONStreamConversion.convert(raw, to: &memory, as: container)
                }
            }
        }
        do { try GzipOutput.writeAtomically(memory.bytes, to: output) } catch { throw error.inFile(output) }
    }

    /// Errors of reading name the input; errors of writing (the model refused by the binary
    /// writer, I/O) name the output, as `convert` always did.
    private static func run(input: String, output: String, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as BriefcaseError {
            guard error.file == nil else { throw error }
            throw error.kind == .invalidModel || error.kind == .io ? error.inFile(output) : error.inFile(input)
        }
    }
}
