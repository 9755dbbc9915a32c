import BriefcaseKit
import Foundation

/// The Swift types a field value reads as and is written from (Spec/records-api.md §3):
/// integers, `Double`, `Float`, exact `Decimal`, `Date`, `UUID`, `Data`, `String`, `Bool`.
public protocol FieldValue: Sendable {}

extension Int64: FieldValue {}
extension Int: FieldValue {}
extension Int32: FieldValue {}
extension Int16: FieldValue {}
extension Int8: FieldValue {}
extension UInt64: FieldValue {}
extension UInt: FieldValue {}
extension UInt32: FieldValue {}
extension UInt16: FieldValue {}
extension UInt8: FieldValue {}
extension Double: FieldValue {}
extension Float: FieldValue {}
extension Decimal: FieldValue {}
extension Date: FieldValue {}
extension UUID: FieldValue {}
extension Data: FieldValue {}
extension String: FieldValue {}
extension Bool: FieldValue {}

/// The one place values cross between Data Abstract types and Swift types, both ways: what
/// `Record.value(_:as:)`, the row `Decoder` and the row `Encoder` all use.
enum FieldConversion {
    /// The locale decimal text is read in (made once: making one for every value was most of
    /// reading a decimal).
    private static let posix = Locale(identifier: "en_US_POSIX")

    /// `value` of `field` as a `T`, exactly, or a `typeMismatch` naming the field.
    static func read<T>(_ value: Value, as type: T.Type, field: RecordField, codePage: CodePage) throws(RecordError) -> T {
        func mismatch(_ why: String = "") -> RecordError {
            RecordError(.typeMismatch, "a \(field.typeName) value cannot be read as \(T.self)\(why)", field: field.name)
        }
        if let integerType = type as? any FixedWidthInteger.Type {
            guard let result = integer(value, as: integerType) else {
                if case .integer = value { throw mismatch(": \(value) is out of its range") }
                if case .largeUInt = value { throw mismatch(": \(value) is out of its range") }
                throw mismatch()
            }
            return result as! T
        }
        switch value {
        case .float(let double):
            if T.self == Double.self { return double as! T }
            if T.self == Float.self, let float = Float(exactly: double) ?? (double.isNaN ? Float.nan : nil) { return float as! T }
        case .singleFloat(let float):
            if T.self == Float.self { return float as! T }
            if T.self == Double.self { return Double(float) as! T }
        case .decimal(let decimal):
            if T.self == Decimal.self {
                guard decimal.isCanonical, let result = Decimal(string: decimal.description, locale: posix) else {
                    throw mismatch(": \(decimal) is not a canonical .NET decimal")
                }
                return result as! T
            }
        case .currency(let currency):
            if T.self == Decimal.self, let result = Decimal(string: currency.description, locale: posix) { return result as! T }
        case .dateTime(let ole):
            if T.self == Date.self {
                guard let date = ole.date else { throw mismatch(": \(ole.value) is no date of years 1–9999") }
                return date as! T
            }
        case .guid(let bytes):
            if T.self == UUID.self {
                guard let text = bytes.utf8String, let uuid = UUID(uuidString: text) else { throw mismatch(": '\(bytes)' is not a GUID") }
                return uuid as! T
            }
            if T.self == String.self, let text = bytes.utf8String { return text as! T }
        case .blob(let bytes):
            if T.self == Data.self { return Data(bytes.bytes) as! T }
        case .ansiString(let bytes):
            if T.self == String.self {
                guard let text = codePage.decode(bytes) else { throw mismatch(": its bytes are not valid \(codePage.name)") }
                return text as! T
            }
        case .wideString(let bytes):
            if T.self == String.self {
                guard let text = WideText.decode(bytes) else { throw mismatch(": its bytes are not valid UTF-16") }
                return text as! T
            }
        case .boolean(let byte):
            if T.self == Bool.self { return (byte != 0) as! T }
        case .integer, .largeUInt:
            break
        }
        throw mismatch()
    }

    private static func integer<I: FixedWidthInteger>(_ value: Value, as type: I.Type) -> I? {
        switch value {
        case .integer(let v): return I(exactly: v)
        case .largeUInt(let v): return I(exactly: v)
        default: return nil
        }
    }

