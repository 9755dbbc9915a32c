import Testing
@testable import BriefcaseKit

/// `Properties.plist` comes from the folder, so it is untrusted input: what FoundationXML's
/// `XMLParser` would trap on is refused before it gets there (found by the `plist` fuzz target;
/// Spec/robustness.md, Fuzz/corpus/plist/).
@Suite struct PropertiesPlistRobustnessTests {
    /// Each of these killed the process inside `XMLParser` (Swift 6.3.1).
    static let trapping: [(String, [UInt8])] = [
        ("element name not UTF-8", Array("<plist><dict><key>a</key><".utf8) + [0xFF, 0xFF] + Array("/></dict></plist>".utf8)),
        ("processing instruction without data", Array(#"<?xml version="1.0"?><?foo?><plist><dict/></plist>"#.utf8)),
        ("notation without public id", Array(#"<?xml version="1.0"?><!DOCTYPE plist [<!NOTATION n SYSTEM "x">]><plist><dict/></plist>"#.utf8)),
        ("attribute declaration without default", Array(#"<!DOCTYPE plist [<!ATTLIST plist a CDATA #IMPLIED>]><plist><dict/></plist>"#.utf8)),
        ("unparsed entity", Array(#"<!DOCTYPE plist [<!NOTATION n SYSTEM "y"><!ENTITY e SYSTEM "x" NDATA n>]><plist><dict/></plist>"#.utf8)),
    ]

    @Test(arguments: trapping.indices)
    func whatWouldTrapIsRefused(index: Int) {
        let (what, bytes) = Self.trapping[index]
        #expect(throws: BriefcaseError.self, "\(what)") { try PropertiesPlist.decode(bytes) }
    }

    /// Also refused: other encodings (the check reads UTF-8), and any other processing
    /// instruction or DTD declaration.
    @Test(arguments: [
        #"<?xml version='1.0' encoding='UTF-7'?><plist><dict/></plist>"#,
        #"<?xml version="1.0" encoding="ISO-8859-1"?><plist><dict/></plist>"#,
        #"<?xml-stylesheet href="x"?><plist><dict/></plist>"#,
        #"<plist><dict><?pi data?></dict></plist>"#,
        #"<!DOCTYPE plist [<!ENTITY e "hello">]><plist><dict><key>k</key><string>&e;</string></dict></plist>"#,
        #"<!DOCTYPE plist <!DOCTYPE plist>><plist><dict/></plist>"#,
        #"<!ELEMENT plist ANY><plist><dict/></plist>"#,
        #"<!DOCTYPE plist"#,
        // Not a trap, but a key without a value was silently dropped.
        #"<plist><dict><key>a</key><string>x</string><key>b</key></dict></plist>"#,
    ])
    func unsupportedXMLIsRefused(text: String) {
        #expect(throws: BriefcaseError.self) { try PropertiesPlist.decode(Array(text.utf8)) }
    }

    /// What writers produce still reads: declaration, Apple DOCTYPE, a byte-order mark,
    /// comments, CDATA, entities and character references.
    @Test func plistsAsWrittenStillRead() throws {
        let written = PropertiesPlist.encode([("a&b", .string("<x>\r\n")), ("d", .data([0, 255]))])
        #expect(try PropertiesPlist.decode(written).map(\.key) == ["a&b", "d"])
        let text = "\u{FEFF}" + #"""
            <?xml version="1.0" encoding="utf-8" standalone="yes"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict><!-- a comment -->
            <key>k</key><string><![CDATA[1 < 2]]> &amp; &#x1F600;</string>
            </dict></plist>
            """#
        let entries = try PropertiesPlist.decode(Array(text.utf8))
        #expect(entries.count == 1 && entries[0].key == "k" && entries[0].value == .string("1 < 2 & 😀"))
    }

    /// Finding the end of each `<!DOCTYPE` does not rescan the rest of the input for every one.
    @Test func manyUnclosedDeclarationsAreQuick() {
        let bytes = Array(String(repeating: "<!DOCTYPE ", count: 100_000).utf8)
        let clock = ContinuousClock()
        let start = clock.now
        #expect(throws: BriefcaseError.self) { try PropertiesPlist.decode(bytes) }
        #expect(clock.now - start < .seconds(2))
    }
}
