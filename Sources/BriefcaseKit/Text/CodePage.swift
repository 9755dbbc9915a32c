#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import JSONCore
import Synchronization

/// The code page of 8-bit strings ("AnsiString"): the bytes a writer stored, in its code page.
///
/// UTF-8 is handled natively (strict validation, no iconv); every other code page goes through the
/// platform's iconv. Names are canonical lower-case names (`"gbk"`, `"windows-1252"`,
/// `"shift_jis"`); `init(name:)` also accepts the usual aliases.
///
/// Some canonical names deliberately map to the Windows variant of the code page, because that is
/// what Windows writers produce: `shift_jis` is Windows code page 932 (glibc `CP932`, where 0x5C is
/// `\` and 0x7E is `~`; glibc's own `SHIFT_JIS` maps them to `¥` and `‾`), `euc-kr` is code page
/// 949 (glibc `UHC`, a superset of EUC-KR), `gbk` is code page 936, `big5` is code page 950.
public struct CodePage: Hashable, Sendable, CustomStringConvertible {
    /// The canonical lower-case name.
    public let name: String
    /// The iconv name; nil for UTF-8 (handled natively).
    let iconvName: String?
    /// The iconv converters; nil for UTF-8, or when iconv cannot open `iconvName` (then every
    /// conversion fails, and `decodeForDisplay` shows non-ASCII bytes as U+FFFD).
    let codec: IconvCodec?

    /// UTF-8, handled without iconv.
    public static let utf8 = CodePage(known: "utf-8")
    /// Windows-1252 (Western European), the fallback of detection.
    public static let windows1252 = CodePage(known: "windows-1252")
    /// GBK (Simplified Chinese).
    public static let gbk = CodePage(known: "gbk")

    /// The code page named `name` (case-insensitive; `-`, `_`, `.`, `:` and spaces are ignored when
    /// matching known names and aliases; a bare number such as `936` means `cp936`). Names this type
    /// does not know are passed to iconv as given and keep their lower-cased spelling as canonical
    /// name. Nil when iconv cannot open the code page in both directions, for an empty name, for
    /// names with iconv suffixes (`//TRANSLIT`, `//IGNORE`), and for 16/32-bit encodings (UTF-16,
    /// UCS-2…), which are not 8-bit code pages.
    public init?(name: String) {
        let trimmed = name.trimmingASCIIWhitespace()
        let key = CodePageTable.key(trimmed)
        if let known = CodePageTable.byKey[key] {
            guard let iconvName = known.iconvName else {
                self.init(name: known.name, iconvName: nil, codec: nil)
                return
            }
            guard let codec = IconvCodec.shared(iconvName: iconvName, fastPathCandidate: true) else { return nil }
            self.init(name: known.name, iconvName: iconvName, codec: codec)
            return
        }
        guard !key.isEmpty, trimmed.utf8.allSatisfy(CodePageTable.isNameByte),
              !CodePageTable.rejectedPrefixes.contains(where: { key.hasPrefix($0) }),
              !CodePageTable.rejectedKeys.contains(key),
              let codec = IconvCodec.shared(iconvName: trimmed, fastPathCandidate: false)
        else { return nil }
        self.init(name: trimmed.asciiLowercased(), iconvName: trimmed, codec: codec)
    }

    private init(name: String, iconvName: String?, codec: IconvCodec?) {
        self.name = name
        self.iconvName = iconvName
        self.codec = codec
    }

    /// A code page from the table, built even when iconv cannot open it (static constants).
    init(known canonical: String) {
        let known = CodePageTable.byKey[CodePageTable.key(canonical)]!
        self.init(name: known.name, iconvName: known.iconvName,
                  codec: known.iconvName.flatMap { IconvCodec.shared(iconvName: $0, fastPathCandidate: true) })
    }

    /// The canonical name.
    public var description: String { name }

    /// Code pages are equal when their canonical names are.
    public static func == (a: CodePage, b: CodePage) -> Bool { a.name == b.name }
    /// Hashes the canonical name.
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// True for UTF-8.
    public var isUTF8: Bool { iconvName == nil }

    /// True when all-ASCII bytes decode to the same characters and ASCII text encodes to the same
    /// bytes, so conversion can skip iconv. Checked against iconv when the code page is created.
    package var asciiIsIdentity: Bool { codec?.asciiIsIdentity ?? (iconvName == nil) }

    // MARK: - Conversion

    /// The text of `bytes`, or nil when they are not valid in this code page.
    public func decode(_ bytes: ByteString) -> String? {
        bytes.bytes.withUnsafeBufferPointer { buffer in
            guard let codec else {
                guard iconvName == nil, UTF8Validation.isValid(buffer) else { return nil }
                return String(decoding: buffer, as: UTF8.self)
            }
            if codec.asciiIsIdentity && ASCII.isASCII(buffer) { return String(decoding: buffer, as: UTF8.self) }
            guard let utf8 = codec.decoder.convert(buffer, mode: .strict) else { return nil }
            return String(decoding: utf8, as: UTF8.self)
        }
    }

