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
            var warnings: [DecodingWarning] = []
            switch format {
            case .dabriefcase, .bin2:
                let bytes = try FileIO.read(path)
                let document = try BriefcaseDocument.decode(bytes, as: format.container!, warnings: &warnings)
                let codePage = chooseCodePage(document, explicit: encoding, path: path, announce: announceEncoding)
                return LoadedBriefcase(path: path, format: format, document: document, codePage: codePage, warnings: warnings)
            case .json:
                let bytes = try FileIO.read(path)
                let document = try JSONDocumentDecoder().decode(bytes)
                // The document names the code page its text is to be written back in.
                let codePage = encoding ?? CodePage.detect(in: document.file).codePage
                return LoadedBriefcase(path: path, format: format, document: document, codePage: codePage, warnings: [])
            case .folder:
                let briefcase = try Briefcase.openFolder(path, codePage: encoding)
                let document = try briefcase.document()
                if announceEncoding && encoding == nil && briefcase.codePage != .utf8 {
                    Console.note("\(path): 8-bit strings read as \(briefcase.codePage.name) (override with --encoding)")
                }
                return LoadedBriefcase(path: path, format: format, document: document, codePage: briefcase.codePage, warnings: [])
            case .snapshot:
                throw BriefcaseError(.io, "the \(format.rawValue) format is not supported yet", file: path)
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
        }
        return detection.codePage
    }
}

/// Writes bytes to an `AtomicOutput` for the JSON writer.
struct AtomicOutputSink: ByteSink {
    var output: AtomicOutput
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
        try output.write(bytes)
    }
}

/// Standard output for the JSON writer.
struct StandardOutputSink: ByteSink {
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
        var output = try AtomicOutput(path: "-")
        try output.write(bytes)
    }
}
