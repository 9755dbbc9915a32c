// libFuzzer target `sqlite`: a database file as `convert x.sqlite …` reads it (BriefcaseSQLite's
// SQLiteSource: opened read-only, the mapping's tables, each element's Bin2 bytes, the current
// rows compared with the stored ones and the difference recorded as pending changes).
//
// The input is written to a temporary file (SQLite reads files, not memory) and read into a
// collecting sink; whatever it holds, the reader returns or throws a BriefcaseError — no trap,
// hang or blow-up — and a briefcase read from it goes through the round trips of
// FuzzSupport.swift (it must encode: what the writer would refuse is refused while reading).
//
// Scripts/fuzz.sh sqlite SECONDS

import Foundation
import BriefcaseKit
import BriefcaseSQLite

private let path = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-sqlite-\(getpid()).sqlite").path

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { fuzzFailure("cannot write \(path)") }
    defer { unlink(path) }
    var collector = BriefcaseCollector()
    do throws(BriefcaseError) {
        let source = try SQLiteSource(path: path)
        _ = try source.read(into: &collector)
    } catch {
        return 0
    }
    guard let document = collector.document else { fuzzFailure("a read that returned left no document") }
    FuzzChecks.roundTrip(document, original: nil, canonicalInput: false)
    return 0
}
