import JSONCore
import BriefcaseJSON
import BriefcaseKit

extension StreamingConversion {
    /// json → dabriefcase / bin2 / json element by element: the document reader
    /// (`JSONStreamReader`) into the output format's sink (`BriefcaseStreamWriter`,
    /// `JSONDocumentEncoder`). The input file is mapped and its pages dropped as elements are
    /// consumed; standard input and gzip inputs are spooled into an unlinked temporary file first
    /// (`GzipInput.spool`: bounded memory, stopped at the first byte that cannot be JSON) and
    /// mapped the same way. The output is written as the elements come, atomically; standard
    /// output, and a binary gzip output (which cannot seek back to patch the index position),
    /// are built in memory, then written.
    static func convertJSON(input: String, output: String, format outputFormat: FileFormat, encoding: CodePage?,
                            progress: ProgressBar?) throws {
        let spooled: SpooledInput?
        let mapped: MappedFile
        do {
            spooled = input == "-" || GzipInput.isGzipped(input) ? try GzipInput.spool(input, as: .json) : nil
            mapped = try MappedFile(path: spooled?.path ?? input)!
        } catch {
            throw error.file == nil ? error.inFile(input) : error
        }
        let total = mapped.count
        var reader = JSONStreamReader(mapped.bytes)
        reader.consumed = { offset in
            mapped.release(upTo: offset)
            progress?.update("converting", done: offset, total: total)
        }
        do {
            if let container = outputFormat.container {
                try writeBinary(&reader, as: container, input: input, output: output)
            } else {
                try writeJSON(&reader, encoding: encoding, input: input, output: output)
            }
        } catch let error as BriefcaseError {
            // Errors of the spooled copy are told about the input, their offsets in decompressed data.
            guard let spooled, error.file == input else { throw error }
            throw spooled.relabel(error)
        }
        withExtendedLifetime(mapped) {}
    }

    private static func writeBinary(_ reader: inout JSONStreamReader, as container: ContainerFormat, input: String, output: String) throws {
        if output == "-" || GzipOutput.wanted(output) {
            var sink = BinarySink(output: MemoryStreamOutput(), container: container)
            try run(input: input, output: output) { try reader.read(into: &sink) }
            do throws(BriefcaseError) { try GzipOutput.writeAtomically(sink.output.bytes, to: output) } catch { throw error.inFile(output) }
            return
        }
        var atomic: AtomicOutput
        do { atomic = try AtomicOutput(path: output) } catch { throw error.inFile(output) }
        var sink = BinarySink(output: atomic, container: container)
        do {
            try run(input: input, output: output) { try reader.read(into: &sink) }
            atomic = sink.output
            do { try atomic.commit() } catch { throw error.inFile(output) }
        } catch {
            var output = sink.output
            output.discard()
            throw error
        }
    }

    /// The document again (in `encoding` when given, else the code page it names); standard
    /// output is written once the document is whole, as the reader may start over.
    private static func writeJSON(_ reader: inout JSONStreamReader, encoding: CodePage?, input: String, output: String) throws {
        if output == "-" {
            var sink = CodePageOverride(JSONDocumentEncoder(sink: ArraySink(), codePage: .utf8), codePage: encoding)
            try run(input: input, output: output) { try reader.read(into: &sink) }
            var stdout = try AtomicOutput(path: output)
            try stdout.write(sink.sink.writer.sink.bytes)
            return
        }
        var atomic: AtomicOutput
        do { atomic = try AtomicOutput(path: output) } catch { throw error.inFile(output) }
        do {
            let target = try AtomicOutputSink(output: atomic, gzip: GzipOutput.wanted(output))
            var sink = CodePageOverride(JSONDocumentEncoder(sink: target, codePage: .utf8), codePage: encoding)
            try run(input: input, output: output) { try reader.read(into: &sink) }
            try sink.sink.writer.sink.finish()
            atomic = sink.sink.writer.sink.output
            do { try atomic.commit() } catch { throw error.inFile(output) }
        } catch {
            atomic.discard()
            throw error
        }
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
