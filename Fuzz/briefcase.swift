// libFuzzer target `briefcase`: single-file briefcases (DABRC600).
//
// The input is decoded whole (`BriefcaseFileCodec.decode`: the element reader's elements,
// collected) and, when it decodes, round-tripped (codec, JSON document; see FuzzSupport.swift);
// it is validated (`Validator`), summarised (`BriefcaseElements.summary`, what `info` reads) and opened lazily from a temporary file
// (`Briefcase.openFile`: header, index, heads, then each table). A file that decodes whole must
// also open lazily and load every table.
//
// Scripts/fuzz.sh briefcase SECONDS

import BriefcaseKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)

    var warnings: [DecodingWarning] = []
    let decoded = try? BriefcaseFileCodec.decode(bytes, warnings: &warnings)
    if let decoded {
        let dataOffset = (try? BriefcaseFileCodec.readHeader(bytes).dataOffset) ?? 0
        let canonical = warnings.isEmpty && FuzzChecks.isCanonicalLayout(bytes, streamStart: dataOffset)
        FuzzChecks.roundTrip(BriefcaseDocument(container: .dabriefcase, file: decoded), original: bytes, canonicalInput: canonical)
    }

    _ = Validator.validate(bytes: bytes, container: .dabriefcase, path: "fuzz")

    let summaries = FuzzChecks.summaries(bytes, as: .dabriefcase)
    if decoded != nil, summaries == nil { fuzzFailure("a file that decodes cannot be summarised") }

    // The lazy path reads the same file in pieces.
    let path = FuzzTemporaryFile.store(bytes, name: "input.daBriefcase")
    do {
        let briefcase = try Briefcase.openFile(path)
        _ = try? briefcase.tableSummaries()
        _ = briefcase.codePage
        for i in 0 ..< briefcase.tableCount {
            do {
                let table = try briefcase.table(at: i)
                _ = table.currentRows()
            } catch {
                if decoded != nil { fuzzFailure("a file that decodes cannot load its table \(i) lazily: \(error)") }
            }
        }
        if decoded != nil {
            do {
                let document = try briefcase.document()
                FuzzChecks.roundTrip(document, original: nil, canonicalInput: false)
            } catch {
                fuzzFailure("a file that decodes gives no document lazily: \(error)")
            }
        }
    } catch {
        if decoded != nil { fuzzFailure("a file that decodes does not open lazily: \(error)") }
    }
    return 0
}
