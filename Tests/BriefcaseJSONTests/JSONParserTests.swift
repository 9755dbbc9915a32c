#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSONCore
import BriefcaseTestSupport
import Testing
@testable import BriefcaseJSON

private func parse(_ text: String, maxDepth: Int = 256) throws(JSONParseError) -> JSONValue {
    try JSONParser.parse(Array(text.utf8), maxDepth: maxDepth)
}

/// The error for `bytes`, or nil if they parse.
private func parseError(_ bytes: [UInt8], maxDepth: Int = 256) -> JSONParseError? {
    do {
        _ = try JSONParser.parse(bytes, maxDepth: maxDepth)
        return nil
    } catch {
        return error
    }
}

private func parseError(_ text: String, maxDepth: Int = 256) -> JSONParseError? {
    parseError(Array(text.utf8), maxDepth: maxDepth)
}


@Suite("JSONParser")
struct JSONParserTests {
    // MARK: RFC 8259 examples

    @Test func rfcImageObject() throws {
        let text = """
            {
              "Image": {
                  "Width":  800,
                  "Height": 600,
                  "Title":  "View from 15th Floor",
                  "Thumbnail": {
                      "Url":    "http://www.example.com/image/481989943",
                      "Height": 125,
                      "Width":  100
                  },
                  "Animated" : false,
                  "IDs": [116, 943, 234, 38793]
                }
            }
            """
        let value = try parse(text)
        let image = try #require(value["Image"])
        #expect(image["Width"]?.int64Value == 800)
        #expect(image["Height"]?.int64Value == 600)
        #expect(image["Title"]?.stringValue == "View from 15th Floor")
        #expect(image["Thumbnail"]?["Url"]?.stringValue == "http://www.example.com/image/481989943")
        #expect(image["Thumbnail"]?["Height"] == .number("125"))
        #expect(image["Animated"]?.boolValue == false)
        #expect(image["IDs"]?.arrayValue?.compactMap(\.int64Value) == [116, 943, 234, 38793])
        #expect(image.objectValue?.keys == ["Width", "Height", "Title", "Thumbnail", "Animated", "IDs"])
    }

    @Test func rfcArrayOfObjects() throws {
        let text = """
            [
              {
                 "precision": "zip",
                 "Latitude":  37.7668,
                 "Longitude": -122.3959,
                 "Address":   "",
                 "City":      "SAN FRANCISCO",
                 "State":     "CA",
                 "Zip":       "94107",
                 "Country":   "US"
              },
              {
                 "precision": "zip",
                 "Latitude":  37.371991,
                 "Longitude": -122.026020,
                 "Address":   "",
                 "City":      "SUNNYVALE",
                 "State":     "CA",
                 "Zip":       "94085",
                 "Country":   "US"
              }
            ]
            """
        let value = try parse(text)
        let array = try #require(value.arrayValue)
        #expect(array.count == 2)
        #expect(array[0]["Latitude"] == .number("37.7668"))
        #expect(array[0]["Latitude"]?.doubleValue == 37.7668)
        #expect(array[1]["Longitude"] == .number("-122.026020"))  // exact text, trailing zero kept
        #expect(array[1]["City"]?.stringValue == "SUNNYVALE")
        #expect(array[0]["Address"]?.stringValue == "")
        #expect(array[0]["Latitude"]?.int64Value == nil)
    }

