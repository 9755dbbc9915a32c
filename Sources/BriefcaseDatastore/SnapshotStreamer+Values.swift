// One value of a streamed row: its field written straight into the row buffer, and whether the
// datastore gives it back exactly (Spec/datastore-mapping.md §4.2). The common values take a
// path without a DatastoreValue or a String; the others take ValueMapping's, which is the
// reference (same bytes, same answer).

import JSONCore
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit

extension SnapshotStreamer {
    /// Writes the field of one column (if it has one) and tells whether the value comes back
    /// exactly from the datastore (else its exact form goes into `exact`). `size` gathers the
    /// record size (Bytes counted the conservative way, as the limit checks count them); a field
    /// written adds one to `fields`. `put`: as an update's operation, `"fid":["P",value]`.
    @inline(__always)
    func writeColumn(_ value: Value?, _ column: StreamColumn, put: Bool = false, recordID: String, fields: inout Int,
                     size: inout Int, scratch: inout [UInt8], buffer: inout RowBuffer) -> Bool
    {
        switch column.role {
        case .none:
            return value == nil
        case .recordID:
            return mapping.reverse(.string(recordID), type: column.type) == value
        case .field(_, let json):
            guard let value else { return true }
            let exact: Bool
            if !json, let fast = writeFast(value, column, put: put, fields: &fields, size: &size, scratch: &scratch, buffer: &buffer) {
                exact = fast
            } else {
                guard let mapped = mapping.forward(value, json: json) else { return false }
                startField(column, put: put, fields: &fields, buffer: &buffer)
                var writer = JSONWriter(sink: ArraySink(), bufferSize: 1 << 10)
                mapped.write(to: &writer)
                try! writer.flush()  // an ArraySink never fails
                buffer.append(writer.sink.bytes)
                size += DatastoreSize.baseField + mapped.size(.conservative)
                exact = mapping.reverse(mapped, type: column.type, json: json) == value
            }
            if put { buffer.append("]") }
            return exact
        }
    }

    @inline(__always)
    func startField(_ column: StreamColumn, put: Bool, fields: inout Int, buffer: inout RowBuffer) {
        if fields > 0 { buffer.append(",") }
        buffer.append(put ? column.putKey : column.key)
        fields += 1
    }

    /// 100 + the size of the datastore form of `value` (Bytes counted the conservative way), or
    /// nil when it has none: what `forward(value).size` gives, without building the form for the
    /// common values (those `writeFast` writes).
    func fieldSize(_ value: Value, json: Bool, scratch: inout [UInt8]) -> Int? {
        if !json {
            switch value {
            case .integer, .largeUInt, .boolean, .float, .singleFloat:
                return DatastoreSize.baseField
            case .dateTime(let date):
                return date.millisecondsSinceEpoch == nil ? nil : DatastoreSize.baseField
            case .currency(let c) where Self.double(c) != nil:
                return DatastoreSize.baseField
            case .decimal(let d) where Self.double(d) != nil:
                return DatastoreSize.baseField
            case .wideString(let s) where s.withUnsafeBufferPointer({ UTF16Text.utf8(of: $0, into: &scratch) }):
                return DatastoreSize.baseField + scratch.count
            case .blob(let b):
                return DatastoreSize.baseField + b.count + (b.count % 3 == 0 ? 0 : 1)
            case .ansiString(let s) where codePage.isUTF8 && s.isValidUTF8:
                return DatastoreSize.baseField + s.count
            case .guid(let s) where s.isValidUTF8:
                return DatastoreSize.baseField + s.count
            default:
                break
            }
        }
        return mapping.forward(value, json: json).map { DatastoreSize.baseField + $0.size(.conservative) }
    }

    /// Hands the rows written so far on, and empties `buffer`.
    func emitRows(_ buffer: inout RowBuffer) throws(BriefcaseError) {
        guard buffer.count > 0 else { return }
        let going = emit(buffer.bytes)
        buffer.count = 0
        if !going { throw BriefcaseError(.io, "the output failed") }
    }

