import Foundation
import Testing
import BriefcaseTestSupport
@testable import BriefcaseKit

/// `Properties.plist` comes from the folder, so it is untrusted input. Foundation's readers
/// crashed on some of it, so the package reads plists itself (`XMLPlistReader`, `BinaryPlist`)
/// and refuses what they trapped on (found by the `plist` fuzz target;
/// Spec/robustness.md, Fixtures/regressions/plist/).
@Suite struct PropertiesPlistRobustnessTests {
    /// Each of these killed the process inside Foundation's `XMLParser` (Swift 6.3.1).
    static let trapping: [(String, [UInt8])] = [
        ("element name not UTF-8", Array("<plist><dict><key>a</key><".utf8) + [0xFF, 0xFF] + Array("/></dict></plist>".utf8)),
        ("processing instruction without data", Array(#"<?xml version="1.0"?><?foo?><plist><dict/></plist>"#.utf8)),
        ("notation without public id", Array(#"<?xml version="1.0"?><!DOCTYPE plist [<!NOTATION n SYSTEM "x">]><plist><dict/></plist>"#.utf8)),
        ("attribute declaration without default", Array(#"<!DOCTYPE plist [<!ATTLIST plist a CDATA #IMPLIED>]><plist><dict/></plist>"#.utf8)),
        ("unparsed entity", Array(#"<!DOCTYPE plist [<!NOTATION n SYSTEM "y"><!ENTITY e SYSTEM "x" NDATA n>]><plist><dict/></plist>"#.utf8)),
    ]

    /// Expects `bytes` refused as damaged input (`invalidData`), its message starting `saying`:
    /// the XML reader's words and the byte it stopped at, by default.
    static func expectRefused(_ bytes: [UInt8], _ what: String, saying: String = "not a property list of strings: ",
                              sourceLocation: SourceLocation = #_sourceLocation) {
        let error = #expect(throws: BriefcaseError.self, "\(what)", sourceLocation: sourceLocation) { try PropertiesPlist.decode(bytes) }
        if let error {
            #expect(error.kind == .invalidData && error.message.hasPrefix(saying), "\(what): \(error)", sourceLocation: sourceLocation)
            if saying == "not a property list of strings: " {
                #expect(error.message.contains("(at byte "), "\(what): \(error)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test(arguments: trapping.indices)
    func whatWouldTrapIsRefused(index: Int) {
        let (what, bytes) = Self.trapping[index]
        Self.expectRefused(bytes, what)
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
        // Not traps, but read as no properties by XMLParser, which did not parse under 4 bytes.
        "", "abc",
        // Not a trap, but a key without a value was silently dropped.
        #"<plist><dict><key>a</key><string>x</string><key>b</key></dict></plist>"#,
    ])
    func unsupportedXMLIsRefused(text: String) {
        Self.expectRefused(Array(text.utf8), text)
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

    /// `XMLPlistReader` reads XML as XML does: empty elements, attributes, line ends, character
    /// references, duplicate keys in order; and refuses what is not a plist of strings.
    @Test func xmlReaderReadsTheSubset() throws {
        let text = "<plist version=\"1.0\">\r\n<dict>\n<key/><string/>\n<key a='1'>k</key ><string>a\r\nb\rc&#13;&#x41;&#66;&quot;&apos;&lt;&gt;</string>"
            + "<key>d</key><data/><key>k</key><data>\n AAEC\n /w==\n</data></dict></plist>\n"
        let entries = try PropertiesPlist.decode(Array(text.utf8))
        #expect(entries.map(\.key) == ["", "k", "d", "k"])
        #expect(entries.map(\.value) == [.string(""), .string("a\nb\nc\rAB\"'<>"), .data([]), .data([0, 1, 2, 255])])
        #expect(try PropertiesPlist.decode(Array("<plist/>".utf8)).isEmpty)
        #expect(try PropertiesPlist.decode(Array("<plist><dict/></plist>".utf8)).isEmpty)
        for bad in [
            "<plist><dict><key>a</key><dict/></dict></plist>", "<plist><array/></plist>",
            "<plist><dict>text<key>a</key><string>b</string></dict></plist>", "<plist><dict/></plist>trailing",
            "<plist><dict><key>a</key><string>b</strin></dict></plist>", "<plist><dict><key>a</key><string>&bogus;</string></dict></plist>",
            "<plist><dict><key>a</key><string>&#0;</string></dict></plist>", "<plist><dict><key>a</key><string>&#+65;</string></dict></plist>",
            "<plist><dict><key>a</key><string>\u{1}</string></dict></plist>", "<plist><dict><key>a</key><data>A</data></dict></plist>",
            "<plist><dict/><dict/></plist>", "<plist x><dict/></plist>", "<plists/>",
        ] {
            Self.expectRefused(Array(bad.utf8), bad)
        }
    }

    /// Every truncation of a plist as written fails (but the one of its final line end); no byte
    /// overwrite traps.
    @Test func damagedXMLPlists() {
        let valid = PropertiesPlist.encode([("Name", .string("Zoë & <co>")), ("Blob", .data([1, 2, 3]))])
        for length in 0 ..< valid.count - 1 {
            Self.expectRefused(Array(valid[..<length]), "length \(length)")
        }
        for offset in valid.indices {
            for value: UInt8 in [0x00, 0x22, 0x26, 0x2F, 0x3C, 0x3E, 0xFF] {
                var damaged = valid
                damaged[offset] = value
                _ = try? PropertiesPlist.decode(damaged)
            }
        }
    }

    /// Binary plists are read by `BinaryPlist`, not `PropertyListSerialization` (which crashed on
    /// `Fixtures/regressions/plist/crash-binary-set-bridging.plist`): long counts, UTF-16 strings, data.
    @Test func binaryPlistsRead() throws {
        // Python's plistlib: {"CourseName": "数据库原理", "Blob": bytes 0…19, "A-rather-long-key-name": "N/A", "": ""}
        let bytes = hexBytes("""
            62706c6973743030d40102030401050607505f1016412d7261746865722d6c6f6e672d6b65792d6e616d6554426c6f62
            5a436f757273654e616d65534e2f414f1014000102030405060708090a0b0c0d0e0f10111213656570636e5e93539f74
            060811122b303b3f560000000000000101000000000000000800000000000000000000000000000061
            """)
        let entries = try PropertiesPlist.decode(bytes)
        #expect(entries.map(\.key) == ["", "A-rather-long-key-name", "Blob", "CourseName"])
        #expect(entries.map(\.value) == [.string(""), .string("N/A"), .data((0 ..< 20).map(UInt8.init)), .string("数据库原理")])
        // What Foundation writes reads the same.
        let written = try PropertyListSerialization.data(fromPropertyList: ["b": Data([1, 2]), "a": "Zoë"], format: .binary, options: 0)
        #expect(try PropertiesPlist.decode([UInt8](written)).map(\.value) == [.string("Zoë"), .data([1, 2])])
    }

    /// Damaged binary plists fail with `invalidData`: every byte of a valid one overwritten in turn,
    /// and every truncation; other types are refused.
    @Test func damagedBinaryPlistsAreRefused() throws {
        let valid = [UInt8](try PropertyListSerialization.data(fromPropertyList: ["Version": "7", "Owner": "Zoë"], format: .binary, options: 0))
        for length in 0 ..< valid.count {
            // (Cut before the 6-byte "bplist" magic, it is read as XML.)
            Self.expectRefused(Array(valid[..<length]), "length \(length)",
                               saying: length < 6 ? "not a property list of strings: " : "not a valid binary property list: ")
        }
        for offset in valid.indices {
            for value: UInt8 in [0x00, 0x0F, 0x7F, 0xFF] {
                var damaged = valid
                damaged[offset] = value
                do { _ = try PropertiesPlist.decode(damaged) } catch { #expect(error.kind == .invalidData) }
            }
        }
        let other = [UInt8](try PropertyListSerialization.data(fromPropertyList: ["n": 1], format: .binary, options: 0))
        Self.expectRefused(other, "a number", saying: "property 'n' is neither a string nor data")
        let array = [UInt8](try PropertyListSerialization.data(fromPropertyList: ["a"], format: .binary, options: 0))
        Self.expectRefused(array, "an array", saying: "the property list is not a dictionary")
    }

    /// Finding the end of each `<!DOCTYPE` does not rescan the rest of the input for every one.
    @Test func manyUnclosedDeclarationsAreQuick() {
        let bytes = Array(String(repeating: "<!DOCTYPE ", count: 100_000).utf8)
        let clock = ContinuousClock()
        let start = clock.now
        Self.expectRefused(bytes, "100 000 unclosed declarations")
        #expect(clock.now - start < .seconds(2))
    }
}
