// libFuzzer target `json`: the project's JSON document (Spec/json-format.md).
//
// The input is parsed (`JSONParser`): a parsed value must serialize (`JSONWriter`) to text that
// parses back to the same value. It is read as a document (`JSONDocumentDecoder`, the streaming
// reader collecting what it reads): a document that reads must pass the validator and survive
// the round trips (FuzzSupport.swift) unless the model is one the binary writer refuses
// (`.invalidModel`, e.g. rows with the wrong number of values or a value that does not fit its
// column); written as JSON again in the code page it names, it must read back to the same model;
// and the element-by-element conversion (`JSONStreamConversion`, what `convert` uses for json →
// dabriefcase/bin2) must give bytes that decode to that model, and refuse only what the binary
// writer refuses.
//
// Scripts/fuzz.sh json SECONDS

import JSONCore
import BriefcaseKit
import BriefcaseJSON

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    if let value = try? JSONParser.parse(bytes) {
        let text = value.serialized()
        guard let reparsed = try? JSONParser.parse(text) else { fuzzFailure("serialized JSON does not parse") }
        guard reparsed == value else { fuzzFailure("JSON serialize/parse changed the value") }
    }

    guard let (document, codePage) = try? JSONDocumentDecoder().decodeNamingCodePage(bytes) else {
        checkConversionRefuses(bytes)
        return 0
    }
    _ = Validator.validate(document: document, path: "fuzz")
    checkJSONRoundTrip(document, codePage: codePage)
    let encoded: [UInt8]
    do {
        encoded = try document.encode()
    } catch {
        guard error.kind == .invalidModel else { fuzzFailure("unexpected encoding error: \(error)") }
        checkConversionRefuses(bytes)
        return 0
    }
    var warnings: [DecodingWarning] = []
    guard let decoded = try? BriefcaseDocument.decode(encoded, as: document.container, warnings: &warnings) else {
        fuzzFailure("an encoded JSON document does not decode")
    }
    guard decoded == document else { fuzzFailure("JSON document → binary → model changed the model") }
    FuzzChecks.roundTrip(decoded, original: encoded, canonicalInput: true)
    guard let converted = convert(bytes) else { fuzzFailure("the element-by-element conversion refuses a document that reads and encodes") }
    guard let back = try? BriefcaseDocument.decode(converted, as: document.container, warnings: &warnings), back == document else {
        fuzzFailure("the element-by-element conversion wrote bytes that do not decode to the document")
    }
    return 0
}

/// Written as JSON in the code page it names, the document must read back to the same model.
func checkJSONRoundTrip(_ document: BriefcaseDocument, codePage: CodePage) {
    var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: codePage)
    do {
        try encoder.encode(document)
    } catch {
        fuzzFailure("a document that reads does not write as JSON: \(error)")
    }
    guard let back = try? JSONDocumentDecoder().decode(encoder.writer.sink.bytes), back == document else {
        fuzzFailure("JSON → model → JSON → model changed the model")
    }
}

/// A document that does not read (or that the binary writer refuses) is refused by the conversion too.
func checkConversionRefuses(_ bytes: [UInt8]) {
    if convert(bytes) != nil { fuzzFailure("the element-by-element conversion accepts a document that is refused") }
}

/// The element-by-element json → binary conversion, or nil when it refuses.
func convert(_ bytes: [UInt8]) -> [UInt8]? {
    var output = MemoryStreamOutput()
    return bytes.withUnsafeBytes { buffer in
        do {
            try JSONStreamConversion.convert(buffer, to: &output)
            return output.bytes
        } catch {
            return nil
        }
    }
}