    /// The common values, written without a DatastoreValue or a String: whether the value is
    /// exact, or nil to take the general path (which gives the same bytes, slowly).
    @inline(__always)
    func writeFast(_ value: Value, _ column: StreamColumn, put: Bool, fields: inout Int, size: inout Int,
                   scratch: inout [UInt8], buffer: inout RowBuffer) -> Bool?
    {
        switch value {
        case .integer(let v):
            switch column.storage {
            case .int8?, .int16?, .int32?, .int64?, .uint8?, .uint16?, .uint32?:
                startField(column, put: put, fields: &fields, buffer: &buffer)
                buffer.append("{\"I\":\"")
                buffer.appendInt(v)
                buffer.append("\"}")
                size += DatastoreSize.baseField
                return value.fits(column.storage!)
            default:
                return nil
            }
        case .largeUInt(let u):
            guard column.storage == .uint64, u <= UInt64(Int64.max) else { return nil }
            startField(column, put: put, fields: &fields, buffer: &buffer)
            buffer.append("{\"I\":\"")
            buffer.appendUInt(u)
            buffer.append("\"}")
            size += DatastoreSize.baseField
            return true
        case .boolean(let b):
            guard column.storage == .boolean else { return nil }
            startField(column, put: put, fields: &fields, buffer: &buffer)
            buffer.append(b != 0 ? "true" as StaticString : "false")
            size += DatastoreSize.baseField
            return b <= 1
        case .float(let d):
            guard column.storage == .float64 else { return nil }
            startField(column, put: put, fields: &fields, buffer: &buffer)
            writeDouble(d, buffer: &buffer)
            size += DatastoreSize.baseField
            return !d.isNaN || d.bitPattern == Double.nan.bitPattern
        case .singleFloat(let f):
            guard column.storage == .float32 else { return nil }
            let d = f.isNaN ? Double.nan : Double(f)
            startField(column, put: put, fields: &fields, buffer: &buffer)
            writeDouble(d, buffer: &buffer)
            size += DatastoreSize.baseField
            return Float(d).bitPattern == f.bitPattern
        case .dateTime(let date):
            guard column.storage == .dateTime, let ole = date.millisecondsSinceEpoch else { return nil }
            let ms = ole - ValueMapping.oleToUnix
            startField(column, put: put, fields: &fields, buffer: &buffer)
            buffer.append("{\"T\":\"")
            buffer.appendInt(ms)
            buffer.append("\"}")
            size += DatastoreSize.baseField
            return OLEDateTime(oleMilliseconds: ole) == date
        case .currency(let c):
            guard column.storage == .currency, Self.double(c) != nil else { return nil }
            startField(column, put: put, fields: &fields, buffer: &buffer)
            buffer.appendCurrencyDouble(c.scaled)
            size += DatastoreSize.baseField
            return true
        case .blob(let b):
            guard column.storage == .blob else { return nil }
            startField(column, put: put, fields: &fields, buffer: &buffer)
            buffer.append("{\"B\":")
            b.withUnsafeBufferPointer { buffer.appendURLSafeBase64($0) }
            buffer.append("}")
            size += DatastoreSize.baseField + b.count + (b.count % 3 == 0 ? 0 : 1)
            return true
        case .ansiString(let s):
            guard codePage.isUTF8, column.storage == .ansiString, s.isValidUTF8 else { return nil }
            startField(column, put: put, fields: &fields, buffer: &buffer)
            s.withUnsafeBufferPointer { buffer.appendEscaped($0) }
            size += DatastoreSize.baseField + s.count
            return true
        case .guid(let s):
            guard column.storage == .guid, s.count == 36, s.isValidUTF8 else { return nil }
            startField(column, put: put, fields: &fields, buffer: &buffer)
            s.withUnsafeBufferPointer { buffer.appendEscaped($0) }
            size += DatastoreSize.baseField + s.count
            return true
        case .wideString(let s):
            guard column.storage == .wideString,
                  s.withUnsafeBufferPointer({ UTF16Text.utf8(of: $0, into: &scratch) }) else { return nil }
            startField(column, put: put, fields: &fields, buffer: &buffer)
            scratch.withUnsafeBufferPointer { buffer.appendEscaped($0) }
            size += DatastoreSize.baseField + scratch.count
            return true
        case .decimal(let d):
            guard column.storage == .decimal, let double = Self.double(d) else { return nil }
            startField(column, put: put, fields: &fields, buffer: &buffer)
            writeDouble(double, buffer: &buffer)
            size += DatastoreSize.baseField
            // It reads back to the same decimal unless this one had trailing fraction zeros.
            let m = UInt64(d.mid) << 32 | UInt64(d.low)
            return m == 0 ? d.scale == 0 : (d.scale == 0 || m % 10 != 0)
        }
    }

    /// The double of a currency below 10^15 units: the correctly rounded quotient (both operands
    /// exact), whose shortest text is the amount itself, which reads back exactly. Nil for the
    /// others (`ValueMapping.forward` maps them).
    @inline(__always)
    static func double(_ c: Currency) -> Double? {
        c.scaled.magnitude < 1_000_000_000_000_000 ? Double(c.scaled) / 10_000 : nil
    }

    /// The double of a canonical decimal of up to 15 digits (the same reasoning as for
    /// currencies); nil for the others, and for -0 (`ValueMapping.forward` maps them).
    @inline(__always)
    static func double(_ d: Decimal96) -> Double? {
        guard d.isCanonical, d.high == 0, d.scale < powersOfTen.count else { return nil }
        let m = UInt64(d.mid) << 32 | UInt64(d.low)
        guard m < 1_000_000_000_000_000, m != 0 || !d.isNegative else { return nil }
        let magnitude = Double(m) / powersOfTen[d.scale]
        return d.isNegative ? -magnitude : magnitude
    }

    /// 10^0 … 10^22, each exactly a double.
    static let powersOfTen: [Double] = (0...22).map { exponent in (0..<exponent).reduce(1.0) { value, _ in value * 10 } }

    /// A double as `DatastoreAtom.double` writes it.
    @inline(__always)
    func writeDouble(_ d: Double, buffer: inout RowBuffer) {
        if d.isNaN {
            buffer.append("{\"N\":\"nan\"}")
        } else if d.isInfinite {
            buffer.append(d < 0 ? "{\"N\":\"-inf\"}" as StaticString : "{\"N\":\"+inf\"}")
        } else {
            buffer.appendDouble(d)
        }
    }
}
