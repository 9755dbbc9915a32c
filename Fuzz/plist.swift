// libFuzzer target `plist`: a folder briefcase's `Properties.plist` (XML or binary).
//
// The input is decoded with `PropertiesPlist.decode`; what decodes is written back with
// `PropertiesPlist.encode` (XML) and must decode to the same entries — when XML can carry the
// text (`PropertiesPlist.isXMLText`), as the folder writer checks before writing strings.
//
// Scripts/fuzz.sh plist SECONDS

import BriefcaseKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let entries = try? PropertiesPlist.decode(bytes) else { return 0 }
    let writable = entries.allSatisfy { entry in
        guard PropertiesPlist.isXMLText(entry.key) else { return false }
        if case .string(let text) = entry.value { return PropertiesPlist.isXMLText(text) }
        return true
    }
    guard writable else { return 0 }
    let written = PropertiesPlist.encode(entries)
    let again: [(key: String, value: PropertiesPlist.Value)]
    do {
        again = try PropertiesPlist.decode(written)
    } catch {
        fuzzFailure("the XML written for decoded entries does not read back: \(error)")
    }
    guard again.count == entries.count,
          zip(again, entries).allSatisfy({ $0.key == $1.key && $0.value == $1.value }) else {
        fuzzFailure("Properties.plist round trip changed the entries")
    }
    return 0
}
