// libFuzzer target `bin2`: bare Bin2 streams (DABIN200).
//
// The input is decoded as a stream at offset 0 (`Bin2Decoder.decodeStream`) and, when it
// decodes, round-tripped (see FuzzSupport.swift); it is summarised and validated as a bin2
// container. When a `DABIN200` signature also occurs later in the input, the stream there is
// decoded too (positions absolute in the buffer, or relative to the stream).
//
// Scripts/fuzz.sh bin2 SECONDS

import BriefcaseKit

private let signature = Array("DABIN200".utf8)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)

    var decoder = Bin2Decoder(bytes: bytes)
    if let stream = try? decoder.decodeStream() {
        let canonical = decoder.warnings.isEmpty && FuzzChecks.isCanonicalLayout(bytes, streamStart: 0)
        FuzzChecks.roundTrip(BriefcaseDocument(container: .bin2, file: BriefcaseFile(stream: stream)),
                             original: bytes, canonicalInput: canonical)
        var summarizer = Bin2Decoder(bytes: bytes)
        guard let summaries = try? summarizer.summarize() else { fuzzFailure("a stream that decodes cannot be summarised") }
        guard summaries.count == stream.elements.count else { fuzzFailure("summaries and elements disagree") }
    } else {
        var summarizer = Bin2Decoder(bytes: bytes)
        _ = try? summarizer.summarize()
    }
    _ = Validator.validate(bytes: bytes, container: .bin2, path: "fuzz")

    // A stream that does not start the buffer (as in a DABRC600 file, or after garbage).
    if bytes.count > signature.count, let start = firstSignature(in: bytes, from: 1) {
        var inner = Bin2Decoder(bytes: bytes)
        if let stream = try? inner.decodeStream(streamStart: start) {
            FuzzChecks.roundTrip(BriefcaseDocument(container: .bin2, file: BriefcaseFile(stream: stream)),
                                 original: nil, canonicalInput: false)
        }
    }
    return 0
}

private func firstSignature(in bytes: [UInt8], from: Int) -> Int? {
    guard bytes.count >= signature.count, from <= bytes.count - signature.count else { return nil }
    for start in from ... bytes.count - signature.count where bytes[start] == signature[0] {
        if bytes[start ..< start + signature.count].elementsEqual(signature) { return start }
    }
    return nil
}
