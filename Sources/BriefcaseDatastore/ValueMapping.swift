// Briefcase values ↔ datastore values (Spec/datastore-mapping.md §4, the type mapping table).
//
// `forward` gives the datastore value of a briefcase value (nil when there is none, e.g. a NaN
// DateTime); `reverse` gives the briefcase value of a datastore value in a column of a given
// type (nil when the column cannot hold it). A value is *exact* when reverse(forward(v)) == v,
// bit for bit; every other value also keeps its exact form in the document's `briefcase` member.

import JSONCore
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit

/// What a column (or a logged field) is in the datastore.
enum ColumnRole: Equatable, Sendable {
    /// A field of the record, named `id`. `json`: the column's text is the field's value in the
    /// wire encoding (lists, mixed types), not a string.
    case field(String, json: Bool)
    /// The column holds the record id.
    case recordID
    /// Not in the datastore.
    case none

    var fieldID: String? {
        if case .field(let id, _) = self { return id }
        return nil
    }
}

struct ValueMapping: Sendable {
    let codePage: CodePage

    /// 1899-12-30 (the OLE epoch) to 1970-01-01 in milliseconds.
    static let oleToUnix: Int64 = 25_569 * 86_400_000

    // MARK: forward

    func forward(_ value: Value, json: Bool = false) -> DatastoreValue? {
        switch value {
        case .ansiString(let s):
            return text(codePage.decodeReversibly(s) ?? codePage.decodeForDisplay(s), json: json)
        case .wideString(let s):
            return text(WideText.decode(s) ?? Self.lossyWide(s), json: json)
        case .dateTime(let d):
            guard let ole = d.millisecondsSinceEpoch else { return nil }
            return .date(ole - Self.oleToUnix)
        case .float(let d):
            return .double(d.isNaN ? .nan : d)
        case .singleFloat(let f):
            return .double(f.isNaN ? .nan : Double(f))
        case .currency(let c):
            return Double(c.description).map { .double($0) }
        case .integer(let i):
            return .int(i)
        case .largeUInt(let u):
            return u <= UInt64(Int64.max) ? .int(Int64(u)) : .double(Double(u))
        case .boolean(let b):
            return .bool(b != 0)
        case .blob(let s):
            return .bytes(Array(s.bytes))
        case .guid(let s):
            return .string(String(decoding: s.bytes, as: UTF8.self))
        case .decimal(let d):
            return Double(d.description).map { .double($0) }
        }
    }

    private func text(_ text: String, json: Bool) -> DatastoreValue {
        if json, let parsed = try? JSONParser.parse(text), let value = try? DatastoreValue(wire: parsed) {
            return value
        }
        return .string(text)
    }

    static func lossyWide(_ s: ByteString) -> String {
        var units: [UInt16] = []
        var i = s.bytes.startIndex
        while i + 1 < s.bytes.endIndex {
            units.append(UInt16(s.bytes[i]) | UInt16(s.bytes[i + 1]) << 8)
            i += 2
        }
        return String(decoding: units, as: UTF16.self)
    }

    // MARK: reverse

