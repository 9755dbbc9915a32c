import Foundation

/// `Properties.plist` of a folder briefcase: a property-list dictionary of the custom properties.
///
/// Written as an XML plist of strings, in the briefcase's property order. A value whose bytes do
/// not decode reversibly in the briefcase's code page is written as `<data>` so nothing is lost.
/// Read: XML plists (`XMLPlistReader`; order kept) and binary plists (`BinaryPlist`; keys sorted,
/// as a dictionary has no order); string and data values. Both readers are this package's own:
/// Foundation's crash on crafted input (Spec/robustness.md).
package enum PropertiesPlist {
    /// A property's value: text, or bytes that are not text in the briefcase's code page.
    package enum Value: Hashable, Sendable {
        /// A `<string>` value.
        case string(String)
        /// A `<data>` value.
        case data([UInt8])
    }

    /// The XML plist of `entries`, in their order.
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

    /// The entries of an XML or binary plist dictionary.
    public static func decode(_ bytes: [UInt8]) throws(BriefcaseError) -> [(key: String, value: Value)] {
        if bytes.starts(with: Array("bplist".utf8)) {
            return try BinaryPlist.decode(bytes)
        }
        return try XMLPlistReader.decode(bytes)
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
