/// A Data Abstract `TDADataType`, as the byte stored in row descriptors and delta headers.
///
/// A struct rather than an enum so that a reader can carry codes it does not know (27…255) and
/// report them precisely instead of failing early; `isKnown` tells them apart.
public struct DataType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The type's number in the stream.
    public var rawValue: UInt8
    /// The data type numbered `rawValue` (known or not).
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// The data type numbered `rawValue` (known or not).
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    /// `datUnknown` (0).
    public static let unknown = DataType(0)
    /// `datString` (1): 8-bit text.
    public static let string = DataType(1)
    /// `datDateTime` (2): an OLE date.
    public static let dateTime = DataType(2)
    /// `datFloat` (3): a double.
    public static let float = DataType(3)
    /// `datCurrency` (4): fixed point, four decimals.
    public static let currency = DataType(4)
    /// `datAutoInc` (5): a 32-bit auto-increment.
    public static let autoInc = DataType(5)
    /// `datInteger` (6): a 32-bit integer.
    public static let integer = DataType(6)
    /// `datLargeInt` (7): a 64-bit integer.
    public static let largeInt = DataType(7)
    /// `datBoolean` (8).
    public static let boolean = DataType(8)
    /// `datMemo` (9): long 8-bit text.
    public static let memo = DataType(9)
    /// `datBlob` (10): bytes.
    public static let blob = DataType(10)
    /// `datWideString` (11): UTF-16 text.
    public static let wideString = DataType(11)
    /// `datWideMemo` (12): long UTF-16 text.
    public static let wideMemo = DataType(12)
    /// `datLargeAutoInc` (13): a 64-bit auto-increment.
    public static let largeAutoInc = DataType(13)
    /// `datByte` (14): an unsigned 8-bit integer.
    public static let byte = DataType(14)
    /// `datShortInt` (15): a signed 8-bit integer.
    public static let shortInt = DataType(15)
    /// `datWord` (16): an unsigned 16-bit integer.
    public static let word = DataType(16)
    /// `datSmallInt` (17): a signed 16-bit integer.
    public static let smallInt = DataType(17)
    /// `datCardinal` (18): an unsigned 32-bit integer.
    public static let cardinal = DataType(18)
    /// `datLargeUInt` (19): an unsigned 64-bit integer.
    public static let largeUInt = DataType(19)
    /// `datGuid` (20): a 16-byte GUID.
    public static let guid = DataType(20)
    /// `datXml` (21): XML as UTF-16 text.
    public static let xml = DataType(21)
    /// `datDecimal` (22): a 96-bit decimal.
    public static let decimal = DataType(22)
    /// `datSingleFloat` (23): a float.
    public static let singleFloat = DataType(23)
    /// `datFixedChar` (24): fixed-length 8-bit text.
    public static let fixedChar = DataType(24)
    /// `datFixedWideChar` (25): fixed-length UTF-16 text.
    public static let fixedWideChar = DataType(25)
    /// `datCursor` (26).
    public static let cursor = DataType(26)

    /// The Data Abstract names, indexed by code (`datUnknown` … `datCursor`).
    public static let names: [String] = [
        "datUnknown", "datString", "datDateTime", "datFloat", "datCurrency", "datAutoInc",
        "datInteger", "datLargeInt", "datBoolean", "datMemo", "datBlob", "datWideString",
        "datWideMemo", "datLargeAutoInc", "datByte", "datShortInt", "datWord", "datSmallInt",
        "datCardinal", "datLargeUInt", "datGuid", "datXml", "datDecimal", "datSingleFloat",
        "datFixedChar", "datFixedWideChar", "datCursor",
    ]

    /// Every known data type, in number order.
    public static let allKnown: [DataType] = (0..<UInt8(names.count)).map { DataType($0) }

    /// True for the 27 types Data Abstract defines (0–26).
    public var isKnown: Bool { Int(rawValue) < Self.names.count }

    /// `datWideString` etc.; `dat#31` for codes no source names.
    public var name: String { isKnown ? Self.names[Int(rawValue)] : "dat#\(rawValue)" }
    /// The type's Data Abstract name (`datString`…), `dat#N` when unknown.
    public var description: String { name }

    /// The type with Data Abstract name `name` (`datInteger`), case-insensitively, or `dat#N`.
    public init?(name: String) {
        let lower = name.lowercased()
        if let index = Self.names.firstIndex(where: { $0.lowercased() == lower }) {
            self.init(UInt8(index))
        } else if lower.hasPrefix("dat#"), let code = UInt8(lower.dropFirst(4)) {
            self.init(code)
        } else {
            return nil
        }
    }

    /// How values of this type are stored in Bin2.
    public var storage: ValueStorage? {
        switch self {
        case .string, .memo, .fixedChar: return .ansiString
        case .wideString, .wideMemo, .fixedWideChar, .xml: return .wideString
        case .dateTime: return .dateTime
        case .float: return .float64
        case .singleFloat: return .float32
        case .currency: return .currency
        case .autoInc, .integer: return .int32
        case .largeInt, .largeAutoInc: return .int64
        case .largeUInt: return .uint64
        case .cardinal: return .uint32
        case .smallInt: return .int16
        case .word: return .uint16
        case .shortInt: return .int8
        case .byte: return .uint8
        case .boolean: return .boolean
        case .blob, .cursor: return .blob
        case .guid: return .guid
        case .decimal: return .decimal
        default: return nil
        }
    }
}

/// The Bin2 encoding of a value (several data types share one).
public enum ValueStorage: Sendable {
    /// Text: 8-bit or UTF-16, and dates, doubles, floats and currency.
    case ansiString, wideString, dateTime, float64, float32, currency
    /// Integers by width and signedness.
    case int8, int16, int32, int64, uint8, uint16, uint32, uint64
    /// Booleans, bytes, GUIDs and 96-bit decimals.
    case boolean, blob, guid, decimal

    /// The smallest number of bytes a value of this storage takes (for count checks).
    public var minimumSize: Int {
        switch self {
        case .int8, .uint8, .boolean: return 1
        case .int16, .uint16: return 2
        case .int32, .uint32, .ansiString, .wideString, .blob, .float32: return 4
        case .int64, .uint64, .float64, .dateTime, .currency: return 8
        case .guid: return 36
        case .decimal: return 16
        }
    }

    /// The range of integer storages, for checking values before writing.
    var integerRange: ClosedRange<Int64>? {
        switch self {
        case .int8: return Int64(Int8.min)...Int64(Int8.max)
        case .int16: return Int64(Int16.min)...Int64(Int16.max)
        case .int32: return Int64(Int32.min)...Int64(Int32.max)
        case .int64: return Int64.min...Int64.max
        case .uint8: return 0...Int64(UInt8.max)
        case .uint16: return 0...Int64(UInt16.max)
        case .uint32: return 0...Int64(UInt32.max)
        default: return nil
        }
    }
}
