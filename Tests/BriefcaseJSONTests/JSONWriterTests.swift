import JSONCore
import Foundation
import BriefcaseTestSupport
import Testing
@testable import BriefcaseJSON

/// Runs `body` against a writer into an ArraySink and returns the text written.
private func written(_ body: (inout JSONWriter<ArraySink>) -> Void) throws -> String {
    var writer = JSONWriter(sink: ArraySink())
    body(&writer)
    try writer.flush()
    return String(decoding: writer.sink.bytes, as: UTF8.self)
}

/// Records every chunk handed to it.
private struct ChunkSink: ByteSink {
    var chunks: [[UInt8]] = []
    mutating func write(_ bytes: UnsafeRawBufferPointer) { chunks.append(Array(bytes)) }
}

private struct SinkFailure: Error {}

private struct FailingSink: ByteSink {
    var failuresLeft: Int
    var bytes: [UInt8] = []
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
        if failuresLeft > 0 {
            failuresLeft -= 1
            throw SinkFailure()
        }
        self.bytes.append(contentsOf: bytes)
    }
}


@Suite("JSONWriter")
struct JSONWriterTests {
    // MARK: strings

    /// Integer text at every length: each power of ten, one below and one above it, 0 and the
    /// largest, against the standard library's spelling.
    @Test func integerDigitsAtEveryLength() {
        var values: [UInt64] = [0, 1, 9, UInt64.max, UInt64.max - 1]
        var power: UInt64 = 1
        for _ in 0 ..< 19 {
            power *= 10
            values += [power - 1, power, power + 1]
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            for value in values {
                let count = JSONEmit.writeDigits(value, to: digits.baseAddress!)
                #expect(String(decoding: UnsafeBufferPointer(rebasing: digits[..<count]), as: UTF8.self) == String(value))
            }
        }
    }

    @Test func escapesQuotesBackslashAndNamedControls() throws {
        #expect(try written { $0.writeString("a\"b\\c") } == #""a\"b\\c""#)
        #expect(try written { $0.writeString("\n\r\t\u{8}\u{C}") } == #""\n\r\t\b\f""#)
        #expect(try written { $0.writeString("") } == #""""#)
        #expect(try written { $0.writeString("/") } == #""/""#)  // solidus is not escaped
        #expect(try written { $0.writeString("\u{7F}") } == #""\u007f""#)  // DEL is escaped (Spec/robustness.md §9.2)
        #expect(try written { $0.writeString("é€😀") } == "\"é€😀\"")  // raw UTF-8
    }

    @Test func otherControlCharactersUseUnicodeEscapes() throws {
        #expect(try written { $0.writeString("\u{0}") } == #""\u0000""#)
        #expect(try written { $0.writeString("\u{1}") } == #""\u0001""#)
        #expect(try written { $0.writeString("\u{B}") } == #""\u000b""#)
        #expect(try written { $0.writeString("\u{1B}[0m") } == #""\u001b[0m""#)
        #expect(try written { $0.writeString("\u{1F}") } == #""\u001f""#)
        let named: [UInt8: String] = [0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\f", 0x0D: "\\r"]
        for byte in UInt8(0)..<0x20 {
            let expected = named[byte] ?? "\\u00" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16)
            let text = String(decoding: [byte], as: UTF8.self)
            #expect(try written { $0.writeString(text) } == "\"" + expected + "\"")
        }
    }

    /// C1 controls and the bidirectional controls are escaped too, so that JSON Lines shown on a
    /// terminal cannot drive it; their neighbours in UTF-8 stay raw. At every offset, so that the
    /// eight-byte scan and the byte loop both meet them.
    @Test func c1AndBidirectionalControlsUseUnicodeEscapes() throws {
        #expect(try written { $0.writeString("\u{80}\u{85}\u{9B}\u{9F}") } == #""\u0080\u0085\u009b\u009f""#)
        #expect(try written { $0.writeString("a\u{202A}b\u{202E}c\u{2066}d\u{2069}") } == #""a\u202ab\u202ec\u2066d\u2069""#)
        #expect(try written { $0.writeString("\u{A0}\u{FF}\u{2029}\u{202F}\u{2065}\u{206A}€") } == "\"\u{A0}\u{FF}\u{2029}\u{202F}\u{2065}\u{206A}€\"")
        for offset in 0 ..< 17 {
            let pad = String(repeating: "x", count: offset)
            #expect(try written { $0.writeString(pad + "\u{202E}" + pad + "\u{9B}" + pad) } == "\"" + pad + #"\u202e"# + pad + #"\u009b"# + pad + "\"")
        }
    }

