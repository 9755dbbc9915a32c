import JSONCore
import Foundation

/// Reads an XML `Properties.plist`: `<plist><dict>` of `<key>` + `<string>`/`<data>` pairs, in
/// document order (duplicate keys kept).
///
/// A reader of exactly that subset of XML 1.0, in place of Foundation's `XMLParser`, which traps
/// on some malformed input and leaks memory on every parse error (swift-corelibs-foundation 6.3.1;
/// Spec/robustness.md, F3, F5, F8). Linear in the input, no recursion.
///
/// Accepted: a UTF-8 byte-order mark; an XML declaration (any encoding it names must be UTF-8);
/// comments; one `DOCTYPE` without an internal subset (Apple's line); `<plist>` holding at most one
/// `<dict>` (each may be empty, `<dict/>`); in the dict, pairs of `<key>` and `<string>` or
/// `<data>` (each may be empty, `<key/>`); attributes (ignored); in text, the five predefined
/// entities, character references, CDATA sections and comments, line ends normalised to LF as
/// XML requires. Anything else is refused with its offset: processing instructions, DTD
/// declarations, other elements, text between elements, input that is not UTF-8.
struct XMLPlistReader {
    private let bytes: [UInt8]
    private var i = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    static func decode(_ bytes: [UInt8]) throws(BriefcaseError) -> [(key: String, value: PropertiesPlist.Value)] {
        var reader = XMLPlistReader(bytes)
        return try reader.read()
    }

    /// (The offset goes in the message: `Properties.plist` findings carry none, as before.)
    private func fail(_ message: String, at offset: Int? = nil) -> BriefcaseError {
        BriefcaseError(.invalidData, "not a property list of strings: \(message) (at byte \(offset ?? i))")
    }

    /// `expected WHAT, found` the text at `i` (up to 20 bytes, or "the end").
    private func mismatch(_ expected: String) -> BriefcaseError {
        guard i < bytes.count else { return fail("expected \(expected), found the end") }
        let shown = bytes[i..<min(bytes.count, i + 20)].prefix { $0 != 0x0A && $0 != 0x0D }
        return fail("expected \(expected), found \"\(String(decoding: shown, as: UTF8.self))\(i + shown.count < bytes.count ? "…" : "")\"")
    }

    private func starts(_ text: String, at index: Int? = nil) -> Bool {
        bytes[min(index ?? i, bytes.count)...].starts(with: text.utf8)
    }

    private func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    /// `<name` followed by a space, `>` or `/` (so `<keys>` is not `<key`).
    private func startsTag(_ name: String) -> Bool {
        let end = i + 1 + name.utf8.count
        guard starts("<" + name), end < bytes.count else { return false }
        return isSpace(bytes[end]) || bytes[end] == UInt8(ascii: ">") || bytes[end] == UInt8(ascii: "/")
    }

    private func find(_ text: String, from index: Int) -> Int? {
        let needle = Array(text.utf8)
        var at = index
        while let first = bytes[at...].firstIndex(of: needle[0]) {
            if bytes[first...].starts(with: needle) { return first }
            at = first + 1
        }
        return nil
    }

    private mutating func skipSpace() {
        while i < bytes.count, isSpace(bytes[i]) { i += 1 }
    }

    /// At `<!--`: past the matching `-->`.
    private mutating func comment() throws(BriefcaseError) {
        guard let end = find("-->", from: i + 4) else { throw fail("a comment does not end") }
        i = end + 3
    }

    /// Whitespace and comments.
    private mutating func skipMisc() throws(BriefcaseError) {
        while true {
            skipSpace()
            guard starts("<!--") else { return }
            try comment()
        }
    }

