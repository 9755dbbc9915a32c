import Foundation
import BriefcaseTestSupport
@testable import BriefcaseKit

/// Paths the tests read (shared with the other test targets).
typealias TestPaths = SamplePaths

/// Hand-assembled little-endian bytes for independent expectations.
struct Bytes {
    var bytes: [UInt8] = []
    mutating func i32(_ v: Int32) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func raw(_ v: [UInt8]) { bytes += v }
    mutating func ascii(_ s: String) { bytes += Array(s.utf8) }
    mutating func str(_ s: String) { i32(Int32(s.utf8.count)); ascii(s) }
}

extension Bytes {
    /// Any fixed-width integer, little-endian.
    mutating func le<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
    mutating func i64(_ v: Int64) { le(v) }
    mutating func f64(_ v: Double) { le(v.bitPattern) }
    /// Bytes written as hex text: `"ff 00 7f"` (spaces optional).
    mutating func hex(_ text: String) { bytes += hexBytes(text) }
    /// Int32 byte length + UTF-16LE code units (Bin2 wide strings), computed from Swift's UTF-16 view.
    mutating func wide(_ s: String) {
        i32(Int32(s.utf16.count * 2))
        for unit in s.utf16 { u8(UInt8(unit & 0xff)); u8(UInt8(unit >> 8)) }
    }
    /// Length-prefixed raw bytes (blobs, 8-bit strings in another code page).
    mutating func lp(_ v: [UInt8]) { i32(Int32(v.count)); raw(v) }
    /// A schema property: AnsiString name + Utf8String value (-1 = nil).
    mutating func prop(_ name: String, _ value: String?) {
        str(name)
        if let value { str(value) } else { i32(-1) }
    }
    /// A row-section field descriptor: name, type code, size.
    mutating func field(_ name: String, _ type: UInt8, _ size: Int32 = 0) { str(name); u8(type); i32(size) }

    static func build(_ body: (inout Bytes) -> Void) -> [UInt8] {
        var b = Bytes()
        body(&b)
        return b.bytes
    }
}

/// Int32 stored little-endian at `offset` (read by hand, not with BriefcaseKit).
func int32(_ bytes: [UInt8], at offset: Int) -> Int32 {
    Int32(bitPattern: UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24)
}

extension Array where Element == UInt8 {
    /// Start of the first occurrence of `needle`, or nil.
    func offset(of needle: [UInt8]) -> Int? {
        guard !needle.isEmpty, needle.count <= count else { return nil }
        for start in 0...(count - needle.count) where self[start] == needle[0] {
            if self[start ..< start + needle.count].elementsEqual(needle) { return start }
        }
        return nil
    }

    func occurrences(of needle: [UInt8]) -> Int {
        guard !needle.isEmpty, needle.count <= count else { return 0 }
        var n = 0
        for start in 0...(count - needle.count) where self[start ..< start + needle.count].elementsEqual(needle) { n += 1 }
        return n
    }
}

extension TestPaths {
    /// The well-formed fixtures written by `briefcase-fixtures`.
    static let validFixtureNames = [
        "all-types.daBriefcase", "nulls.daBriefcase", "empty-table.daBriefcase", "empty-delta.daBriefcase",
        "gbk.daBriefcase", "orders.bin2", "unsafe-names.daBriefcase",
    ]
    /// The deliberately damaged fixtures.
    static let damagedFixtureNames = [
        "damaged-truncated-file.daBriefcase", "damaged-truncated-row.daBriefcase", "damaged-row-count.daBriefcase",
        "damaged-index-position.daBriefcase", "damaged-type-200.daBriefcase", "damaged-type-0.daBriefcase",
    ]
    static var allFixtureNames: [String] { validFixtureNames + damagedFixtureNames }

    static func fixture(_ name: String) throws -> [UInt8] {
        let url = fixtures.appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw FixtureMissing(path: url.path)
        }
        return [UInt8](data)
    }

    struct FixtureMissing: Error, CustomStringConvertible {
        var path: String
        var description: String { "fixture \(path) is missing; run `swift run briefcase-fixtures Fixtures`" }
    }
}

