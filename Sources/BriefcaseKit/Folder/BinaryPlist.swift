/// Reads the binary property lists (`bplist00`) a `Properties.plist` may be: a dictionary whose
/// keys are strings and whose values are strings or data — nothing else is a briefcase property.
///
/// Written here instead of calling `PropertyListSerialization`, which crashes the process on
/// crafted input (swift-corelibs-foundation 6.3.1: a segmentation fault while bridging a set;
/// Spec/robustness.md, F6). Every offset, reference and count is checked against the file before
/// it is used; nothing recurses (the dictionary is flat).
///
/// Layout (Apple's CFBinaryPList.c): `bplist00`, the objects, the offset table (one big-endian
/// offset per object), a 32-byte trailer: 6 unused bytes, offset size, reference size, object
/// count, top object, offset table position (three big-endian UInt64). An object starts with a
/// marker byte: type in the high nibble, count in the low one (0xF: the count follows as an
/// integer object `0x1n`, 2ⁿ bytes). Types read here: `0x4` data, `0x5` ASCII string, `0x6`
/// UTF-16BE string (count in code units), `0xD` dictionary (count key references, then count
/// value references).
enum BinaryPlist {
    static func decode(_ bytes: [UInt8]) throws(BriefcaseError) -> [(key: String, value: PropertiesPlist.Value)] {
        // (The offset goes in the message: `Properties.plist` findings carry none, as before.)
        func invalid(_ message: String, at offset: Int? = nil) -> BriefcaseError {
            BriefcaseError(.invalidData, "not a valid binary property list: \(message)" + (offset.map { " (at byte \($0))" } ?? ""))
        }
        /// A big-endian unsigned integer of `size` (1…8) bytes at `at`, or nil past the end.
        func integer(at: Int, size: Int) -> Int? {
            guard (1 ... 8).contains(size), at >= 0, at <= bytes.count - size else { return nil }
            var value: UInt64 = 0
            for i in 0 ..< size { value = value << 8 | UInt64(bytes[at + i]) }
            return Int(exactly: value)
        }

        let header = Array("bplist00".utf8)
        guard bytes.count >= header.count + 32, bytes.starts(with: header) else {
            throw invalid("no bplist00 header and trailer")
        }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6]), referenceSize = Int(bytes[trailer + 7])
        guard (1 ... 8).contains(offsetSize), (1 ... 8).contains(referenceSize),
              let objectCount = integer(at: trailer + 8, size: 8),
              let topObject = integer(at: trailer + 16, size: 8),
              let table = integer(at: trailer + 24, size: 8),
              table >= header.count, table <= trailer,
              objectCount >= 1, objectCount <= (trailer - table) / offsetSize, topObject < objectCount
        else { throw invalid("the trailer does not describe this file", at: trailer) }

        /// Where object `reference` starts: after the header, before the offset table.
        func start(of reference: Int) throws(BriefcaseError) -> Int {
            guard reference >= 0, reference < objectCount,
                  let offset = integer(at: table + reference * offsetSize, size: offsetSize),
                  offset >= header.count, offset < table
            else { throw invalid("object \(reference) lies outside the objects") }
            return offset
        }
        /// The count of the object at `marker` and where its content starts.
        func count(at marker: Int) throws(BriefcaseError) -> (count: Int, content: Int) {
            let info = Int(bytes[marker] & 0x0F)
            guard info == 0x0F else { return (info, marker + 1) }
            guard marker + 1 < table, bytes[marker + 1] & 0xF0 == 0x10,
                  let count = integer(at: marker + 2, size: 1 << Int(bytes[marker + 1] & 0x0F)), count <= table
            else { throw invalid("bad count", at: marker) }
            return (count, marker + 2 + (1 << Int(bytes[marker + 1] & 0x0F)))
        }
        /// The references that start at `at`.
        func references(at: Int, _ n: Int) throws(BriefcaseError) -> [Int] {
            guard n <= (table - at) / referenceSize else { throw invalid("references past the objects", at: at) }
            var result: [Int] = []
            result.reserveCapacity(n)
            for i in 0 ..< n {
                guard let reference = integer(at: at + i * referenceSize, size: referenceSize) else {
                    throw invalid("references past the objects", at: at)
                }
                result.append(reference)
            }
            return result
        }
        /// The string or data object `reference`; nil for any other type.
        func value(_ reference: Int) throws(BriefcaseError) -> PropertiesPlist.Value? {
            let marker = try start(of: reference)
            switch bytes[marker] >> 4 {
            case 0x4, 0x5:
                let (n, content) = try count(at: marker)
                guard n <= table - content else { throw invalid("object \(reference) runs past the objects", at: marker) }
                let slice = bytes[content ..< content + n]
                if bytes[marker] >> 4 == 0x4 { return .data(Array(slice)) }
                guard slice.allSatisfy({ $0 < 0x80 }) else { throw invalid("an ASCII string holds a byte above 0x7F", at: marker) }
                return .string(String(decoding: slice, as: UTF8.self))
            case 0x6:
                let (n, content) = try count(at: marker)
                guard n <= (table - content) / 2 else { throw invalid("object \(reference) runs past the objects", at: marker) }
                var units = (0 ..< n).map { UInt16(bytes[content + 2 * $0]) << 8 | UInt16(bytes[content + 2 * $0 + 1]) }.makeIterator()
                var text = ""
                var decoder = UTF16()
                while true {
                    switch decoder.decode(&units) {
                    case .scalarValue(let scalar): text.unicodeScalars.append(scalar)
                    case .emptyInput: return .string(text)
                    case .error: throw invalid("a UTF-16 string is not well formed", at: marker)
                    }
                }
            default:
                return nil
            }
        }

        let top = try start(of: topObject)
        guard bytes[top] >> 4 == 0xD else {
            throw BriefcaseError(.invalidData, "the property list is not a dictionary")
        }
        let (n, content) = try count(at: top)
        let keys = try references(at: content, n)
        let values = try references(at: content + n * referenceSize, n)
        var entries: [(key: String, value: PropertiesPlist.Value)] = []
        var seen = Set<String>()
        for (keyReference, valueReference) in zip(keys, values) {
            guard case .string(let key)? = try value(keyReference) else { throw invalid("a key is not a string") }
            guard seen.insert(key).inserted else { throw BriefcaseError(.invalidData, "property '\(key)' appears twice") }
            guard let entry = try value(valueReference) else {
                throw BriefcaseError(.invalidData, "property '\(key)' is neither a string nor data")
            }
            entries.append((key, entry))
        }
        // A dictionary has no order: sorted keys, as before.
        return entries.sorted { $0.key < $1.key }
    }
}
