// libFuzzer target `fold`: a briefcase's pending changes folded into its stored rows
// (`BriefcaseFold`, Spec/fold.md).
//
// The input is decoded as a single-file briefcase, or else as a bare Bin2 stream. When it
// decodes, it is folded with each resolution, which must not trap; the result holds no delta,
// encodes, and folds again to itself with no conflict. Its changes are also applied
// (`BriefcaseApply`) to the folded briefcase and to itself: a result or a clean error, no trap.
// Merged three ways (`ThreeWayMerge`) with itself and its fold: no trap; with itself, no conflict;
// rows kept as bytes merge as rows made into values do.
//
// Scripts/fuzz.sh fold SECONDS

import BriefcaseKit
import BriefcaseMerge

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    var warnings: [DecodingWarning] = []
    guard let document = (try? BriefcaseDocument.decode(bytes, as: .dabriefcase, warnings: &warnings))
        ?? (try? BriefcaseDocument.decode(bytes, as: .bin2, warnings: &warnings)) else { return 0 }
    for resolution in ConflictResolution.allCases {
        let folded = BriefcaseFold.fold(document, onConflict: resolution).document
        guard folded.file.stream.deltas.isEmpty else { fuzzFailure("a folded briefcase holds a delta") }
        let again = BriefcaseFold.fold(folded, onConflict: resolution)
        guard again.conflicts.isEmpty, again.document == folded else { fuzzFailure("folding a folded briefcase changed it") }
        _ = try? folded.encode()
        _ = try? BriefcaseApply.apply(document, to: folded, onConflict: resolution)
        _ = try? BriefcaseApply.apply(document, to: document, onConflict: resolution)
    }
    if let merged = try? ThreeWayMerge.merge(base: document, local: document, remote: document), !merged.conflicts.isEmpty {
        fuzzFailure("a briefcase merged with itself has conflicts")
    }
    for rule in MergeRule.allCases {
        _ = try? ThreeWayMerge.merge(base: document, local: BriefcaseFold.fold(document, onConflict: .omit).document, remote: document,
                                     rules: .init(defaultRule: rule))
    }
    // Rows as bytes (only the rows that can differ made into values) merge as rows as values do.
    var refolded: [DecodingWarning] = []
    if let encoded = try? BriefcaseFold.fold(document, onConflict: .omit).document.encode(),
       let folded = try? BriefcaseDocument.decode(encoded, as: document.container, warnings: &refolded) {
        func values(_ document: BriefcaseDocument) -> BriefcaseDocument {
            var document = document
            for i in document.file.stream.elements.indices {
                if case .table(var table) = document.file.stream.elements[i] {
                    table.rows = Rows(table.rows.array)
                    document.file.stream.elements[i] = .table(table)
                }
            }
            return document
        }
        let bytes = try? ThreeWayMerge.merge(base: document, local: document, remote: folded)
        let made = try? ThreeWayMerge.merge(base: values(document), local: values(document), remote: values(folded))
        guard (bytes == nil) == (made == nil), bytes?.document.file.stream.deltas == made?.document.file.stream.deltas,
              bytes?.conflicts == made?.conflicts else {
            fuzzFailure("a merge of rows as bytes differs from the merge of rows as values")
        }
    }
    return 0
}