    func reverse(_ value: DatastoreValue, type: DataType, json: Bool = false) -> Value? {
        guard let storage = type.storage else { return nil }
        if json, storage == .ansiString || storage == .wideString {
            return string(value.wire.description, storage: storage)
        }
        guard case .atom(let atom) = value else { return nil }
        switch (storage, atom) {
        case (.ansiString, .string(let s)), (.wideString, .string(let s)):
            return string(s, storage: storage)
        case (.blob, .bytes(let b)):
            return .blob(ByteString(b))
        case (.guid, .string(let s)):
            let bytes = ByteString(utf8: s)
            return bytes.count == 36 ? .guid(bytes) : nil
        case (.int8, .int(let v)), (.int16, .int(let v)), (.int32, .int(let v)), (.int64, .int(let v)),
             (.uint8, .int(let v)), (.uint16, .int(let v)), (.uint32, .int(let v)):
            let result = Value.integer(v)
            return result.fits(storage) ? result : nil
        case (.uint64, .int(let v)):
            return v >= 0 ? .largeUInt(UInt64(v)) : nil
        case (.uint64, .double(let d)):
            guard d >= 0, d < 18_446_744_073_709_551_616.0, d == d.rounded(.towardZero) else { return nil }
            return .largeUInt(UInt64(d))
        case (.boolean, .bool(let b)):
            return .boolean(b ? 1 : 0)
        case (.currency, .double(let d)):
            return Self.withDecimalText(d) { Currency(utf8: $0) }.map { .currency($0) }
        case (.currency, .int(let v)):
            return Currency(String(v)).map { .currency($0) }
        case (.decimal, .double(let d)):
            return Self.withDecimalText(d) { Decimal96(utf8: $0) }.map { .decimal($0) }
        case (.decimal, .int(let v)):
            return Decimal96(String(v)).map { .decimal($0) }
        case (.float64, .double(let d)):
            return .float(d)
        case (.float32, .double(let d)):
            // Beyond the 32-bit range (1e39), a Float is infinity: not the value given.
            return d.isFinite && !Float(d).isFinite ? nil : .singleFloat(Float(d))
        case (.dateTime, .date(let ms)):
            let (ole, overflow) = ms.addingReportingOverflow(Self.oleToUnix)
            return overflow ? nil : .dateTime(OLEDateTime(oleMilliseconds: ole))
        default:
            return nil
        }
    }

    /// `reverse(.string(text), type:)` of a string given as well-formed UTF-8 (the row reader's
    /// plain text): the text columns take the bytes without making a `String`.
    func reverse(utf8 text: UnsafeBufferPointer<UInt8>, type: DataType) -> Value? {
        switch type.storage {
        case .ansiString?: return codePage.encode(utf8: text).map { .ansiString($0) }
        case .wideString?: return .wideString(WideText.encode(utf8: text))
        case .guid?: return text.count == 36 ? .guid(ByteString(text)) : nil
        default: return reverse(.string(String(decoding: text, as: UTF8.self)), type: type)
        }
    }

    private func string(_ s: String, storage: ValueStorage) -> Value? {
        if storage == .wideString { return .wideString(WideText.encode(s)) }
        return codePage.encode(s).map { .ansiString($0) }
    }

    /// `[-]digits[.digits]` of a finite double's shortest round-trip text, without exponent,
    /// trailing fraction zeros or a `.0`: 1.5 → `1.5`, 1e-05 → `0.00001`, 1e+16 →
    /// `10000000000000000`, -0.0 → `-0`.
    static func decimalText(_ d: Double) -> String? {
        withDecimalText(d) { String(decoding: $0, as: UTF8.self) }
    }

