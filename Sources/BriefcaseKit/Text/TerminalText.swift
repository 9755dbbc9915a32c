/// Text for people, made safe to show on a terminal.
///
/// Names, properties, values and paths come from files and from whoever named the files. Shown
/// as they are, some characters would act on the terminal instead of being shown: ESC and the
/// other C0 controls start sequences that move the cursor, recolour or clear the screen, set the
/// window's title or the clipboard; DEL erases; the C1 controls U+0080…U+009F are such sequences
/// of their own (U+009B is CSI); the bidirectional overrides and isolates (U+202A…U+202E,
/// U+2066…U+2069) reorder what follows, so that a line reads otherwise than it is. A line break
/// inside a name would make one message look like two.
///
/// `escaped(_:keepingLineBreaks:)` is the one escaping that every text the command line tool
/// makes for people goes through (messages, `info`, `validate`'s findings, `query`'s tables), and
/// `BriefcaseError.description` too. Its form follows git's quoting of file names:
///
/// - Text that holds none of those characters is returned unchanged.
/// - Otherwise each is written as an escape: `\t`, `\n`, `\r`; `\xHH` for the other C0 controls
///   and DEL (`\x1B`, `\x7F`); `\u{HH}` for the C1 controls and the bidirectional controls
///   (`\u{85}`, `\u{202E}`); and a backslash as `\\`, so that the result reads back
///   unambiguously. Hex digits are upper case.
/// - A character that stands for a byte of a file name that is not UTF-8 (the command line tool
///   opens such names as given) is shown as that byte, `\xFF`.
///
/// Everything else — letters of every script, emoji, combining marks — is kept.
public enum TerminalText {
    /// `text` with every character a terminal would act on escaped, as described above.
    ///
    /// - Parameters:
    ///   - text: the text to show.
    ///   - keepingLineBreaks: keep `\n` as a line break (for text of several lines, such as a
    ///     usage message); every other character is escaped as usual.
    /// - Returns: `text` itself when nothing needs escaping.
    public static func escaped(_ text: String, keepingLineBreaks: Bool = false) -> String {
        guard needsEscaping(text, keepingLineBreaks: keepingLineBreaks) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            appendEscaped(scalar, to: &out, keepingLineBreaks: keepingLineBreaks)
        }
        return out
    }

    /// True when `escaped(_:keepingLineBreaks:)` would change `text`. One pass over the UTF-8
    /// bytes: the characters to escape are ASCII bytes below 0x20 and 0x7F, or start with 0xC2
    /// (C1), 0xE2 (bidirectional controls) or 0xF4 (stand-ins for bytes).
    static func needsEscaping(_ text: String, keepingLineBreaks: Bool) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var i = 0
            let count = bytes.count
            while i < count {
                let byte = bytes[i]
                switch byte {
                case 0x0A where keepingLineBreaks: break
                case 0x00 ..< 0x20, 0x7F: return true
                case 0xC2 where i + 1 < count && bytes[i + 1] < 0xA0: return true
                case 0xE2 where i + 2 < count && isBidiControl(bytes[i + 1], bytes[i + 2]): return true
                case 0xF4 where SystemPath.standsForBytes && i + 2 < count && bytes[i + 1] == 0x8F && (bytes[i + 2] == 0xBA || bytes[i + 2] == 0xBB):
                    return true
                default: break
                }
                i += 1
            }
            return false
        }
    }

    /// U+202A…U+202E (E2 80 AA…AE) and U+2066…U+2069 (E2 81 A6…A9), from their second and third bytes.
    @inline(__always)
    static func isBidiControl(_ second: UInt8, _ third: UInt8) -> Bool {
        (second == 0x80 && (0xAA ... 0xAE).contains(third)) || (second == 0x81 && (0xA6 ... 0xA9).contains(third))
    }

    private static func appendEscaped(_ scalar: Unicode.Scalar, to out: inout String, keepingLineBreaks: Bool) {
        switch scalar.value {
        case 0x5C: out += "\\\\"
        case 0x09: out += "\\t"
        case 0x0A: out += keepingLineBreaks ? "\n" : "\\n"
        case 0x0D: out += "\\r"
        case 0x00 ..< 0x20, 0x7F: out += "\\x" + hex(scalar.value, digits: 2)
        case 0x80 ..< 0xA0, 0x202A ... 0x202E, 0x2066 ... 0x2069: out += "\\u{" + hex(scalar.value, digits: 1) + "}"
        default:
            if let byte = SystemPath.byte(standingFor: scalar) {
                out += "\\x" + hex(UInt32(byte), digits: 2)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }

    /// Upper-case hex, at least `digits` digits.
    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