    /// The bytes of `text` in this code page, or nil when some character has no representation.
    ///
    /// Representable means that the bytes decode back to `text` (up to canonical equivalence):
    /// iconv's best-fit substitutions are refused (glibc's CP932 turns `¥` into 0x5C, which reads
    /// back as `\`).
    public func encode(_ text: String) -> ByteString? {
        if iconvName == nil { return ByteString(utf8: text) }
        var text = text
        let isASCII = text.withUTF8 { ASCII.isASCII($0) }
        guard let encoded = rawEncode(text) else { return nil }
        if isASCII && asciiIsIdentity { return encoded }
        guard decode(encoded) == text else { return nil }
        return encoded
    }

    /// `encode(_:)` of well-formed UTF-8 (a JSON reader's checked text): UTF-8 stays as it is.
    package func encode(utf8 text: UnsafeBufferPointer<UInt8>) -> ByteString? {
        iconvName == nil ? ByteString(text) : encode(String(decoding: text, as: UTF8.self))
    }

    /// iconv's encoding of `text`, without checking that it decodes back to `text`.
    private func rawEncode(_ text: String) -> ByteString? {
        guard let codec else { return nil }
        var text = text
        return text.withUTF8 { buffer -> ByteString? in
            if codec.asciiIsIdentity && ASCII.isASCII(buffer) { return ByteString(buffer) }
            return codec.encoder.convert(buffer, mode: .strict).map { ByteString($0) }
        }
    }

    /// The text of `bytes`, only when encoding it gives back exactly `bytes` (so writing the text
    /// back is lossless); nil otherwise. E.g. in `shift_jis`, `ED 40` decodes to 纊, which encodes
    /// to `FA 5C`: not reversible.
    public func decodeReversibly(_ bytes: ByteString) -> String? {
        guard let text = decode(bytes) else { return nil }
        if iconvName == nil { return text } // strict UTF-8 is one-to-one
        if asciiIsIdentity && bytes.isASCII { return text }
        guard let again = rawEncode(text), again.bytes.elementsEqual(bytes.bytes) else { return nil }
        return text
    }

    /// The text of `bytes` for display: decoded, with U+FFFD in place of bytes that cannot be
    /// decoded (with iconv: one per invalid byte, one for an incomplete sequence at the end; UTF-8
    /// follows Swift's repair, one per maximal invalid subpart). Never fails.
    public func decodeForDisplay(_ bytes: ByteString) -> String {
        bytes.bytes.withUnsafeBufferPointer { buffer in
            if iconvName == nil { return String(decoding: buffer, as: UTF8.self) }
            if let codec {
                if codec.asciiIsIdentity && ASCII.isASCII(buffer) { return String(decoding: buffer, as: UTF8.self) }
                if let utf8 = codec.decoder.convert(buffer, mode: .lossy) { return String(decoding: utf8, as: UTF8.self) }
            }
            // No converter: ASCII as is, anything else U+FFFD.
            return String(String.UnicodeScalarView(buffer.map { $0 < 0x80 ? Unicode.Scalar($0) : "\u{FFFD}" }))
        }
    }

    /// Calls `walk` with a test that tells whether a string decodes in this code page (output is
    /// not kept; one iconv handle serves the whole walk). Returns what `walk` returns, false
    /// when no converter is available.
    func withDecodabilityTest(_ walk: ((UnsafeBufferPointer<UInt8>) -> Bool) -> Bool) -> Bool {
        guard let codec else {
            guard iconvName == nil else { return false }
            return walk { UTF8Validation.isValid($0) }
        }
        let fastPath = codec.asciiIsIdentity
        return codec.decoder.withHandle { handle in
            var scratch = [UInt8](repeating: 0, count: 1024)
            return walk { buffer in
                if fastPath && ASCII.isASCII(buffer) { return true }
                handle.reset()
                return handle.convert(buffer, mode: .validate, scratch: &scratch) != nil
            }
        } ?? false
    }
}

// MARK: - Names

/// A known code page: canonical name, iconv name (nil = UTF-8) and aliases.
struct KnownCodePage: Sendable {
    let name: String
    let iconvName: String?
    let aliases: [String]
}

