import BriefcaseJSON
import BriefcaseKit

extension StreamingConversion {
    /// json → dabriefcase / bin2 element by element (`JSONStreamConversion`): the input file is
    /// mapped and its pages dropped as elements are consumed; standard input and gzip inputs are
    /// spooled into an unlinked temporary file first (`GzipInput.spool`: bounded memory, stopped
    /// at the first byte that cannot be JSON) and mapped the same way. The output is written as
    /// the elements come, atomically; standard output and gzip outputs are built in memory (they
    /// cannot seek back to patch the index position), then written as before.
    static func convertJSON(input: String, output: String, container: ContainerFormat, progress: ProgressBar?) throws {
        let spooled: SpooledInput?
        let mapped: MappedFile
        do {
            spooled = input == "-" || GzipInput.isGzipped(input) ? try GzipInput.spool(input, as: .json) : nil
            mapped = try MappedFile(path: spooled?.path ?? input)!
        } catch {
            throw error.file == nil ? error.inFile(input) : error
        }
        let total = mapped.count
        let consumed: (Int) -> Void = { offset in
            mapped.release(upTo: offset)
            progress?.update("converting", done: offset, total: total)
        }
        do {
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
        } catch let error as BriefcaseError {
            // Errors of the spooled copy are told about the input, their offsets in decompressed data.
            guard let spooled, error.file == input else { throw error }
            throw spooled.relabel(error)
        }
        withExtendedLifetime(mapped) {}
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
