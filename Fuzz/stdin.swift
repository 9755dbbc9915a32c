// libFuzzer target `stdin`: standard input as the CLI reads it (`SpooledInput` of "-"): gzip by
// its first two bytes, copied into an unlinked temporary file, and read only as far as the format
// allows (the shape, from the input's first byte: any, JSON, a DABRC or a DABIN200 signature).
//
// - What is kept is the input (or, when it is gzip, its inflation), or a prefix of it when the
//   shape check stopped the reading.
// - The shape check is never stricter than the readers: a JSON document `JSONParser` accepts is
//   read to its end; when the check stops, the reader fails on what was kept with exactly the
//   error (message and offset) it gives for the whole input. Likewise for the binary decoders.
//
// Scripts/fuzz.sh stdin SECONDS

import JSONCore
import BriefcaseJSON
import BriefcaseKit
#if canImport(Glibc)
import Glibc
#endif

private let limit = 1 << 20

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let all = fuzzBytes(data, size)
    guard let selector = all.first else { return 0 }
    let input = Array(all.dropFirst())
    let shapes: [SpoolShape] = [.any, .json, .prefix(Array("DABRC".utf8)), .prefix(Array("DABIN200".utf8))]
    let shape = shapes[Int(selector) % shapes.count]

    // The input becomes this process's standard input.
    let path = FuzzTemporaryFile.store(input, name: "stdin")
    let fd = open(path, O_RDONLY)
    guard fd >= 0, dup2(fd, 0) == 0 else { fuzzFailure("cannot make \(path) standard input") }
    close(fd)

    let spooled: SpooledInput
    do throws(BriefcaseError) {
        spooled = try SpooledInput("-", gzip: nil, shape: shape, limit: limit)
    } catch {
        guard Gzip.hasMagic(input) else { fuzzFailure("plain standard input failed to spool: \(error)") }
        return 0
    }
    guard let kept = try? spooled.readAll() else { fuzzFailure("the spooled copy cannot be read back") }
    guard spooled.gzipped == Gzip.hasMagic(input) else { fuzzFailure("gzip recognised wrongly") }
    var full = input
    if spooled.gzipped {
        guard let inflated = try? Gzip.decompress(input, limit: limit) else {
            guard spooled.stoppedEarly else { fuzzFailure("spooled gzip that does not inflate whole") }
            return 0
        }
        full = inflated
    }
    guard full.starts(with: kept), spooled.stoppedEarly || kept.count == full.count else {
        fuzzFailure("kept \(kept.count) bytes that are not the input (\(full.count) bytes) or a prefix of it")
    }
    guard spooled.stoppedEarly else { return 0 }

    switch shape {
    case .json:
        let whole = Result { () throws(JSONParseError) in try JSONParser.parse(full) }
        guard case .failure(let expected) = whole else { fuzzFailure("the JSON check stopped a document the parser accepts") }
        let partial = Result { () throws(JSONParseError) in try JSONParser.parse(kept) }
        guard case .failure(let found) = partial, found == expected else {
            fuzzFailure("the parser reports '\(expected)' on the whole input but \(partial) on what was kept")
        }
    case .prefix(let magic):
        let container: ContainerFormat = magic.count == 8 ? .bin2 : .dabriefcase
        var warnings: [DecodingWarning] = []
        let whole = Result { () throws(BriefcaseError) in try BriefcaseDocument.decode(full, as: container, warnings: &warnings) }
        let partial = Result { () throws(BriefcaseError) in try BriefcaseDocument.decode(kept, as: container, warnings: &warnings) }
        guard case .failure(let expected) = whole else { fuzzFailure("the signature check stopped a stream the decoder accepts") }
        guard case .failure(let found) = partial, found.message == expected.message, found.offset == expected.offset else {
            fuzzFailure("the decoder reports '\(expected)' on the whole input but \(partial) on what was kept")
        }
    case .any:
        fuzzFailure("reading stopped early without a shape")
    }
    return 0
}