/// Decodes a fixture or sample: `.bin2` as a bare Bin2 stream, anything else as a DABRC600 file.
/// Returns the stream and the decoder's warnings.
func decodeAny(_ bytes: [UInt8], bin2: Bool) throws(BriefcaseError) -> (stream: Bin2Stream, file: BriefcaseFile?, warnings: [DecodingWarning]) {
    if bin2 {
        let (stream, warnings) = try decodeBin2(bytes)
        return (stream, nil, warnings)
    }
    var warnings: [DecodingWarning] = []
    let file = try BriefcaseFileCodec.decode(bytes, warnings: &warnings)
    return (file.stream, file, warnings)
}

/// Encodes what `decodeAny` returned, the same way.
func encodeAny(_ decoded: (stream: Bin2Stream, file: BriefcaseFile?, warnings: [DecodingWarning])) throws(BriefcaseError) -> [UInt8] {
    if let file = decoded.file { return try BriefcaseFileCodec.encode(file) }
    return try Bin2Encoder.encode(decoded.stream)
}

/// A bare Bin2 stream decoded whole, and the warnings.
func decodeBin2(_ bytes: [UInt8]) throws(BriefcaseError) -> (stream: Bin2Stream, warnings: [DecodingWarning]) {
    var warnings: [DecodingWarning] = []
    let document = try BriefcaseDocument.decode(bytes, as: .bin2, warnings: &warnings)
    return (document.file.stream, warnings)
}

/// Bin2 streams taken apart and put together by hand, independently of BriefcaseKit: an oracle
/// for what the writer makes of elements it is given (Spec/bin2.md §2–3: `DABIN200`, the index
/// position, the element bodies, the index; a table body holds one position, its schema end at
/// bytes 1…4, which is 0 only for a table without schema that stores 0).
enum HandStream {
    struct Element: Equatable {
        var kind: Int32
        var name: [UInt8]
        /// The body as it is in its stream, which starts at `position` (absolute).
        var body: [UInt8]
        var position: Int
    }

    /// The elements of the stream at `streamStart` (positions absolute, bodies contiguous in
    /// index order: what every known writer lays out).
    static func elements(_ bytes: [UInt8], streamStart: Int) -> [Element] {
        let indexPosition = Int(int32(bytes, at: streamStart + 8))
        var at = indexPosition
        let count = Int(int32(bytes, at: at)); at += 4
        var listed: [(kind: Int32, name: [UInt8], position: Int)] = []
        for _ in 0..<count {
            let kind = int32(bytes, at: at), length = Int(int32(bytes, at: at + 4))
            let name = Array(bytes[at + 8 ..< at + 8 + length])
            listed.append((kind, name, Int(int32(bytes, at: at + 8 + length))))
            at += 12 + length
        }
        return listed.enumerated().map { i, entry in
            let end = i + 1 < listed.count ? listed[i + 1].position : indexPosition
            return Element(kind: entry.kind, name: entry.name, body: Array(bytes[entry.position ..< end]), position: entry.position)
        }
    }

    /// A stream of `elements` laid out from `streamStart` on: bodies in order, each table's schema
    /// end moved as far as its body moved, then the index.
    static func stream(_ elements: [Element], at streamStart: Int) -> [UInt8] {
        var out = Bytes()
        out.ascii("DABIN200")
        out.i32(0)
        var positions: [Int] = []
        for element in elements {
            let position = streamStart + out.bytes.count
            var body = element.body
            if element.kind == 0, body[0] != 0 || int32(body, at: 1) != 0 {
                let moved = int32(body, at: 1) + Int32(position - element.position)
                withUnsafeBytes(of: moved.littleEndian) { body.replaceSubrange(1..<5, with: $0) }
            }
            positions.append(position)
            out.raw(body)
        }
        withUnsafeBytes(of: Int32(streamStart + out.bytes.count).littleEndian) { out.bytes.replaceSubrange(8..<12, with: $0) }
        out.i32(Int32(elements.count))
        for (element, position) in zip(elements, positions) {
            out.i32(element.kind); out.i32(Int32(element.name.count)); out.raw(element.name); out.i32(Int32(position))
        }
        return out.bytes
    }

    /// A `DABRC600` file without properties holding `elements`.
    static func singleFile(_ elements: [Element]) -> [UInt8] {
        Bytes.build { b in b.ascii("DABRC600"); b.i32(16); b.i32(0) } + stream(elements, at: 16)
    }

    /// Where the stream of a `DABRC600` file starts (its data offset).
    static func dataOffset(_ bytes: [UInt8]) -> Int { Int(int32(bytes, at: 8)) }
}