    @Test func everyASCIICharacterRoundTripsThroughTheParser() throws {
        let all = String(decoding: Array(UInt8(0)..<0x80), as: UTF8.self) + "é€😀\u{10FFFF}"
        for length in [1, 7, 8, 9, 31, 200] {
            let sample = String(repeating: all, count: 3).unicodeScalars.prefix(length)
            let string = String(String.UnicodeScalarView(sample))
            let text = try written { $0.writeString(string) }
            #expect(try JSONParser.parse(text) == .string(string))
        }
        let long = String(repeating: "abcdefgh", count: 50) + "\"" + String(repeating: "é", count: 20) + "\n"
        #expect(try JSONParser.parse(try written { $0.writeString(long) }) == .string(long))
    }

    // MARK: numbers

    @Test func integers() throws {
        #expect(try written { $0.writeInt(0) } == "0")
        #expect(try written { $0.writeInt(-1) } == "-1")
        #expect(try written { $0.writeInt(1234567890) } == "1234567890")
        #expect(try written { $0.writeInt(Int64.min) } == "-9223372036854775808")
        #expect(try written { $0.writeInt(Int64.max) } == "9223372036854775807")
        #expect(try written { $0.writeUInt(0) } == "0")
        #expect(try written { $0.writeUInt(10) } == "10")
        #expect(try written { $0.writeUInt(UInt64.max) } == "18446744073709551615")
        var rng = SplitMix64(state: 7)
        for _ in 0..<1000 {
            let v = Int64(bitPattern: rng.next()) >> Int64.random(in: 0..<64, using: &rng)
            #expect(try written { $0.writeInt(v) } == String(v))
        }
    }

    static let doubles: [Double] = [
        0.1, 1e300, Double.leastNonzeroMagnitude /* 5e-324 */, -0.0, 0.0, 1.0, -1.5, 100, 1e16, 1e-5, 123456789.123,
        Double.greatestFiniteMagnitude, -Double.greatestFiniteMagnitude, Double.leastNormalMagnitude,
        Double.leastNormalMagnitude.nextDown, 2.2250738585072014e-308, 9007199254740992, 9007199254740992.0.nextUp, 0.30000000000000004,
        Double.pi, 1.7976931348623157e308,
    ]

    @Test(arguments: doubles)
    func doubleRoundTripsBitExactly(_ value: Double) throws {
        let text = try written { $0.writeDouble(value) }
        let parsedBack = try #require(Double(text))
        #expect(parsedBack.bitPattern == value.bitPattern, "\(text)")
        // and it is valid JSON whose doubleValue is the same value
        let json = try JSONParser.parse(text)
        #expect(json.doubleValue?.bitPattern == value.bitPattern)
    }

    @Test func doubleTexts() throws {
        #expect(try written { $0.writeDouble(0.1) } == "0.1")
        #expect(try written { $0.writeDouble(-0.0) } == "-0.0")
        #expect(try written { $0.writeDouble(1.0) } == "1.0")
        #expect(try written { $0.writeDouble(1e300) } == "1e+300")
        #expect(try written { $0.writeDouble(.leastNonzeroMagnitude) } == "5e-324")
        #expect(Double("5e-324") == .leastNonzeroMagnitude)
    }

