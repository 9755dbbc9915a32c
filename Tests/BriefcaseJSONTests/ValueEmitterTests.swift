import JSONCore
import Testing
import BriefcaseTestSupport
@testable import BriefcaseJSON
@testable import BriefcaseKit

/// The fast value writer (no Strings, through a pointer) against the String-based forms it
/// replaced, on edge cases and random values of every kind; and the byte-level decimal parsers.
struct ValueEmitterTests {
    /// What `JSONDocumentEncoder.writeValue` wrote before `JSONValueEmitter`: the reference.
    static func stringForm(_ value: Value, codePage: CodePage) -> String {
        var writer = JSONWriter(sink: ArraySink())
        func bytesObject(_ key: String, _ bytes: ByteString) {
            writer.writeRaw("{\"" + key + "\": ")
            writer.writeString(Base64.encode(bytes.bytes))
            writer.writeRaw("}")
        }
        func double(_ value: Double) {
            if value.isFinite { writer.writeDouble(value) } else { writer.writeString(FloatText.special(value)) }
        }
        switch value {
        case .ansiString(let s):
            if let text = codePage.decodeReversibly(s) { writer.writeString(text) } else { bytesObject("bytes", s) }
        case .wideString(let s):
            if let text = WideText.decode(s) { writer.writeString(text) } else { bytesObject("utf16le", s) }
        case .blob(let s): writer.writeString(Base64.encode(s.bytes))
        case .guid(let s):
            if s.bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { writer.writeString(String(decoding: s.bytes, as: UTF8.self)) } else { bytesObject("bytes", s) }
        case .integer(let i): writer.writeInt(i)
        case .largeUInt(let u): writer.writeUInt(u)
        case .boolean(let b):
            switch b {
            case 0: writer.writeBool(false)
            case 1: writer.writeBool(true)
            default: writer.writeRaw("{\"byte\": "); writer.writeInt(Int64(b)); writer.writeRaw("}")
            }
        case .currency(let c): writer.writeString(c.description)
        case .decimal(let d):
            if d.isTextReversible {
                writer.writeString(d.description)
            } else {
                var raw = ByteWriter()
                raw.writeInteger(d.low); raw.writeInteger(d.mid); raw.writeInteger(d.high); raw.writeInteger(d.flags)
                bytesObject("decimalBytes", ByteString(raw.bytes))
            }
        case .float(let f): double(f)
        case .singleFloat(let f):
            if f.isFinite { writer.writeFloat(f) } else { writer.writeString(FloatText.special(f)) }
        case .dateTime(let d):
            if let iso = d.isoText, OLEDateTime(isoText: iso) == d {
                writer.writeString(iso)
            } else {
                writer.writeRaw("{\"oleDate\": "); double(d.value); writer.writeRaw("}")
            }
        }
        try! writer.flush()
        return String(decoding: writer.sink.bytes, as: UTF8.self)
    }

