import JSONCore

import DatastoreKit
import Testing

@Suite("Value wire format")
struct ValueWireTests {
    // MARK: every type, read and written

    @Test func plainJSONTypes() throws {
        #expect(try value(#""Zoë""#) == .string("Zoë"))
        #expect(try value(#""""#) == .string(""))
        #expect(try value("true") == .bool(true))
        #expect(try value("false") == .bool(false))
    }

    @Test func everyPlainNumberIsADouble() throws {
        #expect(try value("1") == .double(1))
        #expect(try value("1.0") == .double(1))
        #expect(try value("2.5") == .double(2.5))
        #expect(try value("-0") == .double(-0.0))
        #expect(try value("1e3") == .double(1000))
        #expect(try value("1E-2") == .double(0.01))
        #expect(try value("9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try value("1e-400") == .double(0))  // rounds to zero like any decimal
    }

    @Test func numbersBeyondTheDoubleRangeAreRefused() {
        let error = valueError("1e400")
        #expect(error?.kind == .invalidValue)
        #expect(error?.path == .root)
        #expect(error?.message.contains("+inf") == true)
    }

    @Test func specialDoubles() throws {
        let nan = try value(#"{"N":"nan"}"#)
        let double: Double? = if case .atom(.double(let v)) = nan { v } else { nil }
        #expect(try #require(double, "not a double").isNaN)
        #expect(nan == .double(.nan))  // NaN equals NaN in the model
        #expect(try value(#"{"N":"+inf"}"#) == .double(.infinity))
        #expect(try value(#"{"N":"-inf"}"#) == .double(-.infinity))
        for bad in ["NaN", "inf", "Infinity", "-nan", "+nan", "", " nan"] {
            let error = valueError(#"{"N":"\#(bad)"}"#)
            #expect(error?.kind == .invalidValue)
            #expect(error?.path.description == "$.N")
        }
    }

    @Test func integers() throws {
        #expect(try value(#"{"I":"0"}"#) == .int(0))
        #expect(try value(#"{"I":"43"}"#) == .int(43))
        #expect(try value(#"{"I":"-1"}"#) == .int(-1))
        #expect(try value(#"{"I":"9223372036854775807"}"#) == .int(.max))
        #expect(try value(#"{"I":"-9223372036854775808"}"#) == .int(.min))
    }

    @Test func nonCanonicalIntegersAreRefused() {
        let cases: [(String, String)] = [
            ("01", "leading zeros"), ("00", "leading zeros"), ("-01", "leading zeros"),
            ("-0", "\"-0\""), ("+1", "'+'"), ("9223372036854775808", "range"),
            ("-9223372036854775809", "range"), ("99999999999999999999999", "range"),
            ("", "no digits"), ("-", "no digits"), ("1.0", "digits"), ("1e3", "digits"), (" 1", "digits"),
            ("0x10", "digits"), ("١", "digits"),
        ]
        for (text, reason) in cases {
            for key in ["I", "T"] {
                let error = valueError(#"{"\#(key)":"\#(text)"}"#)
                #expect(error?.kind == .invalidValue, "\(key) \(text)")
                #expect(error?.path.description == "$.\(key)", "\(key) \(text)")
                #expect(error?.message.contains(reason) == true, "\(key) \(text): \(error?.message ?? "")")
            }
        }
    }

    @Test func wrappedIntegersMustBeStrings() {
        let error = valueError(#"{"I":5}"#)
        #expect(error?.kind == .invalidValue)
        #expect(error?.path.description == "$.I")
        #expect(error?.message == "the I wrapper holds a string, not a number")
        #expect(valueError(#"{"T":null}"#)?.path.description == "$.T")
        #expect(valueError(#"{"B":["AA"]}"#)?.path.description == "$.B")
        #expect(valueError(#"{"N":1}"#)?.path.description == "$.N")
    }

    @Test func dates() throws {
        #expect(try value(#"{"T":"0"}"#) == .date(0))
        #expect(try value(#"{"T":"1376000000123"}"#) == .date(1_376_000_000_123))
        #expect(try value(#"{"T":"-86400000"}"#) == .date(-86_400_000))
        #expect(try value(#"{"T":"-9223372036854775808"}"#) == .date(.min))
    }

    @Test func bytes() throws {
        #expect(try value(#"{"B":"AAEC_w"}"#) == .bytes([0, 1, 2, 255]))
        #expect(try value(#"{"B":""}"#) == .bytes([]))
        #expect(try value(#"{"B":"-_-_"}"#) == .bytes([0xFB, 0xFF, 0xBF]))
        #expect(try value(#"{"B":"AA"}"#) == .bytes([0]))
        #expect(try value(#"{"B":"AAA"}"#) == .bytes([0, 0]))
    }

    @Test func bytesRefuseOtherBase64Forms() {
        let cases: [(String, String)] = [
            ("AAEC/w", "'+' and '/'"), ("+++/", "'+' and '/'"),
            ("AAEC_w==", "padding"), ("AA==", "padding"), ("AAA=", "padding"),
            ("A", "length"), ("AAAAA", "length"),
            ("AA E", "alphabet"), ("AA\\nC", "alphabet"), ("AAé", "alphabet"),
            ("AB", "unused bits"), ("AAB", "unused bits"),
        ]
        for (text, reason) in cases {
            let error = valueError(#"{"B":"\#(text)"}"#)
            #expect(error?.kind == .invalidValue, "\(text)")
            #expect(error?.path.description == "$.B", "\(text)")
            #expect(error?.message.contains(reason) == true, "\(text): \(error?.message ?? "")")
        }
    }

    @Test func lists() throws {
        #expect(try value("[]") == .list([]))
        #expect(try value(#"[{"I":"1"}, "a", 2.5, {"T":"0"}]"#) == .list([.int(1), .string("a"), .double(2.5), .date(0)]))
        #expect(try value(#"[true,{"B":"AA"},{"N":"-inf"}]"#) == .list([.bool(true), .bytes([0]), .double(-.infinity)]))
    }

    @Test func nestedListsAreRefused() {
        let error = valueError(#"["a", [1]]"#)
        #expect(error?.kind == .invalidValue)
        #expect(error?.path.description == "$[1]")
        #expect(error?.message == "lists cannot be nested")
        #expect(valueError("[[]]")?.path.description == "$[0]")
    }

    @Test func nullIsNeverAValue() {
        let error = valueError("null")
        #expect(error?.kind == .invalidValue)
        #expect(error?.path == .root)
        #expect(error?.message.hasPrefix("null is not a datastore value") == true)
        #expect(valueError(#"["a", null]"#)?.path.description == "$[1]")
    }

    @Test func wrappersHaveExactlyOneKnownKey() {
        let two = valueError(#"{"I":"1","T":"2"}"#)
        #expect(two?.kind == .invalidValue)
        #expect(two?.path == .root)
        #expect(two?.message == #"a wrapped value has exactly one key (I, N, T or B); this object has 2: "I", "T""#)
        let twice = JSONValue.object(JSONObject([("I", "1"), ("I", "1")]))  // built in code: the parser refuses it
        #expect(datastoreError { () throws(DatastoreError) in try DatastoreValue(wire: twice) }?.message.contains("has 2") == true)
        #expect(valueError("{}")?.message == "a wrapped value has exactly one key (I, N, T or B); this object has 0")
        let unknown = valueError(#"{"X":"1"}"#)
        #expect(unknown?.message == #"unknown wrapper key "X"; expected I, N, T or B"#)
        #expect(valueError(#"{"i":"1"}"#)?.kind == .invalidValue)
        #expect(valueError(#"[{"I":"1","B":""}]"#)?.path.description == "$[0]")
    }

    // MARK: writing

    @Test func writtenForms() {
        #expect(text("a\"b") == #""a\"b""#)
        #expect(text(true) == "true")
        #expect(text(.int(43)) == #"{"I":"43"}"#)
        #expect(text(.int(.min)) == #"{"I":"-9223372036854775808"}"#)
        #expect(text(.double(1)) == "1.0")
        #expect(text(.double(-0.0)) == "-0.0")
        #expect(text(.double(0.1)) == "0.1")
        #expect(text(.double(1e300)) == "1e+300")
        #expect(text(.double(.nan)) == #"{"N":"nan"}"#)
        #expect(text(.double(.infinity)) == #"{"N":"+inf"}"#)
        #expect(text(.double(-.infinity)) == #"{"N":"-inf"}"#)
        #expect(text(.date(-1)) == #"{"T":"-1"}"#)
        #expect(text(.bytes([0, 1, 2, 255])) == #"{"B":"AAEC_w"}"#)
        #expect(text(.bytes([0xFB, 0xFF])) == #"{"B":"-_8"}"#)
        #expect(text(.bytes([])) == #"{"B":""}"#)
        #expect(text([.int(1), "a", 2.5, .date(0)]) == #"[{"I":"1"},"a",2.5,{"T":"0"}]"#)
        #expect(text(.list([])) == "[]")
    }

    @Test func everyValueRoundTripsAndBothEncodersAgree() throws {
        let values: [DatastoreValue] = [
            "", "Zoë\u{0}\n", true, false, 0, -1, .int(.max), .int(.min), 0.0, -0.0, 1.0, 0.1, .double(.leastNonzeroMagnitude), .double(.greatestFiniteMagnitude),
            .double(.nan), .double(.infinity), .double(-.infinity), .date(0), .date(1_376_000_000_123), .date(.min),
            .bytes([]), .bytes([0]), .bytes([0, 1]), .bytes(Array(0...255)), [],
            [.int(1), .string("x"), .double(.nan), .bytes([9, 9, 9, 9]), .date(-5), .bool(false)],
        ]
        for original in values {
            let streamed = text(original)
            #expect(streamed == original.wire.description, "\(streamed)")
            #expect(try value(streamed) == original, "\(streamed)")
            #expect(try DatastoreValue(wire: original.wire) == original)
        }
    }

    @Test func doubleEqualityIsExact() {
        #expect(DatastoreValue.double(0.0) != .double(-0.0))
        #expect(DatastoreValue.double(.nan) == .double(-.nan))
        #expect(DatastoreValue.int(1) != .double(1))
        #expect(DatastoreValue.int(1) != .date(1))
        #expect(Set<DatastoreAtom>([.double(.nan), .double(.nan)]).count == 1)
    }

    @Test func atomDecoderRefusesLists() throws {
        let error = datastoreError { () throws(DatastoreError) in try DatastoreAtom(wire: json("[1]")) }
        #expect(error?.kind == .invalidValue)
        #expect(try DatastoreAtom(wire: json(#"{"I":"7"}"#)) == .int(7))
    }

    // MARK: paths inside a document

    @Test func errorsNameTheirPlaceInADocument() {
        let document = """
            {"rev":4,"rows":[
            {"tid":"t","rowid":"a","data":{}},
            {"tid":"t","rowid":"b","data":{}},
            {"tid":"t","rowid":"c","data":{}},
            {"tid":"t","rowid":"d","data":{"name":"x","price":{"I":"01"}}}
            ]}
            """
        let error = datastoreError { () throws(DatastoreError) in try SnapshotDocument(parsing: document) }
        #expect(error?.path.description == "$.rows[3].data.price.I")
        #expect(error?.description == #"$.rows[3].data.price.I: "01" is not a canonical 64-bit integer: leading zeros are not allowed"#)

        let multi = #"{"rev":1,"rows":[{"tid":"t","rowid":"a","data":{"price":{"I":"1","N":"nan"}}}]}"#
        #expect(datastoreError { () throws(DatastoreError) in try SnapshotDocument(parsing: multi) }?.path.description
            == "$.rows[0].data.price")
        let nested = #"{"rev":1,"rows":[{"tid":"t","rowid":"a","data":{"first-name":["a",["b"]]}}]}"#
        #expect(datastoreError { () throws(DatastoreError) in try SnapshotDocument(parsing: nested) }?.path.description
            == #"$.rows[0].data["first-name"][1]"#)
        let null = #"{"rev":1,"rows":[{"tid":"t","rowid":"a","data":{"x":null}}]}"#
        #expect(datastoreError { () throws(DatastoreError) in try SnapshotDocument(parsing: null) }?.path.description
            == "$.rows[0].data.x")
    }
}
