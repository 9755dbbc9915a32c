import Testing
@testable import BriefcaseKit

// Expected strings are written by hand from the escape form documented in Spec/robustness.md §9.1
// (git-style: unchanged when nothing needs escaping; \t \n \r, \xHH for C0 and DEL, \u{H…} for
// C1 and the bidirectional controls, \\ once anything is escaped).

@Suite struct TerminalTextTests {
    @Test func textWithoutControlsIsUnchanged() {
        for text in ["", "Orders", "課程名称", "Dora 😀", "e\u{301}", "C:\\data\\x1B", "tab-free\u{A0}nbsp", "\u{200F}rlm"] {
            #expect(TerminalText.escaped(text) == text)
        }
    }

    @Test func controlsAreEscapedAndBackslashesDoubled() {
        #expect(TerminalText.escaped("a\u{1B}[31mb") == "a\\x1B[31mb")
        #expect(TerminalText.escaped("line\nnext\r\tend") == "line\\nnext\\r\\tend")
        #expect(TerminalText.escaped("\u{0}\u{7}\u{8}\u{1F}\u{7F}") == "\\x00\\x07\\x08\\x1F\\x7F")
        #expect(TerminalText.escaped("C:\\dir\u{1B}") == "C:\\\\dir\\x1B")
        #expect(TerminalText.escaped("\u{80}\u{85}\u{9B}\u{9F}") == "\\u{80}\\u{85}\\u{9B}\\u{9F}")
        #expect(TerminalText.escaped("\u{A0}\u{1B}") == "\u{A0}\\x1B") // U+00A0 is not C1
    }

    @Test func bidirectionalControlsAreEscapedAndTheirNeighboursKept() {
        let controls: [(String, String)] = [
            ("\u{202A}", "\\u{202A}"), ("\u{202B}", "\\u{202B}"), ("\u{202C}", "\\u{202C}"),
            ("\u{202D}", "\\u{202D}"), ("\u{202E}", "\\u{202E}"), ("\u{2066}", "\\u{2066}"),
            ("\u{2067}", "\\u{2067}"), ("\u{2068}", "\\u{2068}"), ("\u{2069}", "\\u{2069}"),
        ]
        for (text, escaped) in controls { #expect(TerminalText.escaped("x" + text + "y") == "x" + escaped + "y") }
        // Their neighbours in the same UTF-8 block are text: U+2029, U+202F, U+2065, U+206A.
        for text in ["\u{2029}", "\u{202F}", "\u{2065}", "\u{206A}", "\u{2022}"] { #expect(TerminalText.escaped(text) == text) }
    }

    @Test func lineBreaksCanBeKeptForTextOfSeveralLines() {
        #expect(TerminalText.escaped("Usage:\n  x\u{1B}\n", keepingLineBreaks: true) == "Usage:\n  x\\x1B\n")
        #expect(TerminalText.escaped("a\nb", keepingLineBreaks: true) == "a\nb")
        #expect(TerminalText.escaped("a\\b\n\r", keepingLineBreaks: true) == "a\\\\b\n\\r")
    }

    @Test func escapingTwiceChangesNothing() {
        for text in ["a\u{1B}b\\c", "\u{202E}\n\u{85}", "plain"] {
            let once = TerminalText.escaped(text)
            #expect(TerminalText.escaped(once) == once)
        }
    }

    @Test func errorsAndFindingsPrintEscaped() {
        let error = BriefcaseError(.invalidData, "bad \u{202E}value", offset: 12, element: "T\u{1B}[2J", file: "in\nput.json")
        #expect(error.description == "in\\nput.json: element 'T\\x1B[2J': offset 12: bad \\u{202E}value")
        #expect(BriefcaseError(.io, "no such file", file: "a\\b.json").description == "a\\b.json: no such file")
        let finding = Finding(.input, "x\u{7F}", element: "E\u{85}")
        #expect(finding.description == "element 'E\\u{85}': x\\x7F")
        let warning = DecodingWarning(message: "odd\u{9B}2J", offset: 3, element: nil)
        #expect(warning.description == "offset 3: odd\\u{9B}2J")
    }
}

@Suite struct SystemPathTests {
    /// Bytes of a name that is not UTF-8 stand as U+10FE80…U+10FEFF and come back exactly.
    @Test func namesThatAreNotUTF8RoundTripExactly() {
        SystemPath.standForBytes()
        let cases: [([UInt8], String)] = [
            ([0x61, 0xFF, 0x2E, 0x6A], "a\u{10FEFF}.j"),
            ([0xC3, 0xA9, 0x80], "é\u{10FE80}"),                       // a lone continuation byte
            ([0xE8, 0xAF], "\u{10FEE8}\u{10FEAF}"),                    // a truncated sequence
            ([0xC0, 0x80], "\u{10FEC0}\u{10FE80}"),                    // overlong NUL
            ([0xED, 0xA0, 0x80], "\u{10FEED}\u{10FEA0}\u{10FE80}"),    // a surrogate
            ([0xF4, 0x90, 0x80, 0x80], "\u{10FEF4}\u{10FE90}\u{10FE80}\u{10FE80}"), // above U+10FFFF
        ]
        for (bytes, text) in cases {
            let decoded = bytes.withUnsafeBufferPointer { SystemPath.decode($0) }
            #expect(decoded.text == text)
            #expect(decoded.replaced)
            #expect(!decoded.holdsStandIns)
            #expect(systemPath(decoded.text).map { UInt8(bitPattern: $0) } == bytes + [0])
            #expect(bytes.withUnsafeBufferPointer { SystemPath.string($0) } == text)
        }
        #expect(TerminalText.escaped("a\u{10FEFF}.j") == "a\\xFF.j")
        #expect(TerminalText.escaped("\\\u{10FE80}") == "\\\\\\x80")
    }

    @Test func validNamesAreTheirUTF8() {
        let name = Array("課程 😀.json".utf8)
        let decoded = name.withUnsafeBufferPointer { SystemPath.decode($0) }
        #expect(decoded.text == "課程 😀.json" && !decoded.replaced && !decoded.holdsStandIns)
        #expect(systemPath("課程 😀.json").map { UInt8(bitPattern: $0) } == name + [0])
        // A valid name that already holds a stand-in is told, so that the tool can refuse it.
        let clash = Array("x\u{10FE90}".utf8)
        #expect(clash.withUnsafeBufferPointer { SystemPath.decode($0) }.holdsStandIns)
        let mixed: [UInt8] = Array("\u{10FE90}".utf8) + [0xFF]
        let decodedMixed = mixed.withUnsafeBufferPointer { SystemPath.decode($0) }
        #expect(decodedMixed.replaced && decodedMixed.holdsStandIns)
    }
}
