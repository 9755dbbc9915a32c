import JSONCore
import BriefcaseJSON
import BriefcaseKit

/// A briefcase read from a path in any input format, with the code page of its 8-bit strings.
struct LoadedBriefcase {
    var path: String
    var format: FileFormat
    var document: BriefcaseDocument
    var codePage: CodePage
    var warnings: [DecodingWarning]
}

enum InputLoader {
    static func load(_ path: String, format: FileFormat, encoding: CodePage?, announceEncoding: Bool) throws -> LoadedBriefcase {
        do {
            switch format {
            case .dabriefcase, .bin2:
                // Read by offset (standard input and gzip from their spooled copy), never whole.
                return try BinaryFileInput.load(path, format: format, encoding: encoding, announceEncoding: announceEncoding)!
            case .json:
                let (document, named) = try GzipInput.read(path, as: format).decoding { try JSONDocumentDecoder().decodeNamingCodePage($0) }
                // The document names the code page its text is to be written back in.
                let codePage = encoding ?? named
                return LoadedBriefcase(path: path, format: format, document: document, codePage: codePage, warnings: [])
            case .folder:
                let briefcase = try Briefcase.openFolder(path, codePage: encoding)
                let document = try briefcase.document()
                if announceEncoding && encoding == nil && briefcase.codePage != .utf8 {
                    Console.note("\(path): 8-bit strings read as \(briefcase.codePage.name) (override with --encoding)")
                }
                return LoadedBriefcase(path: path, format: format, document: document, codePage: briefcase.codePage, warnings: [])
            case .snapshot:
                return try SnapshotInput.load(path)
            }
        } catch let error as BriefcaseError {
            throw error.file == nil ? error.inFile(path) : error
        }
    }

    static func chooseCodePage(_ document: BriefcaseDocument, explicit: CodePage?, path: String, announce: Bool) -> CodePage {
        if let explicit { return explicit }
        let detection = CodePage.detect(in: document.file)
        if announce && detection.codePage != .utf8 {
            Console.note("\(path): 8-bit strings read as \(detection.codePage.name): \(detection.reason) (override with --encoding)")
            if let hint = detection.hint { Console.note("\(path): \(hint)") }
        }
        return detection.codePage
    }
}

/// Writes bytes to an `AtomicOutput` for the JSON writer; with `gzip`, compressed on the way
/// (then call `finish()` once the writer has flushed, before committing the output).
struct AtomicOutputSink: ResettableByteSink {
    var output: AtomicOutput
    private var compressor: GzipCompressor?
    /// Shows the bytes written, when a progress bar is up.
    var progress: ProgressBar?
    private var written = 0

    init(output: AtomicOutput) {
        self.output = output
    }

    init(output: AtomicOutput, gzip: Bool) throws(BriefcaseError) {
        self.output = output
        compressor = gzip ? try GzipCompressor() : nil
    }

    mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
        written += bytes.count
        progress?.update("writing", done: written, total: 0)
        guard let compressor else { return try output.write(bytes) }
        try compressor.compress(bytes) { (piece) throws(BriefcaseError) in try output.write(piece) }
    }

    /// Forgets what was written (the output emptied, compression started again).
    mutating func reset() throws {
        try output.reset()
        if compressor != nil { compressor = try GzipCompressor() }
        written = 0
    }

    /// Writes the end of the gzip stream (nothing without gzip).
    mutating func finish() throws(BriefcaseError) {
        try compressor?.finish { (piece) throws(BriefcaseError) in try output.write(piece) }
    }
}
