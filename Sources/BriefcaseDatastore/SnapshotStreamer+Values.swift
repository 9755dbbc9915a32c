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
    /// record size (Bytes counted the conservative way, as the limit checks count them).
    @inline(__always)
    func writeColumn(_ value: Value?, _ column: StreamColumn, recordID: String, fields: inout Int, size: inout Int,
                     scratch: inout [UInt8], buffer: inout RowBuffer) -> Bool
    {
        switch column.role {
        case .none:
            return value == nil
        case .recordID:
            return mapping.reverse(.string(recordID), type: column.type) == value
        case .field(_, let json):
            guard let value else { return true }
            if !json, let exact = writeFast(value, column, fields: &fields, size: &size, scratch: &scratch, buffer: &buffer) {
                return exact
            }
            guard let mapped = mapping.forward(value, json: json) else { return false }
            startField(column, fields: &fields, buffer: &buffer)
            var writer = JSONWriter(sink: ArraySink(), bufferSize: 1 << 10)
            mapped.write(to: &writer)
            try! writer.flush()  // an ArraySink never fails
            buffer.append(writer.sink.bytes)
            size += DatastoreSize.baseField + mapped.size(.conservative)
            return mapping.reverse(mapped, type: column.type, json: json) == value
        }
    }

    @inline(__always)
    func startField(_ column: StreamColumn, fields: inout Int, buffer: inout RowBuffer) {
        if fields > 0 { buffer.append(",") }
        buffer.append(column.key)
        fields += 1
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
    func writeFast(_ value: Value, _ column: StreamColumn, fields: inout Int, size: inout Int,
                   scratch: inout [UInt8], buffer: inout RowBuffer) -> Bool?
    {
        switch value {
        case .integer(let v):
            switch column.storage {
            case .int8?, .int16?, .int32?, .int64?, .uint8?, .uint16?, .uint32?:
                startField(column, fields: &fields, buffer: &buffer)
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
            startField(column, fields: &fields, buffer: &buffer)
            buffer.append("{\"I\":\"")
            buffer.appendUInt(u)
            buffer.append("\"}")
            size += DatastoreSize.baseField
            return true
        case .boolean(let b):
            guard column.storage == .boolean else { return nil }
            startField(column, fields: &fields, buffer: &buffer)
            buffer.append(b != 0 ? "true" as StaticString : "false")
            size += DatastoreSize.baseField
            return b <= 1
        case .float(let d):
            guard column.storage == .float64 else { return nil }
            startField(column, fields: &fields, buffer: &buffer)
            writeDouble(d, buffer: &buffer)
            size += DatastoreSize.baseField
            return !d.isNaN || d.bitPattern == Double.nan.bitPattern
        case .singleFloat(let f):
            guard column.storage == .float32 else { return nil }
            let d = f.isNaN ? Double.nan : Double(f)
            startField(column, fields: &fields, buffer: &buffer)
            writeDouble(d, buffer: &buffer)
            size += DatastoreSize.baseField
            return Float(d).bitPattern == f.bitPattern
        case .dateTime(let date):
            guard column.storage == .dateTime, let ole = date.millisecondsSinceEpoch else { return nil }
            let ms = ole - ValueMapping.oleToUnix
            startField(column, fields: &fields, buffer: &buffer)
            buffer.append("{\"T\":\"")
            buffer.appendInt(ms)
            buffer.append("\"}")
            size += DatastoreSize.baseField
            return OLEDateTime(oleMilliseconds: ole) == date
        case .currency(let c):
            // Below 10^15 units the double is the correctly rounded quotient (both operands
            // exact) and its shortest text is the amount itself, which reads back exactly.
            guard column.storage == .currency, c.scaled.magnitude < 1_000_000_000_000_000 else { return nil }
            startField(column, fields: &fields, buffer: &buffer)
            writeDouble(Double(c.scaled) / 10_000, buffer: &buffer)
            size += DatastoreSize.baseField
            return true
        case .blob(let b):
            guard column.storage == .blob else { return nil }
            startField(column, fields: &fields, buffer: &buffer)
            buffer.append("{\"B\":")
            b.withUnsafeBufferPointer { buffer.appendURLSafeBase64($0) }
            buffer.append("}")
            size += DatastoreSize.baseField + b.count + (b.count % 3 == 0 ? 0 : 1)
            return true
        case .ansiString(let s):
            guard codePage.isUTF8, column.storage == .ansiString, s.isValidUTF8 else { return nil }
            startField(column, fields: &fields, buffer: &buffer)
            s.withUnsafeBufferPointer { buffer.appendEscaped($0) }
            size += DatastoreSize.baseField + s.count
            return true
        case .guid(let s):
            guard column.storage == .guid, s.count == 36, s.isValidUTF8 else { return nil }
            startField(column, fields: &fields, buffer: &buffer)
            s.withUnsafeBufferPointer { buffer.appendEscaped($0) }
            size += DatastoreSize.baseField + s.count
            return true
        case .wideString(let s):
            guard column.storage == .wideString,
                  s.withUnsafeBufferPointer({ UTF16Text.utf8(of: $0, into: &scratch) }) else { return nil }
            startField(column, fields: &fields, buffer: &buffer)
            scratch.withUnsafeBufferPointer { buffer.appendEscaped($0) }
            size += DatastoreSize.baseField + scratch.count
            return true
        case .decimal(let d):
            // Up to 15 digits the same reasoning as for currencies holds: the double is the
            // correctly rounded quotient, and its shortest text is the decimal's value, which
            // reads back to the same decimal unless this one had trailing fraction zeros.
            guard column.storage == .decimal, d.isCanonical, d.high == 0, d.scale < Self.powersOfTen.count else { return nil }
            let m = UInt64(d.mid) << 32 | UInt64(d.low)
            guard m < 1_000_000_000_000_000, m != 0 || !d.isNegative else { return nil }
            let magnitude = Double(m) / Self.powersOfTen[d.scale]
            startField(column, fields: &fields, buffer: &buffer)
            writeDouble(d.isNegative ? -magnitude : magnitude, buffer: &buffer)
            size += DatastoreSize.baseField
            return m == 0 ? d.scale == 0 : (d.scale == 0 || m % 10 != 0)
        }
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
