import Testing
@testable import BriefcaseKit

// Byte values below are independent facts (from real files and the published code page tables),
// not produced by the code under test.

private let gbkCourseName: [UInt8] = [0xBF, 0xCE, 0xB3, 0xCC, 0xC3, 0xFB, 0xB3, 0xC6] // 课程名称 in GBK
private let utf8CourseName: [UInt8] = [0xE8, 0xAF, 0xBE, 0xE7, 0xA8, 0x8B, 0xE5, 0x90, 0x8D, 0xE7, 0xA7, 0xB0]

@Suite struct CodePageConversionTests {
    @Test func gbkDecodesRealFileBytes() {
        #expect(CodePage.gbk.decode(ByteString(gbkCourseName)) == "课程名称")
        #expect(CodePage.gbk.decodeReversibly(ByteString(gbkCourseName)) == "课程名称")
        #expect(CodePage.gbk.encode("课程名称") == ByteString(gbkCourseName))
    }

    @Test func utf8IsNative() {
        #expect(Array("课程名称".utf8) == utf8CourseName)
        #expect(CodePage.utf8.decode(ByteString(utf8CourseName)) == "课程名称")
        #expect(CodePage.utf8.encode("课程名称") == ByteString(utf8CourseName))
        #expect(CodePage.utf8.decodeReversibly(ByteString(utf8CourseName)) == "课程名称")
        #expect(CodePage.utf8.isUTF8)
        #expect(CodePage.utf8.iconvName == nil)
    }

    @Test func utf8IsStrict() {
        #expect(CodePage.utf8.decode(ByteString([0xC0, 0x80])) == nil)        // overlong NUL
        #expect(CodePage.utf8.decode(ByteString([0xED, 0xA0, 0x80])) == nil)  // surrogate D800
        #expect(CodePage.utf8.decode(ByteString([0xF4, 0x90, 0x80, 0x80])) == nil) // above U+10FFFF
        #expect(CodePage.utf8.decode(ByteString([0xE8, 0xAF])) == nil)        // truncated
        #expect(CodePage.utf8.decode(ByteString(gbkCourseName)) == nil)
        #expect(CodePage.utf8.decodeForDisplay(ByteString([0x41, 0xFF, 0x42])) == "A\u{FFFD}B")
    }

    @Test func windows1252() {
        #expect(CodePage.windows1252.decode(ByteString([0xE9])) == "é")
        #expect(CodePage.windows1252.decode(ByteString([0x80])) == "€")
        #expect(CodePage.windows1252.decode(ByteString([0x81])) == nil) // undefined in glibc CP1252
        for undefined: UInt8 in [0x81, 0x8D, 0x8F, 0x90, 0x9D] {
            #expect(CodePage.windows1252.decode(ByteString([undefined])) == nil)
        }
        #expect(CodePage.windows1252.encode("€") == ByteString([0x80]))
        #expect(CodePage.windows1252.encode("café") == ByteString([0x63, 0x61, 0x66, 0xE9]))
        #expect(CodePage.windows1252.encode("课") == nil)
        #expect(CodePage.windows1252.decodeForDisplay(ByteString([0x41, 0x81, 0x42])) == "A\u{FFFD}B")
    }

    @Test func shiftJIS() throws {
        let sjis = try #require(CodePage(name: "shift_jis"))
        #expect(sjis.encode("日本") == ByteString([0x93, 0xFA, 0x96, 0x7B]))
        #expect(sjis.decode(ByteString([0x93, 0xFA, 0x96, 0x7B])) == "日本")
        // Windows code page 932: 0x5C is the backslash and 0x7E the tilde (not ¥ and ‾).
        #expect(sjis.decode(ByteString([0x5C, 0x7E])) == "\\~")
        #expect(sjis.encode("C:\\dir~1") == ByteString(utf8: "C:\\dir~1"))
        #expect(sjis.asciiIsIdentity)
        // glibc maps ¥ to 0x5C when encoding to CP932; that reads back as "\", so it is refused.
        #expect(sjis.encode("¥") == nil)
        // Half-width katakana are single bytes.
        #expect(sjis.decode(ByteString([0xB1])) == "ｱ")
    }

