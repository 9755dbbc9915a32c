// libFuzzer target `gzipstream`: a gzip file inflated chunk by chunk into an unlinked temporary
// file (`SpooledInput`, how the CLI reads every gzip input), with a small limit (1 MiB).
//
// The spooled bytes must be exactly what `Gzip.decompress` gives for the whole input, or both must
// fail with the same error (message and compressed offset). The same file spooled with a shape
// check (JSON, by the first byte's parity) keeps a prefix of those bytes, never more.
//
// Scripts/fuzz.sh gzipstream SECONDS

import BriefcaseKit

private let limit = 1 << 20

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let path = FuzzTemporaryFile.store(bytes, name: "input.gz")
    let whole: Result<[UInt8], BriefcaseError>
    do throws(BriefcaseError) { whole = .success(try Gzip.decompress(bytes, limit: limit)) } catch { whole = .failure(error) }

    let spooled: Result<[UInt8], BriefcaseError>
    do throws(BriefcaseError) {
        spooled = .success(try SpooledInput(path, gzip: true, limit: limit).readAll())
    } catch {
        spooled = .failure(error)
    }
    switch (whole, spooled) {
    case (.success(let a), .success(let b)):
        guard a == b else { fuzzFailure("spooled inflation differs from whole inflation (\(a.count) vs \(b.count) bytes)") }
    case (.failure(let a), .failure(let b)):
        guard a.message == b.message, a.offset == b.offset else {
            fuzzFailure("whole and spooled inflation fail differently: '\(a)' vs '\(b)'")
        }
    default:
        fuzzFailure("whole and spooled inflation disagree: \(whole) vs \(spooled)")
    }

    if case .success(let inflated) = whole {
        let shape: SpoolShape = (bytes.first ?? 0) % 2 == 0 ? .json : .prefix(Array("DABRC".utf8))
        guard let checked = try? SpooledInput(path, gzip: true, shape: shape, limit: limit) else {
            fuzzFailure("a shape check made a good gzip file fail")
        }
        guard let kept = try? checked.readAll(), inflated.starts(with: kept),
              checked.stoppedEarly || kept.count == inflated.count else {
            fuzzFailure("a shape check kept bytes that are not a prefix of the inflated data")
        }
    }
    return 0
}