    mutating func read() throws(BriefcaseError) -> [(key: String, value: PropertiesPlist.Value)] {
        guard bytes.withUnsafeBufferPointer({ UTF8Validation.isValid($0) }) else { throw fail("the XML is not valid UTF-8", at: 0) }
        if starts("\u{FEFF}") { i = 3 }
        if starts("<?xml"), i + 5 < bytes.count, isSpace(bytes[i + 5]) { try declaration() }
        try skipMisc()
        if starts("<!DOCTYPE") {
            try doctype()
            try skipMisc()
        }
        if starts("<?") { throw fail("processing instructions are not allowed") }
        guard startsTag("plist") else { throw i == bytes.count ? fail("no <plist> element") : mismatch("<plist>") }
        var entries: [(key: String, value: PropertiesPlist.Value)] = []
        if try !startTag("plist") {
            try skipMisc()
            if startsTag("dict") {
                if try !startTag("dict") { entries = try dictBody() }
                try skipMisc()
            }
            try endTag("plist")
        }
        try skipMisc()
        guard i == bytes.count else { throw fail("unexpected content after </plist>") }
        return entries
    }

    /// `<?xml …?>`: any encoding named must be UTF-8 (the bytes are read as UTF-8).
    private mutating func declaration() throws(BriefcaseError) {
        guard let end = find("?>", from: i) else { throw fail("the XML declaration does not end") }
        let text = String(decoding: bytes[i ..< end], as: UTF8.self)
        if let range = text.range(of: "encoding") {
            let parts = text[range.upperBound...].split(omittingEmptySubsequences: false) { $0 == "\"" || $0 == "'" }
            let value = parts.count >= 2 && parts[0].allSatisfy({ $0 == "=" || $0.isWhitespace }) ? String(parts[1]) : ""
            guard ["utf-8", "utf8"].contains(value.lowercased()) else {
                throw fail("the XML declares the encoding '\(value)' (a Properties.plist is read as UTF-8)")
            }
        }
        i = end + 2
    }

    /// `<!DOCTYPE …>` without an internal subset.
    private mutating func doctype() throws(BriefcaseError) {
        guard let close = bytes[i...].firstIndex(of: UInt8(ascii: ">")) else { throw fail("the DOCTYPE does not end") }
        let body = bytes[i + 1 ..< close]
        if body.contains(UInt8(ascii: "[")) { throw fail("an internal DTD subset is not allowed") }
        if body.contains(UInt8(ascii: "<")) { throw fail("the DOCTYPE is malformed") }
        i = close + 1
    }

