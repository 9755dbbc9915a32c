// libFuzzer target `bin2`: bare Bin2 streams (DABIN200).
//
// The input is decoded whole (`BriefcaseDocument.decode` as bin2: the element reader's elements,
// collected) and, when it decodes, round-tripped (see FuzzSupport.swift); every element is
// summarised (`BriefcaseElements.summary`, what `info` reads) and the input is validated as a bin2
// container. (A stream after other bytes, at an offset, is the `briefcase` target's: the stream
// of a DABRC600 file.)
//
// Scripts/fuzz.sh bin2 SECONDS

import BriefcaseKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)

    var warnings: [DecodingWarning] = []
    let decoded = try? BriefcaseDocument.decode(bytes, as: .bin2, warnings: &warnings)
    if let decoded {
        let canonical = warnings.isEmpty && FuzzChecks.isCanonicalLayout(bytes, streamStart: 0)
        FuzzChecks.roundTrip(decoded, original: bytes, canonicalInput: canonical)
    }
    let summaries = FuzzChecks.summaries(bytes, as: .bin2)
    if let decoded, summaries?.count != decoded.file.stream.elements.count {
        fuzzFailure("a stream that decodes cannot be summarised, or its summaries and elements disagree")
    }
    _ = Validator.validate(bytes: bytes, container: .bin2, path: "fuzz")
    return 0
}