    @Test func randomDoublesRoundTrip() throws {
        var rng = SplitMix64(state: 99)
        var checked = 0
        while checked < 2000 {
            let value = Double(bitPattern: rng.next())
            guard value.isFinite else { continue }
            checked += 1
            let text = try written { $0.writeDouble(value) }
            #expect(try JSONParser.parse(text).doubleValue?.bitPattern == value.bitPattern, "\(text)")
        }
    }

    @Test func floats() throws {
        #expect(try written { $0.writeFloat(Float(0.1)) } == "0.1")
        #expect(try written { $0.writeFloat(-0.0) } == "-0.0")
        #expect(try written { $0.writeFloat(1e10) } == "1e+10")
        for value: Float in [Float(0.1), .leastNonzeroMagnitude, .greatestFiniteMagnitude, .leastNormalMagnitude,
                             Float(1).nextUp, 3.4028235e38, -2.5, 1e-10] {
            let text = try written { $0.writeFloat(value) }
            #expect(Float(text)?.bitPattern == value.bitPattern, "\(text)")
            #expect(try JSONParser.parse(text).floatValue?.bitPattern == value.bitPattern, "\(text)")
        }
        var rng = SplitMix64(state: 5)
        var checked = 0
        while checked < 2000 {
            let value = Float(bitPattern: UInt32(truncatingIfNeeded: rng.next()))
            guard value.isFinite else { continue }
            checked += 1
            let text = try written { $0.writeFloat(value) }
            #expect(try JSONParser.parse(text).floatValue?.bitPattern == value.bitPattern, "\(text)")
        }
    }