    @Test func glibcShiftJISIsNotASCIITransparent() throws {
        // glibc's own SHIFT_JIS (JIS X 0201 roman) decodes 0x5C as ¥ and 0x7E as ‾: the ASCII fast
        // path must be off for it. The check that decides this runs against iconv itself.
        let codec = try #require(IconvCodec(iconvName: "SHIFT_JIS", fastPathCandidate: true))
        #expect(!codec.asciiIsIdentity)
        let yen = [UInt8]([0x5C]).withUnsafeBufferPointer { codec.decoder.convert($0, mode: .strict) }
        #expect(yen.map { String(decoding: $0, as: UTF8.self) } == "¥")
    }

    @Test func decodeReversiblyRefusesDuplicateMappings() throws {
        let sjis = try #require(CodePage(name: "cp932"))
        // NEC-selected IBM extension ED 40 and IBM extension FA 5C are both 纊; encoding gives FA 5C.
        #expect(sjis.decode(ByteString([0xED, 0x40])) == "纊")
        #expect(sjis.decodeReversibly(ByteString([0xED, 0x40])) == nil)
        #expect(sjis.decodeReversibly(ByteString([0xFA, 0x5C])) == "纊")
        // NEC row 13 87 90 and JIS 81 E0 are both ≒.
        #expect(sjis.decodeReversibly(ByteString([0x87, 0x90])) == nil)
        #expect(sjis.decodeReversibly(ByteString([0x81, 0xE0])) == "≒")
        // Windows-1258: glibc composes a + combining grave (CC) into à, which encodes as E0.
        let vietnamese = try #require(CodePage(name: "windows-1258"))
        #expect(vietnamese.decode(ByteString([0x61, 0xCC])) == "à")
        #expect(vietnamese.decodeReversibly(ByteString([0x61, 0xCC])) == nil)
        #expect(vietnamese.decodeReversibly(ByteString([0xE0])) == "à")
    }

    @Test func incompleteAndInvalidSequences() {
        #expect(CodePage.gbk.decode(ByteString([0xBF])) == nil)           // lead byte at the end
        #expect(CodePage.gbk.decode(ByteString([0xFF])) == nil)           // never valid
        #expect(CodePage.gbk.decodeForDisplay(ByteString([0xBF])) == "\u{FFFD}")
        #expect(CodePage.gbk.decodeForDisplay(ByteString([0xBF, 0xCE, 0xBF])) == "课\u{FFFD}")
        #expect(CodePage.gbk.decodeForDisplay(ByteString([0x41, 0xFF, 0xBF, 0xCE, 0x42])) == "A\u{FFFD}课B")
    }

    @Test func emptyAndASCII() throws {
        for page in CodePage.detectionCandidates + [CodePage.utf8, try #require(CodePage(name: "iso-2022-jp"))] {
            #expect(page.decode(.empty) == "")
            #expect(page.decodeReversibly(.empty) == "")
            #expect(page.decodeForDisplay(.empty) == "")
            #expect(page.encode("") == .empty)
            #expect(page.decode(ByteString(utf8: "Name_1 (x)")) == "Name_1 (x)")
            #expect(page.encode("Name_1 (x)") == ByteString(utf8: "Name_1 (x)"))
        }
    }

    @Test func candidatesUseTheASCIIFastPath() {
        for page in CodePage.detectionCandidates {
            #expect(page.asciiIsIdentity, "\(page.name)")
        }
    }

