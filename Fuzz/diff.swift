// libFuzzer target `diff`: two briefcases compared (`BriefcaseComparison`).
//
// The input is cut in two at the place its first two bytes name (little-endian, modulo its
// length); each half is decoded as a single-file briefcase, or else as a bare Bin2 stream. When
// both decode, they are compared every way (stored rows and changes; current rows; keyless rows by
// position; ignoring a field), which must not trap; each compared with itself must give no
// differences, and so must A with a copy of itself. Read table by table from memory
// (`BriefcaseTables` of `BriefcaseElements`), A and B must give the same differences.
//
// Scripts/fuzz.sh diff SECONDS

import BriefcaseDiff
import BriefcaseKit

func decodeEither(_ bytes: [UInt8]) -> BriefcaseDocument? {
    var warnings: [DecodingWarning] = []
    return (try? BriefcaseDocument.decode(bytes, as: .dabriefcase, warnings: &warnings))
        ?? (try? BriefcaseDocument.decode(bytes, as: .bin2, warnings: &warnings))
}

/// The same bytes as a side read table by table, in the container `document` decoded from.
func tableByTable(_ bytes: [UInt8], _ document: BriefcaseDocument) -> BriefcaseTables? {
    (try? BriefcaseElements(bytes: bytes, as: document.container)).map { BriefcaseTables($0) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard bytes.count >= 2 else { return 0 }
    let rest = Array(bytes[2...])
    let cut = rest.isEmpty ? 0 : (Int(bytes[0]) | Int(bytes[1]) << 8) % (rest.count + 1)
    let a = decodeEither(Array(rest[..<cut])), b = decodeEither(Array(rest[cut...]))
    let options = [DiffOptions(), DiffOptions(current: true), DiffOptions(byPosition: true),
                   DiffOptions(ignoredFields: ["ID"], ignoredProperties: ["Name"])]
    for document in [a, b].compactMap({ $0 }) {
        for option in options where !BriefcaseComparison.differences(document, document, options: option).isEmpty {
            fuzzFailure("a briefcase compared with itself has differences")
        }
    }
    if let a, let b {
        let tablesA = tableByTable(Array(rest[..<cut]), a), tablesB = tableByTable(Array(rest[cut...]), b)
        for option in options {
            let differences = BriefcaseComparison.differences(a, b, options: option)
            guard let tablesA, let tablesB else { fuzzFailure("a briefcase that decodes cannot be opened element by element") }
            guard (try? BriefcaseComparison.differences(tablesA, tablesB, options: option)) == differences else {
                fuzzFailure("read table by table, the differences are not those of the documents")
            }
        }
        if let copy = decodeEither(Array(rest[..<cut])), !BriefcaseComparison.differences(a, copy).isEmpty {
            fuzzFailure("a briefcase decoded twice differs from itself")
        }
    }
    return 0
}