    /// The value `field` stores for the Swift value `swift`, or `cannotStore` (`unsupportedValue`
    /// for a type that maps to no field type) naming the field. Nothing is rounded or cut: a value
    /// the field cannot hold as given is refused; a `Date` is stored to the millisecond (as .NET's
    /// `ToOADate`, `OLEDateTime(date:)`).
    static func store(_ swift: any FieldValue, in field: RecordField, codePage: CodePage) throws(RecordError) -> Value {
        func refuse(_ why: String = "") -> RecordError {
            RecordError(.cannotStore, "a \(field.typeName) field cannot store the \(type(of: swift)) \(swift)\(why)", field: field.name)
        }
        guard let storage = field.type.storage else { throw refuse(": values of its type are not supported") }
        let stored: Value?
        switch swift {
        case let bool as Bool:
            stored = storage == .boolean ? .bool(bool) : nil
        case let integer as any FixedWidthInteger:
            stored = storeInteger(integer, storage)
        case let double as Double:
            switch storage {
            case .float64: stored = .float(double)
            case .float32: stored = Float(exactly: double).map(Value.singleFloat) ?? (double.isNaN ? .singleFloat(.nan) : nil)
            default: stored = nil
            }
        case let float as Float:
            stored = storage == .float32 ? .singleFloat(float) : storage == .float64 ? .float(Double(float)) : nil
        case let decimal as Decimal:
            let text = decimal.isFinite ? plainText(decimal) : ""
            switch storage {
            case .decimal: stored = Decimal96(text).flatMap { $0.scale <= 28 ? Value.decimal($0) : nil }
            case .currency: stored = Currency(text).map(Value.currency)
            default: stored = nil
            }
        case let date as Date:
            stored = storage == .dateTime ? .dateTime(OLEDateTime(date: date)) : nil
        case let uuid as UUID:
            stored = storage == .guid ? .guid(ByteString(utf8: uuid.uuidString)) : nil
        case let data as Data:
            stored = storage == .blob ? .blob(ByteString([UInt8](data))) : nil
        case let text as String:
            switch storage {
            case .wideString: stored = .wide(text)
            case .ansiString:
                guard let bytes = codePage.encode(text) else { throw refuse(": it has characters \(codePage.name) cannot write") }
                stored = .ansiString(bytes)
            case .guid: stored = UUID(uuidString: text) != nil ? .guid(ByteString(utf8: text)) : nil
            default: stored = nil
            }
        default:
            throw RecordError(.unsupportedValue, "\(type(of: swift)) values map to no field type", field: field.name)
        }
        guard let stored, stored.fits(storage) else { throw refuse() }
        return stored
    }

    private static func storeInteger<I: FixedWidthInteger>(_ integer: I, _ storage: ValueStorage) -> Value? {
        switch storage {
        case .uint64: return UInt64(exactly: integer).map(Value.largeUInt)
        case .int8, .int16, .int32, .int64, .uint8, .uint16, .uint32: return Int64(exactly: integer).map(Value.integer)
        case .currency:
            return Int64(exactly: integer).flatMap { v in v.multipliedReportingOverflow(by: 10_000).overflow ? nil : .currency(Currency(scaled: v * 10_000)) }
        case .decimal: return Decimal96(String(integer)).map(Value.decimal)
        default: return nil
        }
    }

    /// `Decimal`'s digits as plain text (`-12.50` is `-12.5`), never in exponent form.
    static func plainText(_ decimal: Decimal) -> String {
        var text = decimal.description
        if text.contains("e") || text.contains("E") {
            // Not seen from Foundation's Decimal, but parse it rather than store it wrong.
            text = ""
        }
        return text
    }

    /// The field type a Swift value makes in a new table (Spec/records-api.md §4), or nil.
    static func inferredType(of swift: any FieldValue) -> DataType? {
        switch swift {
        case is Bool: return .boolean
        case is Int64, is Int: return .largeInt
        case is Int32: return .integer
        case is Int16: return .smallInt
        case is Int8: return .shortInt
        case is UInt64, is UInt: return .largeUInt
        case is UInt32: return .cardinal
        case is UInt16: return .word
        case is UInt8: return .byte
        case is Double: return .float
        case is Float: return .singleFloat
        case is Decimal: return .decimal
        case is Date: return .dateTime
        case is UUID: return .guid
        case is Data: return .blob
        case is String: return .wideString
        default: return nil
        }
    }
}