    static func fastForm(_ value: Value, codePage: CodePage) -> String {
        var out: [UInt8] = []
        JSONValueEmitter(codePage: codePage).writeValue(value, type: .unknown, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func check(_ value: Value, codePage: CodePage = .utf8, _ location: SourceLocation = #_sourceLocation) {
        #expect(fastForm(value, codePage: codePage) == stringForm(value, codePage: codePage), "\(value)", sourceLocation: location)
    }

    static func bytes(_ random: inout SplitMix64, count: Int, from alphabet: [UInt8]? = nil) -> [UInt8] {
        (0..<count).map { _ in alphabet.map { $0[Int(random.next() % UInt64($0.count))] } ?? UInt8(truncatingIfNeeded: random.next()) }
    }

    @Test func edgeCases() {
        let values: [Value] = [
            .ansiString(""), .ansiString("a\"b\\c\n\r\t\u{08}\u{0C}\u{01}\u{1F}\u{7F} é 中 😀"), .ansiString(ByteString([0xFF, 0x41])),
            .ansiString(ByteString([0xED, 0xA0, 0x80])), .ansiString(ByteString([0xC0, 0x80])),
            .wide(""), .wide("a\"\\\n\u{01} é 中 😀 \u{FFFF}"), .wideString(ByteString([0x41])), .wideString(ByteString([0x00, 0xD8])),
            .wideString(ByteString([0x00, 0xDC, 0x41, 0x00])), .wideString(ByteString([0x00, 0xD8, 0x41, 0x00])),
            .blob(ByteString([])), .blob(ByteString([1])), .blob(ByteString([1, 2])), .blob(ByteString([1, 2, 3])),
            .guid("6F9619FF-8B86-D011-B42D-00C04FC964FF"), .guid(ByteString(Array(repeating: 0x22, count: 36))),
            .guid(ByteString(Array(repeating: 0x80, count: 36))),
            .integer(0), .integer(-1), .integer(9), .integer(10), .integer(.max), .integer(.min), .largeUInt(.max), .largeUInt(0),
            .boolean(0), .boolean(1), .boolean(2), .boolean(255),
            .currency(Currency(scaled: 0)), .currency(Currency(scaled: 1)), .currency(Currency(scaled: -1)), .currency(Currency(scaled: 10)),
            .currency(Currency(scaled: 25000)), .currency(Currency(scaled: 1230)), .currency(Currency(scaled: .max)), .currency(Currency(scaled: .min)),
            .decimal(Decimal96(low: 0, mid: 0, high: 0, flags: 0)), .decimal(Decimal96(low: 0, mid: 0, high: 0, flags: 0x8000_0000)),
            .decimal(Decimal96(low: 150, mid: 0, high: 0, flags: 2 << 16)), .decimal(Decimal96(low: 1, mid: 0, high: 0, flags: 3 << 16 | 0x8000_0000)),
            .decimal(Decimal96(low: .max, mid: .max, high: .max, flags: 0)), .decimal(Decimal96(low: .max, mid: .max, high: .max, flags: 28 << 16)),
            .decimal(Decimal96(low: 5, mid: 0, high: 1, flags: 255 << 16)), .decimal(Decimal96(low: 1, mid: 0, high: 0, flags: 1)),
            .float(0), .float(-0.0), .float(0.1), .float(1e300), .float(.leastNonzeroMagnitude), .float(.nan), .float(-.infinity), .float(Double(bitPattern: 0x7FF0_0000_0000_0001)),
            .singleFloat(0.1), .singleFloat(.nan), .singleFloat(.infinity), .singleFloat(-3.4028235e38),
            .dateTime(OLEDateTime(0)), .dateTime(OLEDateTime(-1.25)), .dateTime(OLEDateTime(45351.5732653125)), .dateTime(OLEDateTime(0.1234567891)),
            .dateTime(OLEDateTime(-693_593.0)), .dateTime(OLEDateTime(2_958_465.99999999)), .dateTime(OLEDateTime(3e6)), .dateTime(OLEDateTime(.nan)),
            .dateTime(OLEDateTime(-.infinity)),
        ]
        for value in values { Self.check(value) }
        for value in values { Self.check(value, codePage: .gbk) }
    }

    @Test func randomValuesOfEveryKind() {
        var random = SplitMix64(state: 6)
        let ascii = Array(0..<128).map(UInt8.init)
        for _ in 0..<20_000 {
            let count = Int(random.next() % 40)
            let values: [Value] = [
                .ansiString(ByteString(Self.bytes(&random, count: count, from: random.next() % 2 == 0 ? ascii : nil))),
                .wide(String(decoding: Self.bytes(&random, count: count, from: ascii), as: UTF8.self) + "中😀"),
                .wideString(ByteString(Self.bytes(&random, count: count * 2))),
                .wideString(ByteString((0..<count).flatMap { _ -> [UInt8] in
                    // Units near the surrogate range, so pairs and unpaired halves both occur.
                    let unit = UInt16(0xD700 + random.next() % 0x1000)
                    return [UInt8(truncatingIfNeeded: unit), UInt8(truncatingIfNeeded: unit >> 8)]
                })),
                .blob(ByteString(Self.bytes(&random, count: count))),
                .guid(ByteString(Self.bytes(&random, count: 36, from: random.next() % 2 == 0 ? ascii : nil))),
                .integer(Int64(bitPattern: random.next()) >> (random.next() % 64)),
                .largeUInt(random.next() >> (random.next() % 64)),
                .boolean(UInt8(truncatingIfNeeded: random.next() % 4 == 0 ? random.next() : random.next() % 2)),
                .currency(Currency(scaled: Int64(bitPattern: random.next()) >> (random.next() % 64))),
                .decimal(Decimal96(low: UInt32(truncatingIfNeeded: random.next()), mid: random.next() % 2 == 0 ? 0 : UInt32(truncatingIfNeeded: random.next()),
                                   high: random.next() % 3 == 0 ? UInt32(truncatingIfNeeded: random.next()) : 0,
                                   flags: UInt32(random.next() % 40) << 16 | (random.next() % 2 == 0 ? 0x8000_0000 : 0) | (random.next() % 50 == 0 ? 1 : 0))),
                .float(Double(bitPattern: random.next())),
                .singleFloat(Float(bitPattern: UInt32(truncatingIfNeeded: random.next()))),
                .dateTime(OLEDateTime(random.next() % 2 == 0
                    ? Double(Int64(random.next() % 5_000_000) - 1_000_000) / 86_400_000 * 1000
                    : Double(bitPattern: random.next()))),
            ]
            for value in values { Self.check(value) }
        }
    }

    @Test func decimalTextParsers() {
        #expect(Currency("0")?.scaled == 0)
        #expect(Currency("-0.0001")?.scaled == -1)
        #expect(Currency("007.5")?.scaled == 75_000)
        #expect(Currency("922337203685477.5807")?.scaled == .max)
        #expect(Currency("-922337203685477.5808")?.scaled == .min)
        #expect(Currency("922337203685477.5808") == nil)
        #expect(Currency("1844674407370955.1616") == nil) // beyond UInt64
        #expect(Currency("0.12345") == nil)
        for bad in ["", "-", "+1", "1.", ".5", "1.2.3", "1e5", "١", "1\u{301}", "-\u{301}1", "1.\u{301}5", " 1", "1 ", "0x10", "--1"] {
            #expect(Currency(bad) == nil, "\(bad)")
            #expect(Decimal96(bad) == nil, "\(bad)")
        }
        #expect(Decimal96("79228162514264337593543950335") == Decimal96(low: .max, mid: .max, high: .max, flags: 0))
        #expect(Decimal96("79228162514264337593543950336") == nil)
        #expect(Decimal96("-0.001") == Decimal96(low: 1, mid: 0, high: 0, flags: 3 << 16 | 0x8000_0000))
        #expect(Decimal96("0." + String(repeating: "0", count: 254) + "1") == Decimal96(low: 1, mid: 0, high: 0, flags: 255 << 16))
        #expect(Decimal96("0." + String(repeating: "0", count: 255) + "1") == nil)
        var random = SplitMix64(state: 7)
        for _ in 0..<20_000 {
            let currency = Currency(scaled: Int64(bitPattern: random.next()) >> (random.next() % 64))
            #expect(Currency(currency.description) == currency)
            let decimal = Decimal96(low: UInt32(truncatingIfNeeded: random.next()), mid: UInt32(truncatingIfNeeded: random.next()),
                                    high: UInt32(truncatingIfNeeded: random.next()) >> (random.next() % 32),
                                    flags: UInt32(random.next() % 60) << 16 | (random.next() % 2 == 0 ? 0x8000_0000 : 0))
            #expect(Decimal96(decimal.description) == decimal)
        }
    }
}