    @Test func rfcScalarTexts() throws {
        #expect(try parse("\"Hello world!\"") == .string("Hello world!"))
        #expect(try parse("42") == .number("42"))
        #expect(try parse("true") == .bool(true))
        #expect(try parse("false") == .bool(false))
        #expect(try parse("null") == .null)
        #expect(try parse("null").isNull)
        #expect(try parse(" \t\r\n 1 \n\r\t ") == .number("1"))
        #expect(try parse("[]") == .array([]))
        #expect(try parse("{}") == .object(JSONObject()))
        #expect(try parse(" [ ] ") == .array([]))
        #expect(try parse(" { } ") == .object(JSONObject()))
        #expect(try parse("[1,[2,[3,{}]],{\"a\":[]}]") == .array([
            .number("1"), .array([.number("2"), .array([.number("3"), .object(JSONObject())])]),
            .object(JSONObject([(key: "a", value: .array([]))])),
        ]))
    }

    @Test func stringBytesAndRawOverloadsReadTheSameTree() throws {
        let text = "{\"k\":[1,\"é\",null]}"
        let fromBytes = try JSONParser.parse(Array(text.utf8))
        let fromString = try JSONParser.parse(text)
        let fromRaw = try Array(text.utf8).withUnsafeBytes { raw throws(JSONParseError) -> JSONValue in
            try JSONParser.parse(raw)
        }
        let expected = JSONValue.object(JSONObject([(key: "k", value: .array([.number("1"), .string("é"), .null]))]))
        #expect(fromBytes == expected)
        #expect(fromString == expected)
        #expect(fromRaw == expected)
    }

    // MARK: numbers

    @Test func numbersKeepExactText() throws {
        for text in ["0", "-0", "-0.0", "1E+2", "1e-7", "0.000000000000000000000000001", "1e300",
                     "123456789012345678901234567890", "3.14159265358979323846264338327950288",
                     "18446744073709551615", "-9223372036854775808", "1E400", "-1.5e-400"] {
            #expect(try parse(text) == .number(text))
            #expect(try parse("[\(text)]") == .array([.number(text)]))
        }
    }

    @Test func uint64MaxStaysExact() throws {
        let value = try parse("18446744073709551615")
        #expect(value.numberText == "18446744073709551615")
        #expect(value.uint64Value == UInt64.max)
        #expect(value.int64Value == nil)
        #expect(value.int32Value == nil)
        #expect(try parse("18446744073709551616").uint64Value == nil)
        #expect(try parse("99999999999999999999").uint64Value == nil)
    }

    @Test func int64Bounds() throws {
        #expect(try parse("-9223372036854775808").int64Value == Int64.min)
        #expect(try parse("9223372036854775807").int64Value == Int64.max)
        #expect(try parse("9223372036854775808").int64Value == nil)
        #expect(try parse("9223372036854775808").uint64Value == 9_223_372_036_854_775_808)
        #expect(try parse("-9223372036854775809").int64Value == nil)
        #expect(try parse("-9223372036854775808").uint64Value == nil)
        #expect(try parse("-1").uint64Value == nil)
        #expect(try parse("-0").int64Value == 0)
        #expect(try parse("-0").uint64Value == 0)
        #expect(try parse("0").int64Value == 0)
    }

    @Test func int32Bounds() throws {
        #expect(try parse("2147483647").int32Value == Int32.max)
        #expect(try parse("-2147483648").int32Value == Int32.min)
        #expect(try parse("2147483648").int32Value == nil)
        #expect(try parse("-2147483649").int32Value == nil)
    }

    @Test func fractionsAndExponentsAreNotIntegers() throws {
        for text in ["1.0", "1e2", "1E2", "1e+2", "0.0", "-0.0", "100e-2", "1.5"] {
            let value = try parse(text)
            #expect(value.int64Value == nil, "\(text)")
            #expect(value.uint64Value == nil, "\(text)")
            #expect(value.int32Value == nil, "\(text)")
            #expect(value.doubleValue != nil, "\(text)")
        }
        #expect(try parse("1e2").doubleValue == 100)
    }

    @Test func handBuiltNumberTextIsCheckedByIntegerAccessors() {
        #expect(JSONValue.number("007").int64Value == nil)
        #expect(JSONValue.number("+7").int64Value == nil)
        #expect(JSONValue.number("").int64Value == nil)
        #expect(JSONValue.number("-").int64Value == nil)
        #expect(JSONValue.number(" 7").int64Value == nil)
        #expect(JSONValue.string("7").int64Value == nil)
        #expect(JSONValue.integer(UInt64.max) == .number("18446744073709551615"))
        #expect(JSONValue.integer(Int8(-5)).int64Value == -5)
    }

    @Test func doubleValues() throws {
        #expect(try parse("1e300").doubleValue == 1e300)
        #expect(try parse("0.1").doubleValue == 0.1)
        #expect(try parse("5e-324").doubleValue == Double.leastNonzeroMagnitude)
        #expect(try parse("-0.0").doubleValue?.bitPattern == (-0.0 as Double).bitPattern)
        #expect(try parse("18446744073709551615").doubleValue == 18446744073709551616.0)
        #expect(try parse("1e400").doubleValue == .infinity)
        #expect(try parse("\"1\"").doubleValue == nil)
    }

    @Test func floatValueParsesDirectlyFromText() throws {
        #expect(try parse("0.1").floatValue == Float(0.1))
        #expect(try parse("0.1").floatValue?.bitPattern == 0x3DCC_CCCD)
        // 1 + 2^-24 + 10^-25: just above the midpoint between Float 1.0 and its successor,
        // so the nearest Float is 1 + 2^-23. Going through Double first would land exactly
        // on the midpoint (1 + 2^-24) and then round to even, giving 1.0.
        let text = "1.0000000596046447753906251"
        let viaDouble = Float(try #require(Double(text)))
        #expect(viaDouble == 1.0)
        #expect(try parse(text).floatValue == Float(1).nextUp)
        #expect(try parse("1.401298464324817e-45").floatValue == Float.leastNonzeroMagnitude)
        #expect(try parse("3.4028235e38").floatValue == Float.greatestFiniteMagnitude)
    }

    // MARK: strings

    @Test func simpleEscapes() throws {
        #expect(try parse(#""\"\\\/\b\f\n\r\t""#) == .string("\"\\/\u{8}\u{C}\n\r\t"))
        #expect(try parse(#""a\u0041b""#) == .string("aAb"))
        #expect(try parse(#""\u00e9\u00E9""#) == .string("éé"))
        #expect(try parse(#""\u20AC""#) == .string("€"))
        #expect(try parse(#""\u0000""#) == .string("\u{0}"))
        #expect(try parse(#""\u001f\u007F""#) == .string("\u{1F}\u{7F}"))
        #expect(try parse(#""\uFFFF""#) == .string("\u{FFFF}"))
    }

    @Test func surrogatePairEscape() throws {
        #expect(try parse(#""\ud83d\ude00""#) == .string("😀"))
        #expect(try parse(#""\uD83D\uDE00""#) == .string("😀"))
        #expect(try parse(#""x\uD800\uDC00y""#) == .string("x\u{10000}y"))
        #expect(try parse(#""\uDBFF\uDFFF""#) == .string("\u{10FFFF}"))
    }

    @Test func rawUTF8AndMixedEscapes() throws {
        #expect(try parse("\"é€😀\"") == .string("é€😀"))
        #expect(try parse("\"\u{7F}\"") == .string("\u{7F}"))  // DEL needs no escape
        #expect(try parse("\"é\\n€\\t😀\\\"\"") == .string("é\n€\t😀\""))
        #expect(try parse("\"/\"") == .string("/"))
    }

    @Test func longStringsExerciseWordAtATimeScanning() throws {
        for length in [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000] {
            let plain = String(repeating: "abcdefghij", count: 101).prefix(length)
            #expect(try parse("\"\(plain)\"") == .string(String(plain)))
            for position in Set([0, length / 2, max(0, length - 1)]) where position <= length {
                var chars = Array(plain.utf8)
                // escaped quote at `position`
                var withEscape = chars
                withEscape.insert(contentsOf: Array(#"\""#.utf8), at: position)
                let expected = String(plain.prefix(position)) + "\"" + String(plain.dropFirst(position))
                #expect(try JSONParser.parse([0x22] + withEscape + [0x22]) == .string(expected))
                // raw control byte at `position` -> rejected exactly there (+1 for the opening quote)
                chars.insert(0x01, at: position)
                #expect(parseError([0x22] + chars + [0x22])?.offset == position + 1)
                // non-ASCII at `position`
                var withUnicode = Array(plain.utf8)
                withUnicode.insert(contentsOf: Array("ü".utf8), at: position)
                let unicodeExpected = String(plain.prefix(position)) + "ü" + String(plain.dropFirst(position))
                #expect(try JSONParser.parse([0x22] + withUnicode + [0x22]) == .string(unicodeExpected))
            }
        }
    }

    // MARK: objects

    @Test func objectKeepsOrder() throws {
        let value = try parse(#"{"b":1,"a":2}"#)
        let object = try #require(value.objectValue)
        #expect(object.keys == ["b", "a"])
        #expect(object["b"] == .number("1"))
        #expect(object["missing"] == nil)
        #expect(object.firstDuplicateKey == nil)
        #expect(JSONObject([("b", 1), ("a", 2), ("b", 3)]).firstDuplicateKey == "b")
    }

    /// A key given twice is refused at the second one's opening quote (counted by hand), in small
    /// objects and in large ones (which the parser checks through a set), at any depth.
    @Test func duplicateKeysAreRefusedAtTheSecondOccurrence() {
        let small = parseError(#"{"b":1,"a":2,"b":3}"#)
        #expect(small?.offset == 13)
        #expect(small?.message == #"duplicate key "b" in an object"#)
        let nested = #"[1,{"x":{"rows":[],"rows":[]}}]"#
        #expect(parseError(nested)?.offset == 19)
        let keys = (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        let large = "{" + keys + ",\"k17\":0}"
        #expect(parseError(large)?.offset == keys.utf8.count + 2)
        #expect(parseError("{" + keys + ",\"k40\":0}") == nil)
        // Equal after unescaping: "\u0061" is "a".
        #expect(parseError(#"{"a":1,"\u0061":2}"#)?.offset == 7)
    }

    @Test func objectEqualityIsOrderSensitive() throws {
        let ab = try parse(#"{"a":1,"b":2}"#)
        let ba = try parse(#"{"b":2,"a":1}"#)
        #expect(ab != ba)
        #expect(ab == (try parse(#" { "a" : 1 , "b" : 2 } "#)))
        #expect(Set([ab, ba, ab]).count == 2)
    }

    @Test func objectSubscriptSetter() {
        var object: JSONObject = ["a": 1, "b": 2, "a": 3]
        object["a"] = "x"
        #expect(object.members.map(\.key) == ["a", "b", "a"])
        #expect(object["a"] == .string("x"))
        object["c"] = true
        #expect(object.keys == ["a", "b", "a", "c"])
        object["a"] = nil
        #expect(object.keys == ["b", "c"])
    }

    @Test func accessorsReturnNilForOtherKinds() throws {
        let value = try parse(#"[null, true, "s", 1, [], {}]"#)
        let array = try #require(value.arrayValue)
        #expect(array[0].isNull && array[0].boolValue == nil && array[0].stringValue == nil)
        #expect(array[1].boolValue == true && !array[1].isNull && array[1].int64Value == nil)
        #expect(array[2].stringValue == "s" && array[2].numberText == nil && array[2].doubleValue == nil)
        #expect(array[3].numberText == "1" && array[3].stringValue == nil)
        #expect(array[4].arrayValue == [] && array[4].objectValue == nil)
        #expect(array[5].objectValue == JSONObject() && array[5].arrayValue == nil)
        #expect(value[6] == nil && value[-1] == nil && value["key"] == nil)
        #expect(value[2] == .string("s"))
    }

    // MARK: strict rejections, with offsets

    static let rejections: [(String, Int)] = [
        // empty / whitespace only
        ("", 0), (" ", 1), ("\n\t", 2),
        // structure
        ("[1,]", 3), ("[,1]", 1), ("[1 2]", 3), ("[1,,2]", 3), ("{\"a\" 1}", 5), ("{\"a\":1,}", 7),
        ("{a:1}", 1), ("{\"a\":}", 5), ("{\"a\"}", 4), ("{1:2}", 1), ("[}", 1), ("{]", 1), ("]", 0),
        ("{\"a\":1]", 6), ("[1}", 2), ("'a'", 0),
        // trailing garbage
        ("1 2", 2), ("[1]x", 3), ("{} {}", 3), ("null,", 4), ("\"a\"\"b\"", 3), ("truex", 4),
        // numbers
        ("01", 0), ("-01", 1), ("[00]", 1), ("00.5", 0), ("1.", 2), ("1.e3", 2), ("1e", 2), ("1e+", 3),
        ("1E-x", 3), (".5", 0), ("+1", 0), ("-", 1), ("- 1", 1), ("0x10", 1), ("1_000", 1), ("[1.5.2]", 4),
        // NaN / Infinity and bad literals
        ("NaN", 0), ("Infinity", 0), ("-Infinity", 1), ("[nan]", 1), ("True", 0), ("nul", 3), ("nulL", 0),
        ("[tru]", 1), ("fals", 4), ("undefined", 0),
        // strings: unterminated, control characters, escapes
        ("\"abc", 4), ("\"a\tb\"", 2), ("\"a\nb\"", 2), ("\"\u{1}\"", 1), ("\"\u{0}\"", 1), ("\"\u{1F}\"", 1),
        ("\"\\x\"", 1), ("\"ab\\a\"", 3), ("\"\\U0041\"", 1), ("\"\\u12G4\"", 1), ("\"\\u123\"", 1),
        ("\"\\'\"", 1), ("\"\\", 2), ("\"\\u00", 5),
        // unpaired surrogate escapes
        ("\"\\uD800\"", 1), ("\"ab\\uDC00\"", 3), ("\"\\uDFFF\"", 1), ("\"\\uD800\\u0041\"", 1),
        ("\"\\uD800\\n\"", 1), ("\"\\uD800x\"", 1), ("\"\\uD800\\uD800\"", 1), ("[\"\\ud83d\"]", 2),
        ("\"\\uD800\\uZZZZ\"", 7),
        // whitespace that JSON does not allow
        ("\u{C}1", 0), ("\u{B}1", 0), ("1\u{C}", 1), ("\u{A0}1", 0),
        // depth (default 256 is far away; see depth tests)
    ]

    @Test(arguments: rejections)
    func strictRejection(_ text: String, _ offset: Int) {
        let error = parseError(text)
        #expect(error?.offset == offset, "\(text.debugDescription): \(String(describing: error))")
    }

    static let invalidUTF8: [([UInt8], Int)] = [
        ([0x22, 0xC3, 0x28, 0x22], 1),  // bad continuation
        ([0x22, 0xC0, 0xAF, 0x22], 1),  // overlong "/"
        ([0x22, 0xC1, 0xBF, 0x22], 1),  // overlong
        ([0x22, 0xE0, 0x80, 0xAF, 0x22], 1),  // overlong 3-byte
        ([0x22, 0xF0, 0x80, 0x80, 0xAF, 0x22], 1),  // overlong 4-byte
        ([0x22, 0xED, 0xA0, 0x80, 0x22], 1),  // encoded surrogate U+D800
        ([0x22, 0xED, 0xBF, 0xBF, 0x22], 1),  // encoded surrogate U+DFFF
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1),  // U+110000
        ([0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], 1),
        ([0x22, 0xFF, 0x22], 1),
        ([0x22, 0x80, 0x22], 1),  // lone continuation
        ([0x22, 0x61, 0x62, 0xBF, 0x22], 3),
        ([0x22, 0xE2, 0x82, 0x22], 1),  // truncated sequence followed by quote
        ([0x22, 0xF0, 0x9F, 0x98, 0x41, 0x22], 1),
        ([0xEF, 0xBB, 0xBF, 0x31], 0),  // BOM is not allowed
        ([0x5B, 0xC3, 0xA9, 0x5D], 1),  // non-ASCII outside strings
        ([0x31, 0x00], 1),  // NUL after value
    ]

    @Test(arguments: invalidUTF8)
    func invalidUTF8Rejected(_ bytes: [UInt8], _ offset: Int) {
        #expect(parseError(bytes)?.offset == offset)
    }

    @Test func validUTF8Boundaries() throws {
        let samples: [String] = ["\u{80}", "\u{7FF}", "\u{800}", "\u{D7FF}", "\u{E000}", "\u{FFFD}", "\u{FFFF}",
                                 "\u{10000}", "\u{10FFFF}"]
        for sample in samples {
            #expect(try parse("\"\(sample)\"") == .string(sample))
        }
    }

    @Test func errorDescription() {
        let error = parseError("[1,]")
        #expect(error?.description.hasPrefix("offset 3: ") == true)
        #expect(JSONParseError(message: "boom", offset: 7).description == "offset 7: boom")
    }

    // MARK: depth

    @Test func depthLimit() throws {
        let ok = String(repeating: "[", count: 256) + String(repeating: "]", count: 256)
        #expect(parseError(ok) == nil)
        let tooDeep = String(repeating: "[", count: 257) + String(repeating: "]", count: 257)
        #expect(parseError(tooDeep)?.offset == 256)
        #expect(parseError("[[1]]", maxDepth: 1)?.offset == 1)
        #expect(parseError("[1]", maxDepth: 1) == nil)
        #expect(parseError("1", maxDepth: 0) == nil)
        #expect(parseError("{}", maxDepth: 0)?.offset == 0)
        let objects = String(repeating: "{\"a\":", count: 300)
        #expect(parseError(objects)?.offset == 256 * 5)
    }

    @Test func depthBombRejectedWithoutCrash() {
        let bomb = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        let error = parseError(bomb)
        #expect(error?.offset == 256)
        #expect(error?.message.contains("deeper") == true)
        let mixed = Array(String(repeating: "[{\"k\":", count: 50_000).utf8)
        #expect(parseError(mixed) != nil)
    }

    @Test func deepNestingIsIterativeNotRecursive() throws {
        // The parser itself uses no machine stack per level; a generous limit still works.
        let depth = 2_000
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        var value = try parse(text, maxDepth: depth)
        var levels = 0
        while case .array(let inner) = value, let first = inner.first {
            value = first
            levels += 1
        }
        #expect(levels == depth - 1)
    }

    // MARK: truncation

    @Test func everyTruncatedPrefixIsRejectedAtItsEnd() throws {
        let document = #"{"name":"Ab\"c\\d\u00e9\ud83d\ude00 é😀","n":[0,-1.5e+10,18446744073709551615,true,false,null],"o":{},"a":[[]],"e":"","k":-0.0}"#
        let bytes = Array(document.utf8)
        #expect(parseError(bytes) == nil)
        for length in 0..<bytes.count {
            let error = parseError(Array(bytes[..<length]))
            #expect(error?.offset == length, "prefix \(length): \(String(describing: error))")
        }
    }

    // MARK: round trips and fuzzing

    @Test func serializeRoundTrip() throws {
        let document = #"{"a":[1,-0.0,1E+2,"x\ny\u0001\"",true,false,null,{"":{}},[]],"é":"😀","dup":1,"dup2":2}"#
        let value = try parse(document)
        let compact = value.serialized()
        #expect(String(decoding: compact, as: UTF8.self)
            == #"{"a":[1,-0.0,1E+2,"x\ny\u0001\"",true,false,null,{"":{}},[]],"é":"😀","dup":1,"dup2":2}"#)
        #expect(try JSONParser.parse(compact) == value)
        let pretty = value.serialized(pretty: true)
        #expect(try JSONParser.parse(pretty) == value)
        #expect(String(decoding: try parse(#"{"a":[1,{}],"b":{"c":null},"d":[]}"#).serialized(pretty: true), as: UTF8.self) == """
            {
              "a": [
                1,
                {}
              ],
              "b": {
                "c": null
              },
              "d": []
            }
            """)
        #expect(try parse("[1,\"x\"]").description == #"[1,"x"]"#)
    }

    @Test func mutationFuzzNeverCrashesAndRoundTrips() throws {
        let seeds = [
            #"{"a":[1,2.5e-3,"s\u00e9\n",true,null,{"b":[]}],"c":"😀é","d":-0}"#,
            #"[[[["deep"]]],{"x":{"y":{"z":[1,2,3]}}},"\ud83d\ude00",12345678901234567890]"#,
            #""just a string with \"escapes\" and \\ backslashes \/""#,
        ]
        let alphabet = Array(#"{}[]:,"\/-+.0123456789eEtrufalsn u"#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xA9, 0xED, 0xF0, 0xFF]
        var rng = SplitMix64(state: 0x5EED)
        var accepted = 0
        for iteration in 0..<20_000 {
            var bytes = Array(seeds[iteration % seeds.count].utf8)
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let position = Int.random(in: 0...bytes.count, using: &rng)
                switch Int.random(in: 0..<4, using: &rng) {
                case 0 where position < bytes.count: bytes[position] = alphabet.randomElement(using: &rng)!
                case 1: bytes.insert(alphabet.randomElement(using: &rng)!, at: position)
                case 2 where position < bytes.count: bytes.remove(at: position)
                default: bytes = Array(bytes[..<position])
                }
            }
            let value: JSONValue
            do {
                value = try JSONParser.parse(bytes)
            } catch {
                #expect(error.offset >= 0 && error.offset <= bytes.count)
                continue
            }
            accepted += 1
            #expect(try JSONParser.parse(value.serialized()) == value)
            #expect(try JSONParser.parse(value.serialized(pretty: true)) == value)
        }
        #expect(accepted > 0)
    }

    @Test func randomBytesNeverCrash() {
        var rng = SplitMix64(state: 42)
        for _ in 0..<5_000 {
            let count = Int.random(in: 0..<64, using: &rng)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if let error = parseError(bytes) {
                #expect(error.offset >= 0 && error.offset <= bytes.count)
            }
        }
    }
}

/// `JSONCursor.attentionMask`: the lowest byte it flags is the first byte of the eight that is
/// `"`, `\`, a control character or >= 0x80 (the byte the string reader must look at), whatever
/// comes after it — checked against a plain byte test on every position of each kind of byte,
/// with ASCII text or more attention bytes around it.
@Suite struct AttentionMaskTests {
    static func firstAttention(_ bytes: [UInt8]) -> Int? {
        bytes.firstIndex { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 || $0 >= 0x80 }
    }

    @Test func theLowestFlaggedByteIsTheFirstThatNeedsALook() {
        let attention: [UInt8] = [0x22, 0x5C, 0x00, 0x1F, 0x0A, 0x80, 0xC3, 0xFF]
        let fillers: [UInt8] = [0x20, 0x41, 0x7E, 0x21, 0x23, 0x5B, 0x5D]
        var random = SystemRandomNumberGenerator()
        for kind in attention {
            for position in 0 ..< 8 {
                for round in 0 ..< 50 {
                    var bytes = (0 ..< 8).map { _ in fillers.randomElement(using: &random)! }
                    bytes[position] = kind
                    // After it, anything (more attention bytes included): only the first counts.
                    if round % 2 == 1 { for k in position + 1 ..< 8 { bytes[k] = (attention + fillers).randomElement(using: &random)! } }
                    let word = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
                    let mask = JSONCursor.attentionMask(word)
                    #expect(mask != 0)
                    #expect(mask.trailingZeroBitCount >> 3 == Self.firstAttention(bytes), "\(bytes)")
                }
            }
        }
        let plain = Array("plain ok".utf8)
        #expect(JSONCursor.attentionMask(plain.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }) == 0)
    }
}

/// `RowReader.number`: a JSON number read where it lies by the C library gives what reading it
/// through a `String` gives — also where the C reader would read on (`0x1p3` after a `0`, which
/// JSON ends at the `0`) or could not be stopped (the number last in the buffer).
@Suite struct RowNumberTests {
    static func read(_ text: String, as type: Double.Type) -> Double? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { buf -> Double? in
            var cursor = JSONCursor(buf)
            guard let number = cursor.number() else { return nil }
            return RowReader.number(number, endsBefore: cursor, strtod, { Double($0) })
        }
    }

    @Test func theCReaderAndTheStringReaderAgree() {
        let cases: [(String, Double)] = [
            ("1.5,", 1.5), ("1.5", 1.5), ("-0.1]", -0.1), ("2.5e-3 ", 0.0025), ("0x1p3]", 0), ("0", 0),
            ("123456789012345678901234567890}", Double("123456789012345678901234567890")!), ("1e308,", 1e308),
            ("4.9406564584124654e-324,", .leastNonzeroMagnitude), ("0.30000000000000004\n", 0.30000000000000004),
        ]
        for (text, expected) in cases {
            #expect(Self.read(text, as: Double.self) == expected, "\(text)")
        }
        let floatBytes = Array("3.4028235e38]".utf8)
        let float = floatBytes.withUnsafeBufferPointer { buf -> Float? in
            var cursor = JSONCursor(buf)
            guard let number = cursor.number() else { return nil }
            return RowReader.number(number, endsBefore: cursor, strtof, { Float($0) })
        }
        #expect(float == Float.greatestFiniteMagnitude)
    }
}