    @Test func outputBufferGrows() throws {
        // ISO-2022-JP adds escape sequences, so the output outgrows the first buffer (E2BIG).
        let jis = try #require(CodePage(name: "ISO-2022-JP"))
        #expect(!jis.asciiIsIdentity)
        #expect(jis.encode("日本") == ByteString([0x1B, 0x24, 0x42, 0x46, 0x7C, 0x4B, 0x5C, 0x1B, 0x28, 0x42]))
        let mixed = String(repeating: "a日", count: 5_000)
        let encoded = try #require(jis.encode(mixed))
        #expect(encoded.count > mixed.utf8.count)
        #expect(jis.decode(encoded) == mixed)
        // Long windows-1252 input whose UTF-8 is three times longer.
        let euros = ByteString([UInt8](repeating: 0x80, count: 100_000))
        #expect(CodePage.windows1252.decode(euros) == String(repeating: "€", count: 100_000))
        // Validation (output thrown away) of a long string.
        let long = ByteString(Array([UInt8](repeating: 0, count: 10_000).enumerated().flatMap { _ in gbkCourseName }))
        #expect(CodePage.gbk.withDecodabilityTest { test in long.bytes.withUnsafeBufferPointer(test) })
        #expect(!CodePage.gbk.withDecodabilityTest { test in (long.array + [0xFF]).withUnsafeBufferPointer(test) })
    }

