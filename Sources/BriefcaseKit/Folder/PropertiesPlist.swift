import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// `Properties.plist` of a folder briefcase: a property-list dictionary of the custom properties.
///
/// Written as an XML plist of strings, in the briefcase's property order. A value whose bytes do
/// not decode reversibly in the briefcase's code page is written as `<data>` so nothing is lost.
/// Read: XML plists (order kept) and binary plists (keys sorted, as a dictionary has no order);
/// string and data values.
public enum PropertiesPlist {
    public enum Value: Hashable, Sendable {
        case string(String)
        case data([UInt8])
    }

    public static func encode(_ entries: [(key: String, value: Value)]) -> [UInt8] {
        var xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>

        """
        for (key, value) in entries {
            xml += "\t<key>\(escape(key))</key>\n"
            switch value {
            case .string(let text): xml += "\t<string>\(escape(text))</string>\n"
            case .data(let bytes): xml += "\t<data>\(Data(bytes).base64EncodedString())</data>\n"
            }
        }
        xml += "</dict>\n</plist>\n"
        return Array(xml.utf8)
    }

    public static func decode(_ bytes: [UInt8]) throws(BriefcaseError) -> [(key: String, value: Value)] {
        if bytes.starts(with: Array("bplist".utf8)) {
            return try decodeBinary(bytes)
        }
        if let problem = unsupportedXML(bytes) {
            throw BriefcaseError(.invalidData, "not a property list of strings: \(problem)")
        }
        let parser = OrderedPlistParser(bytes)
        guard let entries = parser.parse() else {
            throw BriefcaseError(.invalidData, "not a property list of strings: \(parser.problem ?? "malformed XML")")
        }
        return entries
    }

    private static func decodeBinary(_ bytes: [UInt8]) throws(BriefcaseError) -> [(key: String, value: Value)] {
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
        } catch {
            throw BriefcaseError(.invalidData, "not a valid binary property list")
        }
        guard let dictionary = object as? [String: Any] else {
            throw BriefcaseError(.invalidData, "the property list is not a dictionary")
        }
        var entries: [(key: String, value: Value)] = []
        for key in dictionary.keys.sorted() {
            switch dictionary[key] {
            case let text as String: entries.append((key, .string(text)))
            case let data as Data: entries.append((key, .data([UInt8](data))))
            default: throw BriefcaseError(.invalidData, "property '\(key)' is neither a string nor data")
            }
        }
        return entries
    }

    /// Why `XMLParser` must not see `bytes` (nil: it may). FoundationXML (Swift 6.3) traps on a
    /// name that is not UTF-8, on a processing instruction without data (`<?x?>`) and on DTD
    /// declarations without a public id or a default value (`<!NOTATION n SYSTEM "x">`,
    /// `<!ATTLIST a b CDATA #IMPLIED>`, unparsed entities). A plist needs none of that, so an XML
    /// `Properties.plist` must be valid UTF-8 (any encoding it declares is UTF-8), with no
    /// processing instruction besides the XML declaration and no internal DTD subset. The check is
    /// on the raw bytes: `<?` or `<!…` declarations inside comments or CDATA are refused too.
    /// (Spec/robustness.md; Fuzz/corpus/plist/crash-*.)
    static func unsupportedXML(_ bytes: [UInt8]) -> String? {
        guard bytes.withUnsafeBufferPointer({ UTF8Validation.isValid($0) }) else { return "the XML is not valid UTF-8" }
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        func starts(_ text: String, at index: Int) -> Bool { bytes[index...].starts(with: text.utf8) }
        func find(_ byte: UInt8, from index: Int) -> Int? { bytes[index...].firstIndex(of: byte) }
        var i = starts("\u{FEFF}", at: 0) ? 3 : 0
        if starts("<?xml", at: i), i + 5 < bytes.count, isSpace(bytes[i + 5]) {
            guard let close = find(UInt8(ascii: ">"), from: i), bytes[close - 1] == UInt8(ascii: "?") else {
                return "the XML declaration does not end"
            }
            let declaration = String(decoding: bytes[i ..< close], as: UTF8.self)
            if let range = declaration.range(of: "encoding") {
                // encoding = "NAME" (or 'NAME')
                let parts = declaration[range.upperBound...].split(omittingEmptySubsequences: false) { $0 == "\"" || $0 == "'" }
                let value = parts.count >= 2 && parts[0].allSatisfy({ $0 == "=" || $0.isWhitespace }) ? String(parts[1]) : ""
                guard ["utf-8", "utf8"].contains(value.lowercased()) else {
                    return "the XML declares the encoding '\(value)' (a Properties.plist is read as UTF-8)"
                }
            }
            i = close + 1
        }
        while let open = find(UInt8(ascii: "<"), from: i) {
            guard open + 1 < bytes.count else { break }
            if bytes[open + 1] == UInt8(ascii: "?") { return "processing instructions are not allowed (offset \(open))" }
            if bytes[open + 1] == UInt8(ascii: "!"), !starts("<!--", at: open), !starts("<![CDATA[", at: open) {
                guard starts("<!DOCTYPE", at: open) else { return "DTD declarations are not allowed (offset \(open))" }
                guard let close = find(UInt8(ascii: ">"), from: open) else { return "the DOCTYPE does not end (offset \(open))" }
                let body = bytes[open + 1 ..< close]
                if body.contains(UInt8(ascii: "[")) { return "an internal DTD subset is not allowed (offset \(open))" }
                if body.contains(UInt8(ascii: "<")) { return "the DOCTYPE is malformed (offset \(open))" }
                i = close + 1
                continue
            }
            i = open + 1
        }
        return nil
    }

    /// True when XML 1.0 can carry `text` (no control characters but tab, LF and CR; no U+FFFE/U+FFFF).
    public static func isXMLText(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            let v = scalar.value
            return v == 0x9 || v == 0xA || v == 0xD || (v >= 0x20 && v != 0xFFFE && v != 0xFFFF)
        }
    }

    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\r": out += "&#13;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

/// Reads `<plist><dict>(<key>…</key><string|data>…</…>)*</dict></plist>` keeping key order.
private final class OrderedPlistParser: NSObject, XMLParserDelegate {
    private let parser: XMLParser
    private var path: [String] = []
    private var text = ""
    private var pendingKey: String?
    private(set) var entries: [(key: String, value: PropertiesPlist.Value)] = []
    private(set) var problem: String?

    init(_ bytes: [UInt8]) {
        parser = XMLParser(data: Data(bytes))
        super.init()
        parser.delegate = self
        parser.shouldResolveExternalEntities = false
    }

    func parse() -> [(key: String, value: PropertiesPlist.Value)]? {
        guard parser.parse(), problem == nil else {
            if problem == nil { problem = parser.parserError.map { "\($0.localizedDescription) (line \(parser.lineNumber))" } }
            return nil
        }
        return entries
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        let allowed: Bool
        switch (path, name) {
        case ([], "plist"), (["plist"], "dict"): allowed = true
        case (["plist", "dict"], "key"): allowed = pendingKey == nil
        case (["plist", "dict"], "string"), (["plist", "dict"], "data"): allowed = pendingKey != nil
        default: allowed = false
        }
        guard allowed else { fail("unexpected <\(name)> (line \(parser.lineNumber))"); return }
        path.append(name)
        text = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    /// `<![CDATA[…]]>` text is text too (it was dropped).
    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) { text += String(decoding: CDATABlock, as: UTF8.self) }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        defer { path.removeLast(); text = "" }
        switch name {
        case "key": pendingKey = text
        case "string":
            entries.append((pendingKey!, .string(text)))
            pendingKey = nil
        case "data":
            guard let data = Data(base64Encoded: text.filter { !$0.isWhitespace }) else {
                fail("property '\(pendingKey!)' has invalid base64 data"); return
            }
            entries.append((pendingKey!, .data([UInt8](data))))
            pendingKey = nil
        case "dict":
            // A key without a value was dropped without a word.
            if let pendingKey { fail("property '\(pendingKey)' has no value") }
        default: break
        }
    }

    private func fail(_ message: String) {
        problem = problem ?? message
        parser.abortParsing()
    }
}
