// Shared by the libFuzzer targets in Fuzz/ (compiled into each of them by Scripts/fuzz.sh).
//
// A target feeds its input to a parser. Rejecting the input with the parser's error is fine;
// anything else must hold: no trap, no hang, no huge allocation (libFuzzer and ASan watch for
// those), and what decodes must survive the round trips checked here. A broken property stops
// the process with `fuzzFailure`, which libFuzzer reports as a crash and saves the input.

import JSONCore
import BriefcaseKit
import BriefcaseJSON
#if canImport(Glibc)
import Glibc
#endif

/// Stops the fuzzer: a property that must hold did not.
func fuzzFailure(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError("fuzz property broken: \(message)", file: file, line: line)
}

/// The input as an array.
func fuzzBytes(_ data: UnsafePointer<UInt8>, _ size: Int) -> [UInt8] {
    Array(UnsafeBufferPointer(start: data, count: size))
}

enum FuzzChecks {
    /// A decoded briefcase must re-encode, decode again to the same model, go through the JSON
    /// document and back unchanged, and reproduce its input byte for byte when that input was
    /// laid out canonically (`canonicalInput`).
    static func roundTrip(_ document: BriefcaseDocument, original: [UInt8]?, canonicalInput: Bool) {
        let encoded: [UInt8]
        do {
            encoded = try document.encode()
        } catch {
            fuzzFailure("a decoded briefcase does not encode: \(error)")
        }
        var warnings: [DecodingWarning] = []
        let again: BriefcaseDocument
        do {
            again = try BriefcaseDocument.decode(encoded, as: document.container, warnings: &warnings)
        } catch {
            fuzzFailure("a re-encoded briefcase does not decode: \(error)")
        }
        guard again == document else { fuzzFailure("decode(encode(model)) differs from the model") }
        // (Header padding is kept in the model, and warned about again.)
        if document.file.headerPadding.isEmpty, let warning = warnings.first {
            fuzzFailure("the encoder wrote something the decoder warns about: \(warning)")
        }
        if canonicalInput, let original, encoded != original {
            fuzzFailure("a canonically laid out input re-encodes to different bytes")
        }
        jsonRoundTrip(document)
        // What `cat` does: replay each delta over its table.
        for delta in document.file.stream.deltas {
            if let table = document.file.stream.table(named: delta.name) { _ = table.applying(delta) }
        }
    }

    /// Model → JSON document (detected code page) → model must give the same model.
    static func jsonRoundTrip(_ document: BriefcaseDocument) {
        let codePage = CodePage.detect(in: document.file).codePage
        var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: codePage)
        do {
            try encoder.encode(document)
        } catch {
            fuzzFailure("a decoded briefcase does not convert to JSON: \(error)")
        }
        let json = encoder.writer.sink.bytes
        let back: BriefcaseDocument
        do {
            back = try JSONDocumentDecoder().decode(json)
        } catch {
            fuzzFailure("the JSON document of a decoded briefcase does not read back: \(error)")
        }
        guard back == document else { fuzzFailure("JSON round trip changed the model") }
    }

    /// Every element's summary (what `info` reads), or nil when the header, the index or a head
    /// does not read.
    static func summaries(_ bytes: [UInt8], as container: ContainerFormat) -> [ElementSummary]? {
        guard let reader = try? BriefcaseElements(bytes: bytes, as: container) else { return nil }
        return try? reader.elements.indices.map { (i) throws(BriefcaseError) in try reader.summary(i) }
    }

    /// True when the stream at `streamStart` has absolute positions and its elements lie in index
    /// order: the layout every writer (the stream writer) produces, so re-encoding must give the
    /// same bytes when the decoder had nothing to warn about.
    static func isCanonicalLayout(_ bytes: [UInt8], streamStart: Int) -> Bool {
        guard let index = try? ElementIndex.read(bytes, streamStart: streamStart), index.positionBase == 0 else { return false }
        let starts = index.entries.map(\.range.lowerBound)
        return starts == starts.sorted()
    }
}

/// A file of this process's own in a temporary folder, for the file-based APIs: in
/// `$FUZZ_TMPDIR` (Scripts/fuzz.sh sets it inside the build folder and empties it), else `/tmp`.
enum FuzzTemporaryFile {
    static let directory: String = {
        let parent = getenv("FUZZ_TMPDIR").map { String(cString: $0) } ?? "/tmp"
        let path = parent + "/briefcase-fuzz-\(getpid())"
        mkdir(path, 0o700)
        return path
    }()

    /// Writes `bytes` to `name` in this process's folder and returns the path.
    static func store(_ bytes: [UInt8], name: String) -> String {
        let path = directory + "/" + name
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { fuzzFailure("cannot create \(path)") }
        defer { close(fd) }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
            guard n > 0 else { fuzzFailure("cannot write \(path)") }
            done += n
        }
        return path
    }
}