enum CodePageTable {
    static let all: [KnownCodePage] = {
        var pages: [KnownCodePage] = [
            KnownCodePage(name: "utf-8", iconvName: nil, aliases: ["utf8", "cp65001", "unicode-1-1-utf-8", "x-unicode20utf8"]),
            KnownCodePage(name: "us-ascii", iconvName: "ASCII", aliases: ["ascii", "ansi_x3.4-1968", "iso646-us", "cp367", "ibm367", "csascii", "cp20127"]),
            KnownCodePage(name: "gbk", iconvName: "GBK", aliases: ["cp936", "ms936", "windows-936", "x-gbk"]),
            KnownCodePage(name: "gb2312", iconvName: "EUC-CN", aliases: ["euc-cn", "x-euc-cn", "gb_2312-80", "csgb2312", "cp51936"]),
            KnownCodePage(name: "gb18030", iconvName: "GB18030", aliases: ["cp54936", "windows-54936"]),
            KnownCodePage(name: "big5", iconvName: "BIG5", aliases: ["cp950", "ms950", "windows-950", "big-5", "csbig5", "x-x-big5"]),
            KnownCodePage(name: "big5-hkscs", iconvName: "BIG5-HKSCS", aliases: []),
            KnownCodePage(name: "shift_jis", iconvName: "CP932", aliases: ["sjis", "cp932", "ms932", "windows-932", "windows-31j", "x-sjis", "ms_kanji", "csshiftjis", "x-ms-cp932", "csWindows31J"]),
            KnownCodePage(name: "euc-jp", iconvName: "EUC-JP", aliases: ["x-euc-jp", "cseucpkdfmtjapanese"]),
            KnownCodePage(name: "euc-kr", iconvName: "UHC", aliases: ["cp949", "ms949", "windows-949", "uhc", "ks_c_5601-1987", "ks_c_5601", "ksc5601", "korean", "cseuckr", "csksc56011987", "x-windows-949"]),
            KnownCodePage(name: "windows-874", iconvName: "WINDOWS-874", aliases: ["cp874", "ms874", "x-cp874"]),
            KnownCodePage(name: "koi8-r", iconvName: "KOI8-R", aliases: ["koi8", "cskoi8r", "cp20866"]),
            KnownCodePage(name: "koi8-u", iconvName: "KOI8-U", aliases: ["cp21866"]),
            KnownCodePage(name: "ibm437", iconvName: "IBM437", aliases: ["cp437", "cspc8codepage437"]),
            KnownCodePage(name: "ibm850", iconvName: "IBM850", aliases: ["cp850", "cspc850multilingual"]),
            KnownCodePage(name: "ibm866", iconvName: "IBM866", aliases: ["cp866", "csibm866"]),
            KnownCodePage(name: "macintosh", iconvName: "MACINTOSH", aliases: ["mac", "macroman", "x-mac-roman", "csmacintosh", "cp10000"]),
        ]
        for n in 1250...1258 {
            pages.append(KnownCodePage(name: "windows-\(n)", iconvName: "CP\(n)", aliases: ["cp\(n)", "win\(n)", "x-cp\(n)", "ms-\(n)"]))
        }
        let latin: [Int: [String]] = [
            1: ["latin1", "l1", "cp819", "ibm819", "cp28591"], 2: ["latin2", "l2", "cp28592"], 3: ["latin3", "l3", "cp28593"],
            4: ["latin4", "l4", "cp28594"], 5: ["cyrillic", "cp28595"], 6: ["arabic", "cp28596"], 7: ["greek", "greek8", "cp28597"],
            8: ["hebrew", "cp28598"], 9: ["latin5", "l5", "cp28599"], 10: ["latin6", "l6"], 11: ["thai"], 13: ["latin7", "l7", "cp28603"],
            14: ["latin8", "l8"], 15: ["latin9", "l9", "latin-9", "cp28605"], 16: ["latin10", "l10"],
        ]
        for (n, aliases) in latin.sorted(by: { $0.key < $1.key }) {
            pages.append(KnownCodePage(name: "iso-8859-\(n)", iconvName: "ISO-8859-\(n)", aliases: aliases + ["iso8859-\(n)", "iso_8859-\(n)"]))
        }
        return pages
    }()

    static let byKey: [String: KnownCodePage] = {
        var table: [String: KnownCodePage] = [:]
        for page in all {
            for alias in [page.name] + page.aliases { table[key(alias)] = page }
        }
        return table
    }()

    /// Lower-cased, without `-`, `_`, `.`, `:`, spaces; a bare number `936` becomes `cp936`.
    static func key(_ name: String) -> String {
        let kept = name.utf8.filter { !(0x2D == $0 || 0x5F == $0 || 0x2E == $0 || 0x3A == $0 || 0x20 == $0) }.map(asciiLower)
        let key = String(decoding: kept, as: UTF8.self)
        if !kept.isEmpty && kept.allSatisfy({ (0x30...0x39).contains($0) }) { return "cp" + key }
        return key
    }

    /// Bytes allowed in a name passed to iconv as given (no `/`: iconv suffixes change semantics).
    static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x5F, 0x2E, 0x3A: return true
        default: return false
        }
    }

    /// Not 8-bit code pages (keys of wide encodings) or not meaningful as a file's code page.
    static let rejectedPrefixes = ["utf16", "utf32", "ucs2", "ucs4", "unicode", "utf7"]
    static let rejectedKeys: Set<String> = ["wchart", "internal", "char"]
}

extension String {
    func trimmingASCIIWhitespace() -> String {
        let bytes = Array(utf8)
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || (0x09...0x0D).contains(b) }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }

    func asciiLowercased() -> String { String(decoding: utf8.map(asciiLower), as: UTF8.self) }
}

// MARK: - ASCII

enum ASCII {
    /// True when every byte is below 0x80 (eight bytes at a time).
    static func isASCII(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = buffer.baseAddress else { return true }
        let count = buffer.count
        var i = 0
        let raw = UnsafeRawPointer(base)
        while i + 8 <= count {
            if raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < count {
            if base[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }
}