    /// At `<name`: past the start tag, skipping attributes; true when it closes itself (`<name/>`).
    private mutating func startTag(_ name: String) throws(BriefcaseError) -> Bool {
        i += 1 + name.utf8.count
        while true {
            let before = i
            skipSpace()
            guard i < bytes.count else { throw fail("<\(name)> does not end") }
            if bytes[i] == UInt8(ascii: ">") { i += 1; return false }
            if starts("/>") { i += 2; return true }
            guard i > before else { throw fail("malformed <\(name)> tag") }
            // name = "value" (or 'value')
            let nameStart = i
            while i < bytes.count, !isSpace(bytes[i]), !"=<>/\"'".utf8.contains(bytes[i]) { i += 1 }
            guard i > nameStart else { throw fail("malformed attribute in <\(name)>") }
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "=") else { throw fail("malformed attribute in <\(name)>") }
            i += 1
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'") else {
                throw fail("malformed attribute in <\(name)>")
            }
            guard let close = bytes[(i + 1)...].firstIndex(of: bytes[i]), !bytes[i + 1 ..< close].contains(UInt8(ascii: "<")) else {
                throw fail("malformed attribute in <\(name)>")
            }
            i = close + 1
        }
    }

    /// `</name>`.
    private mutating func endTag(_ name: String) throws(BriefcaseError) {
        guard starts("</" + name) else { throw mismatch("</\(name)>") }
        i += 2 + name.utf8.count
        skipSpace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: ">") else { throw mismatch("</\(name)>") }
        i += 1
    }

    /// After `<dict>`: the pairs, then past `</dict>`.
    private mutating func dictBody() throws(BriefcaseError) -> [(key: String, value: PropertiesPlist.Value)] {
        var entries: [(key: String, value: PropertiesPlist.Value)] = []
        while true {
            try skipMisc()
            if starts("</dict") {
                try endTag("dict")
                return entries
            }
            guard startsTag("key") else { throw mismatch("<key> or </dict>") }
            let key = try startTag("key") ? "" : try text(of: "key")
            try skipMisc()
            let valueStart = i
            if startsTag("string") {
                entries.append((key, .string(try startTag("string") ? "" : try text(of: "string"))))
            } else if startsTag("data") {
                let base64 = try startTag("data") ? "" : try text(of: "data")
                guard let data = Data(base64Encoded: String(decoding: base64.utf8.filter { !isSpace($0) }, as: UTF8.self)) else {
                    throw fail("property '\(key)' has invalid base64 data", at: valueStart)
                }
                entries.append((key, .data([UInt8](data))))
            } else if starts("</dict") || startsTag("key") {
                throw fail("property '\(key)' has no value")
            } else {
                throw mismatch("<string> or <data> for property '\(key)'")
            }
        }
    }

    /// After `<name>`: the text, then past `</name>`.
    private mutating func text(of name: String) throws(BriefcaseError) -> String {
        var out: [UInt8] = []
        while true {
            guard i < bytes.count else { throw fail("<\(name)> does not end") }
            let byte = bytes[i]
            switch byte {
            case UInt8(ascii: "<"):
                if starts("</") {
                    try endTag(name)
                    return String(decoding: out, as: UTF8.self)
                } else if starts("<![CDATA[") {
                    guard let end = find("]]>", from: i + 9) else { throw fail("a CDATA section does not end") }
                    appendNormalizingLineEnds(bytes[i + 9 ..< end], to: &out)
                    i = end + 3
                } else if starts("<!--") {
                    try comment()
                } else {
                    throw fail("unexpected markup in <\(name)>")
                }
            case UInt8(ascii: "&"):
                try reference(into: &out)
            case 0x0D:
                out.append(0x0A)
                i += 1
                if i < bytes.count, bytes[i] == 0x0A { i += 1 }
            case 0x00 ..< 0x20 where byte != 0x09 && byte != 0x0A:
                throw fail("control character 0x\(String(byte, radix: 16)) in <\(name)>")
            default:
                out.append(byte)
                i += 1
            }
        }
    }

    private func appendNormalizingLineEnds(_ slice: ArraySlice<UInt8>, to out: inout [UInt8]) {
        var previousCR = false
        for byte in slice {
            if byte == 0x0A && previousCR { previousCR = false; continue }
            previousCR = byte == 0x0D
            out.append(previousCR ? 0x0A : byte)
        }
    }

    /// At `&`: `&amp;` `&lt;` `&gt;` `&quot;` `&apos;` `&#N;` `&#xH;` (an XML character).
    private mutating func reference(into out: inout [UInt8]) throws(BriefcaseError) {
        let start = i
        guard let semicolon = bytes[i ..< min(bytes.count, i + 12)].firstIndex(of: UInt8(ascii: ";")) else {
            throw fail("'&' starts no entity or character reference")
        }
        let name = String(decoding: bytes[i + 1 ..< semicolon], as: UTF8.self)
        let scalar: UInt32?
        switch name {
        case "amp": scalar = 0x26
        case "lt": scalar = 0x3C
        case "gt": scalar = 0x3E
        case "quot": scalar = 0x22
        case "apos": scalar = 0x27
        default:
            if name.hasPrefix("#x"), name.count > 2, name.dropFirst(2).allSatisfy({ $0.isASCII && $0.isHexDigit }) {
                scalar = UInt32(name.dropFirst(2), radix: 16)
            } else if name.hasPrefix("#"), name.count > 1, name.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }) {
                scalar = UInt32(name.dropFirst(), radix: 10)
            } else {
                throw fail("unknown entity '&\(name);'", at: start)
            }
        }
        guard let value = scalar, value == 0x9 || value == 0xA || value == 0xD || (0x20 ... 0xD7FF).contains(value)
                || (0xE000 ... 0xFFFD).contains(value) || (0x10000 ... 0x10FFFF).contains(value),
              let unicode = Unicode.Scalar(value)
        else { throw fail("'&\(name);' is not an XML character", at: start) }
        out.append(contentsOf: String(Character(unicode)).utf8)
        i = semicolon + 1
    }
}
