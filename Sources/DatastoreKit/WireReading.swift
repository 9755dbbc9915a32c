// Small strict readers shared by the wire decoders.

import JSONCore

enum Wire {
    /// How a JSON value is named in messages.
    static func kindName(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Parses the canonical decimal text of a signed 64-bit integer: `0` or
    /// `-?[1-9][0-9]*` within range. On failure, the reason (for a message).
    static func canonicalInt64(_ text: String) -> Result<Int64, WireReason> {
        var text = text
        return text.withUTF8 { canonicalInt64(utf8: $0) }
    }

    /// The same, of the text's UTF-8 bytes (what the row reader has).
    static func canonicalInt64(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Result<Int64, WireReason> {
        if let value = canonicalInt64Value(bytes) { return .success(value) }
        // Not canonical: why (the steps below find the reason; they accept nothing more).
        var utf8 = bytes[...]
        var negative = false
        if utf8.first == UInt8(ascii: "+") { return .failure(WireReason("a '+' sign is not allowed")) }
        if utf8.first == UInt8(ascii: "-") {
            negative = true
            utf8 = utf8.dropFirst()
        }
        guard let first = utf8.first else { return .failure(WireReason("no digits")) }
        var magnitude: UInt64 = 0
        for byte in utf8 {
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { return .failure(WireReason("only decimal digits (after an optional '-') are allowed")) }
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit))
            if overflow1 || overflow2 { return .failure(WireReason("out of the signed 64-bit range")) }
            magnitude = sum
        }
        if first == UInt8(ascii: "0") {
            if utf8.count > 1 { return .failure(WireReason("leading zeros are not allowed")) }
            if negative { return .failure(WireReason("\"-0\" is not allowed; zero is \"0\"")) }
            return .success(0)
        }
        if negative {
            if magnitude <= UInt64(Int64.max) { return .success(-Int64(magnitude)) }
            if magnitude == UInt64(Int64.max) + 1 { return .success(Int64.min) }
            return .failure(WireReason("out of the signed 64-bit range"))
        }
        if magnitude <= UInt64(Int64.max) { return .success(Int64(magnitude)) }
        return .failure(WireReason("out of the signed 64-bit range"))
    }

    /// The value of canonical int64 text (`0` or `-?[1-9][0-9]*` within the range); nil for
    /// any other. At most 19 digits, so the magnitude cannot overflow 64 bits.
    static func canonicalInt64Value(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        let n = bytes.count
        let negative = n > 0 && bytes[0] == UInt8(ascii: "-")
        var i = negative ? 1 : 0
        guard i < n else { return nil }
        if bytes[i] == UInt8(ascii: "0") { return n == 1 ? 0 : nil }
        guard n &- i <= 19 else { return nil }
        var magnitude: UInt64 = 0
        while i < n {
            let digit = bytes[i] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            magnitude = magnitude &* 10 &+ UInt64(digit)
            i &+= 1
        }
        if negative { return magnitude <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    /// A non-negative integer written as plain digits (`0` or `[1-9][0-9]*`, no sign, fraction or
    /// exponent) that fits an `Int`.
    static func nonNegativeInt(_ value: JSONValue) -> Int? {
        guard case .number(let text) = value, let first = text.utf8.first,
              first != UInt8(ascii: "-"), let v = value.int64Value, v >= 0 else { return nil }
        return Int(exactly: v)
    }

    /// Reads a required non-negative integer member, with errors at `path`.
    static func nonNegativeInt(_ value: JSONValue, what: String, at path: JSONPath) throws(DatastoreError) -> Int {
        if let v = nonNegativeInt(value) { return v }
        if case .number(let text) = value {
            throw DatastoreError(.invalidStructure,
                "\(what) must be a non-negative integer written with digits only (got \(text))", at: path)
        }
        throw DatastoreError(.invalidStructure, "\(what) must be a non-negative integer, not \(kindName(value))", at: path)
    }

    /// The members of an object, refusing duplicate keys.
    static func object(_ value: JSONValue, what: String, at path: JSONPath) throws(DatastoreError) -> JSONObject {
        guard case .object(let object) = value else {
            throw DatastoreError(.invalidStructure, "\(what) must be an object, not \(kindName(value))", at: path)
        }
        if let duplicate = object.firstDuplicateKey {
            throw DatastoreError(.invalidStructure, "\(what) has the key \(JSONPath.quoted(duplicate)) twice", at: path)
        }
        return object
    }

    static func array(_ value: JSONValue, what: String, at path: JSONPath) throws(DatastoreError) -> [JSONValue] {
        guard case .array(let array) = value else {
            throw DatastoreError(.invalidStructure, "\(what) must be an array, not \(kindName(value))", at: path)
        }
        return array
    }

    static func string(_ value: JSONValue, what: String, at path: JSONPath) throws(DatastoreError) -> String {
        guard case .string(let string) = value else {
            throw DatastoreError(.invalidStructure, "\(what) must be a string, not \(kindName(value))", at: path)
        }
        return string
    }

    /// Checks that `object` has exactly the keys in `required` (any order) and no others.
    static func requireKeys(_ object: JSONObject, _ required: [String], what: String, at path: JSONPath)
        throws(DatastoreError)
    {
        for key in required where object[key] == nil {
            throw DatastoreError(.invalidStructure, "\(what) has no \(JSONPath.quoted(key))", at: path)
        }
        for member in object.members where !required.contains(member.key) {
            throw DatastoreError(.invalidStructure,
                "\(what) has an unknown key \(JSONPath.quoted(member.key)) (allowed: \(required.joined(separator: ", ")))",
                at: path.appending(key: member.key))
        }
    }
}

struct WireReason: Error {
    let text: String
    init(_ text: String) { self.text = text }
}