    /// `body` of `decimalText(d)`'s UTF-8 bytes, made in a buffer on the stack from the bytes of
    /// `d.description` (no string but that one, which is small): Currency and Decimal columns read
    /// every double of the datastore this way.
    static func withDecimalText<R>(_ d: Double, _ body: (UnsafeBufferPointer<UInt8>) -> R?) -> R? {
        guard d.isFinite else { return nil }
        var shortest = d.description
        return shortest.withUTF8 { text -> R? in
            // At most 17 digits, moved by an exponent of at most 324 either way.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 400) { out -> R? in
                var i = 0
                var count = 0
                if text.first == UInt8(ascii: "-") {
                    out[0] = UInt8(ascii: "-")
                    count = 1
                    i = 1
                }
                // The mantissa's digits without its point, where the point was, and the exponent.
                let digitsStart = count
                var point: Int?
                var exponent = 0
                while i < text.count {
                    let byte = text[i]
                    if byte == UInt8(ascii: ".") {
                        point = count - digitsStart
                    } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                        guard let value = Int(String(decoding: UnsafeBufferPointer(rebasing: text[(i + 1)...]), as: UTF8.self)) else {
                            return nil
                        }
                        exponent = value
                        break
                    } else {
                        out[count] = byte
                        count += 1
                    }
                    i += 1
                }
                var digitCount = count - digitsStart
                var at = (point ?? digitCount) + exponent
                if at <= 0 {
                    // Zeros before the digits: one for the integer part, the rest of the fraction.
                    let zeros = 1 - at
                    move(out, from: digitsStart, to: digitsStart + zeros, count: digitCount)
                    (out.baseAddress! + digitsStart).update(repeating: UInt8(ascii: "0"), count: zeros)
                    digitCount += zeros
                    at = 1
                }
                if at > digitCount {
                    (out.baseAddress! + digitsStart + digitCount).update(repeating: UInt8(ascii: "0"), count: at - digitCount)
                    digitCount = at
                }
                // Leading zeros of the integer part (one kept), trailing zeros of the fraction.
                var first = digitsStart
                while first < digitsStart + at - 1 && out[first] == UInt8(ascii: "0") { first += 1 }
                var last = digitsStart + digitCount
                while last > digitsStart + at && out[last - 1] == UInt8(ascii: "0") { last -= 1 }
                if first > digitsStart {
                    let moved = digitsStart + at - first
                    move(out, from: first, to: digitsStart, count: moved)
                    let fraction = last - (digitsStart + at)
                    move(out, from: digitsStart + at, to: digitsStart + moved, count: fraction)
                    at = moved
                    last = digitsStart + moved + fraction
                }
                var end = last
                if last > digitsStart + at {
                    // The point goes in: the fraction moves one to the right.
                    let fraction = last - (digitsStart + at)
                    move(out, from: digitsStart + at, to: digitsStart + at + 1, count: fraction)
                    out[digitsStart + at] = UInt8(ascii: ".")
                    end = last + 1
                }
                return body(UnsafeBufferPointer(rebasing: out[..<end]))
            }
        }
    }

    /// Moves `count` bytes of `buffer` within it, the two places overlapping or not.
    private static func move(_ buffer: UnsafeMutableBufferPointer<UInt8>, from source: Int, to target: Int, count: Int) {
        if target < source {
            for k in 0..<count { buffer[target + k] = buffer[source + k] }
        } else {
            for k in stride(from: count - 1, through: 0, by: -1) { buffer[target + k] = buffer[source + k] }
        }
    }

    // MARK: records

    /// The row a record gives back (before exact forms are applied): each column's field
    /// reversed, the record id in a `.recordID` column, NULL elsewhere.
    func row(of record: DatastoreRecord, recordID: String, roles: [ColumnRole], types: [DataType]) -> Row {
        roles.enumerated().map { column, role in
            switch role {
            case .field(let id, let json): return record[id].flatMap { reverse($0, type: types[column], json: json) }
            case .recordID: return reverse(.string(recordID), type: types[column])
            case .none: return nil
            }
        }
    }

    /// The new values a datastore change gives back for logged fields with `roles` and
    /// `types`: an insert's fields, an update's `P` operands (the record id in a `.recordID`
    /// field of an insert or update), NULL elsewhere.
    func newValues(of change: DatastoreChange?, roles: [ColumnRole], types: [DataType]) -> [Value?] {
        roles.enumerated().map { i, role in
            guard let change else { return nil }
            switch (role, change) {
            case (.recordID, .insert), (.recordID, .update):
                return reverse(.string(change.recordID), type: types[i])
            case (.field(let id, let json), .insert(_, _, let fields)):
                return fields[id].flatMap { reverse($0, type: types[i], json: json) }
            case (.field(let id, let json), .update(_, _, let updates)):
                guard let update = updates.last(where: { $0.field == id }), case .put(let value) = update.operation else {
                    return nil
                }
                return reverse(value, type: types[i], json: json)
            default:
                return nil
            }
        }
    }
}