    @Test func nonFiniteDoubleIsAPreconditionFailure() async {
        await #expect(processExitsWith: .failure) {
            var writer = JSONWriter(sink: ArraySink())
            writer.writeDouble(.nan)
        }
        await #expect(processExitsWith: .failure) {
            var writer = JSONWriter(sink: ArraySink())
            writer.writeDouble(-.infinity)
        }
        await #expect(processExitsWith: .failure) {
            var writer = JSONWriter(sink: ArraySink())
            writer.writeFloat(.infinity)
        }
    }

    // MARK: other tokens and raw appends

    @Test func literalsAndRawAppends() throws {
        let text = try written { w in
            w.writeRaw("{")
            w.writeString("k")
            w.writeByte(UInt8(ascii: ":"))
            w.writeRaw("[" as StaticString)
            w.writeBool(true)
            w.writeRaw(",")
            w.writeBool(false)
            w.writeRaw(",")
            w.writeNull()
            w.writeRaw(String(","))
            w.writeRaw([UInt8](#""é""#.utf8))
            w.writeRaw("]")
            let key: StaticString = "x"
            for i in 0..<2 {
                w.writeRaw(i == 0 ? ",\"" : ",\"y")  // literal ternaries resolve without ambiguity
                w.writeRaw(key)
                w.writeRaw("\":" + String(i))
            }
            w.writeRaw("}")
        }
        #expect(text == #"{"k":[true,false,null,"é"],"x":0,"yx":1}"#)
    }

    /// A tree written compact and pretty (two spaces per level, one member or item a line), as
    /// written here by hand; `serialized` gives the same text.
    @Test func writeValueCompactAndPretty() throws {
        let compact = #"{"a":[1,-0.0,"x\u0001",{"b":null}],"c":true}"#
        let pretty = """
            {
              "a": [
                1,
                -0.0,
                "x\\u0001",
                {
                  "b": null
                }
              ],
              "c": true
            }
            """
        let value = try JSONParser.parse(compact)
        #expect(try written { $0.writeValue(value) } == compact)
        #expect(try written { $0.writeValue(value, pretty: true) } == pretty)
        #expect(String(decoding: value.serialized(), as: UTF8.self) == compact)
        #expect(String(decoding: value.serialized(pretty: true), as: UTF8.self) == pretty)
    }

    // MARK: buffering

    @Test func smallBufferProducesSameBytesInChunks() throws {
        func document(_ w: inout JSONWriter<ChunkSink>) throws {
            w.writeRaw("[")
            for row in 0..<200 {
                if row > 0 { w.writeByte(UInt8(ascii: ",")) }
                w.writeRaw("[")
                w.writeInt(Int64(row) * -7919)
                w.writeRaw(",")
                w.writeString("row \(row) \"quoted\" é")
                w.writeRaw(",")
                w.writeDouble(Double(row) / 3)
                w.writeRaw(",")
                w.writeBase64String([UInt8](repeating: UInt8(row & 0xFF), count: row % 7))
                w.writeRaw("]")
            }
            w.writeRaw("]")
            try w.flush()
        }
        var big = JSONWriter(sink: ChunkSink())
        try document(&big)
        var small = JSONWriter(sink: ChunkSink(), bufferSize: 7)
        try document(&small)
        #expect(big.sink.chunks.count == 1)
        #expect(small.sink.chunks.count > 100)
        #expect(small.sink.chunks.allSatisfy { !$0.isEmpty })
        #expect(Array(small.sink.chunks.joined()) == big.sink.chunks[0])
        let parsed = try JSONParser.parse(big.sink.chunks[0])
        #expect(parsed.arrayValue?.count == 200)
        #expect(parsed[3]?[1]?.stringValue == "row 3 \"quoted\" é")
        #expect(parsed[3]?[0]?.int64Value == -23757)
        #expect(parsed[6]?[3]?.stringValue.flatMap(Base64.decode) == [6, 6, 6, 6, 6, 6])
    }

    @Test func sinkIsCalledWhenBufferFills() throws {
        var writer = JSONWriter(sink: ChunkSink(), bufferSize: 16)
        writer.writeString("0123456789")  // 12 bytes, stays buffered
        #expect(writer.sink.chunks.isEmpty)
        #expect(writer.bufferedCount == 12)
        writer.writeString("abcd")  // 18 bytes >= 16: flushed
        #expect(writer.sink.chunks.count == 1)
        #expect(writer.bufferedCount == 0)
        try writer.flush()
        #expect(writer.sink.chunks.count == 1)  // flushing an empty buffer does not call the sink
    }

    @Test func sinkErrorsAreStickyAndReportedByFlush() throws {
        var writer = JSONWriter(sink: FailingSink(failuresLeft: 1), bufferSize: 4)
        writer.writeString("ab")  // 4 bytes: the buffer fills, the sink fails
        #expect(writer.sinkError is SinkFailure)
        writer.writeString("cdef")  // discarded
        #expect(writer.bufferedCount == 0)
        #expect(throws: SinkFailure.self) { try writer.flush() }
        #expect(throws: SinkFailure.self) { try writer.flush() }  // sticky
        #expect(writer.sink.bytes.isEmpty)

        var late = JSONWriter(sink: FailingSink(failuresLeft: 1))
        late.writeString("small")
        #expect(late.sinkError == nil)
        #expect(throws: SinkFailure.self) { try late.flush() }
    }

    @Test func flushWithoutErrorsDoesNotThrow() throws {
        var writer = JSONWriter(sink: FailingSink(failuresLeft: 0), bufferSize: 3)
        writer.writeString("abc")
        writer.writeInt(42)
        try writer.flush()
        #expect(writer.sinkError == nil)
        #expect(String(decoding: writer.sink.bytes, as: UTF8.self) == #""abc"42"#)
    }

    // MARK: base64 through the writer

    @Test func base64Strings() throws {
        #expect(try written { $0.writeBase64String(Array("foobar".utf8)) } == #""Zm9vYmFy""#)
        #expect(try written { $0.writeBase64String([UInt8]()) } == #""""#)
        #expect(try written { $0.writeBase64String(Array("f".utf8)[...]) } == #""Zg==""#)
        #expect(try written { $0.writeURLSafeBase64String([0xFB, 0xFF]) } == #""-_8""#)
    }
}

@Suite("Base64")
struct Base64Tests {
    static let rfc4648: [(String, String)] = [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ]

    @Test(arguments: rfc4648)
    func rfc4648Vectors(_ plain: String, _ encoded: String) {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
        #expect(Base64.decode(encoded) == Array(plain.utf8))
        #expect(Base64.decode(utf8: Array(encoded.utf8)) == Array(plain.utf8))
        var appended: [UInt8] = [0x21]
        Base64.encode(plain.utf8, into: &appended)  // non-contiguous collection path
        #expect(appended == [0x21] + Array(encoded.utf8))
    }

    static let rejectedStandard: [String] = [
        "Zg=", "Zg", "Z", "Zh==", "Zm9=", "Zm8", "Zg==Zg==", "Z===", "====", "=", "==", "Zg=A", "A=AA",
        " Zg==", "Zg== ", "Zg==\n", "Zm9v\n", "Zm 9v", "Zm9v\u{0}", "Zm-v", "Zm_v", "Zm9v=", "Zm9vYmFy=",
        "Zm9vY===", "Zm9vYg=", "Zm9vYh==", "Zm9vYmF=", "é===",
    ]

    @Test(arguments: rejectedStandard)
    func strictStandardDecode(_ text: String) {
        #expect(Base64.decode(text) == nil)
    }

    static let urlSafe: [([UInt8], String)] = [
        ([], ""), (Array("f".utf8), "Zg"), (Array("fo".utf8), "Zm8"), (Array("foo".utf8), "Zm9v"),
        (Array("foob".utf8), "Zm9vYg"), (Array("fooba".utf8), "Zm9vYmE"), (Array("foobar".utf8), "Zm9vYmFy"),
        ([0xFB, 0xFF], "-_8"), ([0xFB, 0xEF, 0xBE], "----"), ([0xFF, 0xFF, 0xFF], "____"), ([0x3E], "Pg"),
    ]

    @Test(arguments: urlSafe)
    func urlSafeVectors(_ bytes: [UInt8], _ encoded: String) {
        #expect(URLSafeBase64.encode(bytes) == encoded)
        #expect(URLSafeBase64.decode(encoded) == bytes)
        #expect(URLSafeBase64.decode(utf8: Array(encoded.utf8)) == bytes)
    }

    @Test func standardAndURLSafeAlphabetsDiffer() {
        #expect(Base64.encode([0xFB, 0xFF]) == "+/8=")
        #expect(URLSafeBase64.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64.decode("+/8=") == [0xFB, 0xFF])
        #expect(Base64.decode("-_8=") == nil)
    }

    static let rejectedURLSafe: [String] = [
        "Zg==", "Zm8=", "Z", "Zh", "-_9", "+/8", "Zm9vY", "Zg Zg", "Zm9v\n", "Zg=", "=", "Zm9v_=",
    ]

    @Test(arguments: rejectedURLSafe)
    func strictURLSafeDecode(_ text: String) {
        #expect(URLSafeBase64.decode(text) == nil)
    }

    @Test func allByteValuesAndLengthsRoundTripAndMatchFoundation() {
        let all = Array(UInt8.min...UInt8.max)
        #expect(Base64.decode(Base64.encode(all)) == all)
        #expect(URLSafeBase64.decode(URLSafeBase64.encode(all)) == all)
        var rng = SplitMix64(state: 3)
        for length in 0..<200 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let encoded = Base64.encode(bytes)
            #expect(encoded == Data(bytes).base64EncodedString())
            #expect(Base64.decode(encoded) == bytes)
            let urlSafe = URLSafeBase64.encode(bytes)
            let expectedURLSafe = encoded.replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(urlSafe == expectedURLSafe)
            #expect(URLSafeBase64.decode(urlSafe) == bytes)
        }
    }

    @Test func everyNonCanonicalLastCharacterIsRejected() {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        for (index, character) in alphabet.enumerated() {
            let oneByte = "Q\(character)=="
            #expect((Base64.decode(oneByte) != nil) == (index & 0x0F == 0), "\(oneByte)")
            let twoBytes = "QU\(character)="
            #expect((Base64.decode(twoBytes) != nil) == (index & 0x03 == 0), "\(twoBytes)")
        }
    }
}
