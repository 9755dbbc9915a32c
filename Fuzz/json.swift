// libFuzzer target `json`: the project's JSON document (Spec/json-format.md).
//
// The input is parsed (`JSONParser`), and decoded (`JSONDocumentDecoder`). A parsed value must
// serialize (`JSONWriter`) to text that parses back to the same value. A decoded document must
// pass the validator, encode in its container, and round-trip like a decoded file (see
// FuzzSupport.swift) unless the model is one the binary writer refuses (`.invalidModel`, e.g.
// rows with the wrong number of values or a value that does not fit its column).
//
// Differential: the streaming reader + writer (`JSONStreamConversion`, what `convert` uses for
// json → dabriefcase/bin2) must write exactly the bytes the tree decoder + encoder give, and refuse
// exactly what they refuse.
//
// Scripts/fuzz.sh json SECONDS

import JSONCore
import BriefcaseKit
import BriefcaseJSON

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    checkStreamingAgreesWithTree(bytes)
    guard let value = try? JSONParser.parse(bytes) else { return 0 }

    let text = value.serialized()
    guard let reparsed = try? JSONParser.parse(text) else { fuzzFailure("serialized JSON does not parse") }
    guard reparsed == value else { fuzzFailure("JSON serialize/parse changed the value") }

    guard let document = try? JSONDocumentDecoder().decode(value) else { return 0 }
    _ = Validator.validate(document: document, path: "fuzz")
    let encoded: [UInt8]
    do {
        encoded = try document.encode()
    } catch {
        guard error.kind == .invalidModel else { fuzzFailure("unexpected encoding error: \(error)") }
        return 0
    }
    var warnings: [DecodingWarning] = []
    guard let decoded = try? BriefcaseDocument.decode(encoded, as: document.container, warnings: &warnings) else {
        fuzzFailure("an encoded JSON document does not decode")
    }
    guard decoded == document else { fuzzFailure("JSON document → binary → model changed the model") }
    FuzzChecks.roundTrip(decoded, original: encoded, canonicalInput: true)
    return 0
}

/// The streaming conversion against the tree decoder + encoder, on the same input.
func checkStreamingAgreesWithTree(_ bytes: [UInt8]) {
    let tree: [UInt8]? = try? JSONDocumentDecoder().decode(bytes).encode()
    var output = MemoryStreamOutput()
    let streamed: [UInt8]? = bytes.withUnsafeBytes { buffer in
        do {
            try JSONStreamConversion.convert(buffer, to: &output)
            return output.bytes
        } catch {
            return nil
        }
    }
    switch (tree, streamed) {
    case (nil, nil): return
    case (nil, _?): fuzzFailure("the streaming reader accepts a document the tree decoder refuses")
    case (_?, nil): fuzzFailure("the streaming reader refuses a document the tree decoder accepts")
    case (let a?, let b?): if a != b { fuzzFailure("streaming and tree conversions write different bytes") }
    }
}