    @Test func neverCrashesOnArbitraryBytes() throws {
        var generator = SystemRandomNumberGenerator()
        let pages = CodePage.detectionCandidates + [CodePage.utf8, try #require(CodePage(name: "iso-2022-jp")),
                                                    try #require(CodePage(name: "gb18030")), try #require(CodePage(name: "us-ascii"))]
        for _ in 0..<300 {
            let bytes = ByteString((0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            for page in pages {
                let decoded = page.decode(bytes)
                let display = page.decodeForDisplay(bytes)
                if let decoded { #expect(display == decoded, "\(page.name) \(bytes.array)") }
                if let text = page.decodeReversibly(bytes) {
                    #expect(text == decoded)
                    #expect(page.encode(text) == bytes, "\(page.name) \(bytes.array)")
                }
            }
        }
    }

    @Test func concurrentUse() async {
        await withTaskGroup(of: Bool.self) { group in
            for i in 0..<64 {
                group.addTask {
                    for _ in 0..<200 {
                        let page = i % 2 == 0 ? CodePage.gbk : CodePage.detectionCandidates[2]
                        if i % 2 == 0 {
                            guard page.decode(ByteString(gbkCourseName)) == "课程名称", page.encode("课程名称") == ByteString(gbkCourseName) else { return false }
                        } else {
                            guard page.decode(ByteString([0x93, 0xFA, 0x96, 0x7B])) == "日本" else { return false }
                        }
                    }
                    return true
                }
            }
            for await ok in group { #expect(ok) }
        }
    }
}

@Suite struct CodePageNameTests {
    @Test func canonicalNames() {
        #expect(CodePage.utf8.name == "utf-8")
        #expect(CodePage.windows1252.name == "windows-1252")
        #expect(CodePage.gbk.name == "gbk")
        #expect(CodePage.gbk.description == "gbk")
        #expect(CodePage.detectionCandidates.map(\.name) == [
            "gbk", "big5", "shift_jis", "euc-kr", "windows-1251", "windows-1250", "windows-1253", "windows-1254",
            "windows-1255", "windows-1256", "windows-1257", "windows-1258", "windows-1252",
        ])
    }

    @Test(arguments: [
        ("UTF8", "utf-8"), ("utf-8", "utf-8"), ("cp65001", "utf-8"),
        ("CP936", "gbk"), ("ms936", "gbk"), ("GBK", "gbk"), ("936", "gbk"),
        ("GB2312", "gb2312"), ("euc-cn", "gb2312"),
        ("cp1252", "windows-1252"), ("Windows-1252", "windows-1252"), ("1252", "windows-1252"),
        ("latin1", "iso-8859-1"), ("ISO_8859-1", "iso-8859-1"), ("iso8859-15", "iso-8859-15"),
        ("sjis", "shift_jis"), ("Shift-JIS", "shift_jis"), ("cp932", "shift_jis"), ("MS932", "shift_jis"), ("windows-31j", "shift_jis"),
        ("cp950", "big5"), ("Big5", "big5"), ("cp949", "euc-kr"), ("EUC-KR", "euc-kr"),
        ("cp1251", "windows-1251"), ("WINDOWS-1250", "windows-1250"), ("cp1258", "windows-1258"),
        ("KOI8-R", "koi8-r"), (" gbk ", "gbk"),
    ])
    func aliasesResolve(alias: String, canonical: String) throws {
        let page = try #require(CodePage(name: alias))
        #expect(page.name == canonical)
    }

    @Test func gb2312IsNotGBK() throws {
        let gb2312 = try #require(CodePage(name: "gb2312"))
        #expect(gb2312 != CodePage.gbk)
        #expect(gb2312.decode(ByteString(gbkCourseName)) == "课程名称") // these four are in GB2312 too
        #expect(CodePage.gbk.decode(ByteString([0x81, 0x40])) == "丂")     // GBK extension
        #expect(gb2312.decode(ByteString([0x81, 0x40])) == nil)
    }

    @Test func equalityAndHashingUseTheCanonicalName() throws {
        #expect(try #require(CodePage(name: "cp936")) == CodePage.gbk)
        #expect(Set([CodePage.gbk, try #require(CodePage(name: "CP936")), CodePage.utf8]).count == 2)
    }

    @Test(arguments: ["no-such-code-page", "", "   ", "UTF-16", "UTF-16LE", "UCS-2", "UTF-8//TRANSLIT", "CP1252//IGNORE", "gbk/", "../etc"])
    func unknownOrUnsuitableNamesAreNil(name: String) {
        #expect(CodePage(name: name) == nil)
    }

    @Test func otherIconvNamesPassThrough() throws {
        let page = try #require(CodePage(name: "EUC-JISX0213"))
        #expect(page.name == "euc-jisx0213")
        #expect(!page.asciiIsIdentity) // only known stateless code pages take the fast path
        #expect(page.decode(ByteString(utf8: "abc")) == "abc")
    }
}

// MARK: - Detection

private func schemaField(_ name: String) -> [SchemaProperty] {
    [SchemaProperty("Name", name), SchemaProperty("DataType", "datString")]
}

private func table(name: ByteString = "Courses", schemaNames: [String]?, descriptors: [ByteString], rows: [Row] = []) -> Table {
    Table(name: name,
          schema: schemaNames.map { Schema(fields: $0.map(schemaField)) },
          fields: descriptors.map { FieldDescriptor(name: $0, type: .string, size: 100) },
          rows: rows)
}

@Suite struct CodePageDetectionTests {
    @Test func allUTF8() {
        let file = BriefcaseFile(
            properties: [BriefcaseProperty(name: "Comment", value: ByteString(utf8: "课程"))],
            stream: Bin2Stream(elements: [
                .table(table(schemaNames: ["ID", "课程名称"], descriptors: ["ID", ByteString(utf8CourseName)],
                             rows: [[.integer(1), .ansiString(ByteString(utf8: "数学"))]])),
            ]))
        let detection = CodePage.detect(in: file)
        #expect(detection.codePage == .utf8)
        #expect(detection.reason == "all 8-bit strings are valid UTF-8")
    }

    @Test func allASCII() {
        let stream = Bin2Stream(elements: [.table(table(schemaNames: nil, descriptors: ["ID"], rows: [[.ansiString("x")]]))])
        #expect(CodePage.detect(in: stream).codePage == .utf8)
    }

    @Test func gbkRevealedBySchemaNames() {
        let file = BriefcaseFile(stream: Bin2Stream(elements: [
            .table(table(schemaNames: ["ID", "课程名称"], descriptors: ["ID", ByteString(gbkCourseName)],
                         rows: [[.integer(1), .ansiString(ByteString([0xCA, 0xFD, 0xD1, 0xA7]))]])), // 数学 in GBK
        ]))
        let detection = CodePage.detect(in: file)
        #expect(detection.codePage == .gbk)
        #expect(detection.reason == "column names in the row descriptors match the schema's UTF-8 Name properties when decoded as gbk (1 non-ASCII name checked)")
    }

    @Test func schemaNamePropertyIsFoundCaseInsensitivelyAndByPosition() {
        let schema = Schema(fields: [
            [SchemaProperty("DataType", "datInteger"), SchemaProperty("NAME", "ID")],
            [SchemaProperty("DataType", "datString"), SchemaProperty("name", "课程名称")],
        ])
        let stream = Bin2Stream(elements: [
            .table(Table(name: "T", schema: schema, fields: [
                FieldDescriptor(name: "ID", type: .integer), FieldDescriptor(name: ByteString(gbkCourseName), type: .string, size: 50),
            ])),
        ])
        #expect(CodePage.detect(in: stream).codePage == .gbk)
    }

    @Test func shiftJISRevealed() {
        // 日本 in Shift_JIS is 93 FA 96 7B: valid GBK bytes, but they decode to other characters.
        let stream = Bin2Stream(elements: [.table(table(schemaNames: ["日本"], descriptors: [ByteString([0x93, 0xFA, 0x96, 0x7B])]))])
        #expect(CodePage.gbk.decode(ByteString([0x93, 0xFA, 0x96, 0x7B])) != nil)
        let detection = CodePage.detect(in: stream)
        #expect(detection.codePage.name == "shift_jis")
    }

    @Test func windows1251Revealed() {
        // "Имя" in windows-1251: C8 EC FF.
        let stream = Bin2Stream(elements: [.table(table(schemaNames: ["Имя"], descriptors: [ByteString([0xC8, 0xEC, 0xFF])]))])
        #expect(CodePage.detect(in: stream).codePage.name == "windows-1251")
    }

    @Test func nothingRevealedFallsBackToWindows1252() {
        // Non-UTF-8 bytes in a row value; column names are ASCII, so no pair reveals anything.
        let stream = Bin2Stream(elements: [
            .table(table(schemaNames: ["Name"], descriptors: ["Name"], rows: [[.ansiString(ByteString([0x43, 0x61, 0x66, 0xE9]))]])),
        ])
        let detection = CodePage.detect(in: stream)
        #expect(detection.codePage == .windows1252)
        #expect(detection.reason == "not UTF-8 and nothing in the file reveals the code page; assuming windows-1252")
    }

    @Test func noSchemaFallsBackToWindows1252() {
        let stream = Bin2Stream(elements: [.table(table(schemaNames: nil, descriptors: [ByteString(gbkCourseName)]))])
        #expect(CodePage.detect(in: stream).codePage == .windows1252)
    }

    @Test func candidateMustDecodeEveryOtherString() {
        // The pair says gbk, but a row value has 0xFF, which is invalid in GBK; no other candidate
        // turns the descriptor into 课程名称.
        let stream = Bin2Stream(elements: [
            .table(table(schemaNames: ["课程名称"], descriptors: [ByteString(gbkCourseName)], rows: [[.ansiString(ByteString([0xFF]))]])),
        ])
        let detection = CodePage.detect(in: stream)
        #expect(detection.codePage == .windows1252)
        #expect(detection.reason.hasPrefix("not UTF-8, and no candidate code page"))
    }

    @Test func everyPairMustAgree() {
        // One pair is GBK, the other claims a different name: no candidate agrees on both.
        let stream = Bin2Stream(elements: [
            .table(table(schemaNames: ["课程名称", "日本"], descriptors: [ByteString(gbkCourseName), ByteString(gbkCourseName)])),
        ])
        #expect(CodePage.detect(in: stream).codePage == .windows1252)
    }

    @Test func deltaStringsCount() {
        // Everything is UTF-8 except a delta change's old value and its message.
        func stream(message: ByteString, old: ByteString) -> Bin2Stream {
            Bin2Stream(elements: [
                .table(table(schemaNames: ["课程名称"], descriptors: [ByteString(gbkCourseName)])),
                .delta(Delta(name: "Courses", loggedFields: [LoggedField(name: ByteString(gbkCourseName), type: .string)],
                             keyFields: [ByteString(gbkCourseName)],
                             changes: [DeltaChange(type: .update, recordID: 1100, message: message,
                                                   oldValues: [.ansiString(old)], newValues: [nil])])),
            ])
        }
        // All 8-bit strings except the message are GBK; the message is valid GBK.
        #expect(CodePage.detect(in: stream(message: ByteString([0xB4, 0xED]), old: ByteString([0xCA, 0xFD]))).codePage == .gbk)
        // An old value invalid in GBK rules gbk out.
        #expect(CodePage.detect(in: stream(message: "", old: ByteString([0x80, 0xFF]))).codePage == .windows1252)
        // A delta alone with a non-UTF-8 message and no schema: nothing reveals the code page.
        let deltaOnly = Bin2Stream(elements: [
            .delta(Delta(name: "D", loggedFields: [LoggedField(name: "ID", type: .integer)],
                         changes: [DeltaChange(type: .insert, recordID: 1, status: .failed, message: ByteString([0xE9]),
                                               oldValues: [nil], newValues: [.integer(1)])])),
        ])
        #expect(CodePage.detect(in: deltaOnly).codePage == .windows1252)
    }

    @Test func propertiesCount() {
        let stream = Bin2Stream(elements: [.table(table(schemaNames: ["ID"], descriptors: ["ID"]))])
        #expect(CodePage.detect(in: stream, properties: [BriefcaseProperty(name: "Note", value: ByteString([0xE9]))]).codePage == .windows1252)
        #expect(CodePage.detect(in: stream, properties: [BriefcaseProperty(name: "Note", value: ByteString(utf8: "é"))]).codePage == .utf8)
    }

    @Test func walkVisitsEveryEightBitString() {
        var schema = Schema(fields: [[SchemaProperty("Name", "A")]], parameters: [[SchemaProperty("ParamName", "p")]])
        schema.fieldPropertyCount = 1
        let stream = Bin2Stream(elements: [
            .table(Table(name: "t", schema: schema, fields: [FieldDescriptor(name: "f", type: .string)],
                         rows: [[.ansiString("v")], [nil], [.wideString(WideText.encode("w"))]])),
            .delta(Delta(name: "d", loggedFields: [LoggedField(name: "l", type: .string)], keyFields: ["k"],
                         changes: [DeltaChange(type: .update, recordID: 1, message: "m",
                                               oldValues: [.ansiString("o")], newValues: [.ansiString("n")])])),
        ])
        var seen: [String] = []
        let completed = CodePage.forEachEightBitString(in: stream, properties: [BriefcaseProperty(name: "pn", value: "pv")]) {
            seen.append(String(validating: $0, as: UTF8.self) ?? "?")
            return true
        }
        #expect(completed)
        #expect(seen == ["pn", "pv", "t", "f", "Name", "ParamName", "v", "d", "l", "k", "m", "o", "n"])
        var count = 0
        #expect(!CodePage.forEachEightBitString(in: stream, properties: []) { _ in count += 1; return count < 3 })
        #expect(count == 3)
    }
}

@Suite struct CodePageRealSampleTests {
    /// The real samples (Data Abstract for .NET on Chinese Windows) store GBK names; the schema's
    /// Name properties are their UTF-8 twins. Skipped when `../shared` is absent.
    @Test(.enabled(if: TestPaths.samplesPresent, "../shared/briefcase-samples is absent"), arguments: TestPaths.sampleNames)
    func realSamplesAreGBK(name: String) throws {
        let file = try BriefcaseFileCodec.decode(try #require(TestPaths.sample(name)))
        let detection = CodePage.detect(in: file)
        #expect(detection.codePage == .gbk, "\(name): \(detection.reason)")
        let courses = try #require(file.stream.table(named: "CourseInfo"))
        #expect(courses.fields.contains { CodePage.gbk.decodeReversibly($0.name) == "课程名称" })
    }
}

/// When nothing in the file reveals the code page, the guess comes with a hint people can act on.
@Test func detectionHintsAtAMultiByteCodePage() {
    // GBK "课程名称" as a property value, no tables to reveal it: not UTF-8, decodable as GBK.
    let file = BriefcaseFile(properties: [BriefcaseProperty(name: "CourseName", value: ByteString([0xbf, 0xce, 0xb3, 0xcc, 0xc3, 0xfb, 0xb3, 0xc6]))])
    let detection = CodePage.detect(in: file)
    #expect(detection.codePage == .windows1252)
    #expect(detection.hint == "the 8-bit strings look like GBK; try --encoding gbk")
    // Plain UTF-8 needs no hint.
    #expect(CodePage.detect(in: BriefcaseFile(properties: [BriefcaseProperty(name: "a", value: "é")])).hint == nil)
}
