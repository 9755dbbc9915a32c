import BriefcaseJSON
import BriefcaseKit
import CSQLite
import JSONCore

/// The briefcase ↔ SQLite mapping of Spec/sqlite-mapping.md: the names of the tables that give
/// the file back, and each data type's declared SQL type.
public enum SQLiteMapping {
    /// The mapping's version, in `_briefcase` under `format`.
    public static let format = "briefcase-sqlite 1"

    /// What `_briefcase` holds: the head, one value per key.
    static let headTable = "_briefcase"
    /// Every element in stream order, with its exact bytes (a one-element Bin2 stream).
    static let elementsTable = "_briefcase_elements"
    static let propertiesTable = "_briefcase_properties"
    static let fieldsTable = "_briefcase_fields"
    static let schemaTable = "_briefcase_schema"
    static let changesTable = "_briefcase_changes"
    /// A table's stored rows (only for a table whose pending delta changes its rows).
    static func storedRowsTable(position: Int) -> String { "_briefcase_stored_\(position)" }

    /// Names a briefcase table cannot take: they are the mapping's own (SQLite's `sqlite_` too).
    static func isReserved(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower.hasPrefix("_briefcase") || lower.hasPrefix("sqlite_")
    }

    /// The declared SQL type of a field: one SQLite tools understand, whose affinity keeps the
    /// value as written (Spec/sqlite-mapping.md §3).
    public static func declaredType(_ type: DataType) -> String {
        switch type.storage {
        case .int8, .int16, .int32, .int64, .uint8, .uint16, .uint32, .uint64: return "INTEGER"
        case .float32, .float64: return "REAL"
        case .boolean: return "BOOLEAN"
        case .dateTime: return "DATETIME"
        case .blob: return "BLOB"
        case .ansiString, .wideString, .guid, .currency, .decimal: return "TEXT"
        case nil: return "BLOB"
        }
    }
}

/// A briefcase value as the current-rows tables show it (Spec/sqlite-mapping.md §3).
struct ValueImage {
    let codePage: CodePage

    func sql(_ value: Value?) -> SQLValue {
        guard let value else { return .null }
        switch value {
        case .ansiString(let s): return .text(codePage.decodeForDisplay(s))
        case .wideString(let s): return .text(WideText.decode(s) ?? WideText.decodeForDisplay(s))
        case .guid(let s): return .text(String(decoding: s.bytes, as: UTF8.self))
        case .blob(let s): return .blob(s.array)
        case .integer(let i): return .integer(i)
        case .largeUInt(let u): return u <= UInt64(Int64.max) ? .integer(Int64(u)) : .real(Double(u))
        case .boolean(let b): return .integer(b != 0 ? 1 : 0)
        case .currency(let c): return .text(c.description)
        case .decimal(let d): return .text(d.description)
        // SQLite stores NaN as NULL.
        case .float(let f): return f.isNaN ? .null : .real(f)
        case .singleFloat(let f): return f.isNaN ? .null : .real(Double(f))
        case .dateTime(let d):
            if let text = d.isoText { return .text(text) }
            return d.value.isNaN ? .null : .real(d.value)
        }
    }
}

extension ValueImage {
    /// Binds `sql(value)` to parameter `index`: text and blobs straight from the value's bytes
    /// where SQLite stores the same text a Swift string would hold (well-formed UTF-16, valid
    /// UTF-8 in a UTF-8 briefcase), else through `sql(_:)`.
    func bind(_ value: Value?, to statement: SQLiteStatement, at index: Int) throws(BriefcaseError) {
        switch value {
        case .integer(let number)?: try statement.bind(.integer(number), at: index)
        case .blob(let bytes)?:
            try bytes.withUnsafeBufferPointer { (buffer) throws(BriefcaseError) in try statement.bindBlob(buffer, at: index) }
        case .wideString(let text)? where Self.isWellFormedUTF16(text):
            try text.withUnsafeBufferPointer { (buffer) throws(BriefcaseError) in
                try statement.bindText(buffer, encoding: SQLITE_UTF16LE, at: index)
            }
        case .ansiString(let text)? where codePage == .utf8 && text.withUnsafeBufferPointer(UTF8Validation.isValid),
             .guid(let text)? where text.withUnsafeBufferPointer(UTF8Validation.isValid):
            try text.withUnsafeBufferPointer { (buffer) throws(BriefcaseError) in
                try statement.bindText(buffer, encoding: SQLITE_UTF8, at: index)
            }
        case .currency?, .decimal?:
            try DecimalText.withText(of: value!) { (buffer) throws(BriefcaseError) in
                try statement.bindText(buffer, encoding: SQLITE_UTF8, at: index)
            }
        default: try statement.bind(sql(value), at: index)
        }
    }

    /// UTF-16LE with an even length and every surrogate paired: what SQLite converts to the
    /// text `WideText.decode` gives.
    static func isWellFormedUTF16(_ text: ByteString) -> Bool {
        text.withUnsafeBufferPointer { bytes in
            guard bytes.count % 2 == 0 else { return false }
            var index = 0
            while index < bytes.count {
                let high = bytes[index + 1]
                if high & 0xF8 == 0xD8 {
                    guard high < 0xDC, index + 3 < bytes.count, bytes[index + 3] & 0xFC == 0xDC else { return false }
                    index += 4
                } else {
                    index += 2
                }
            }
            return true
        }
    }
}

/// A value written with SQL into a current-rows table, as the field's data type stores it;
/// what does not fit is refused, never changed (Spec/sqlite-mapping.md §5).
struct ValueReading {
    let codePage: CodePage

    /// The value for a field of `type`, or the reason it does not fit.
    func value(_ sql: SQLValue, type: DataType) -> Result<Value?, ValueMismatch> {
        if case .null = sql { return .success(nil) }
        guard let storage = type.storage else { return .failure(ValueMismatch("a field of type \(type.name) holds no values")) }
        switch (storage, sql) {
        case (.ansiString, .text(let text)):
            guard let bytes = codePage.encode(text) else {
                return .failure(ValueMismatch("the text \(sql) cannot be written in code page \(codePage.name)"))
            }
            return .success(.ansiString(bytes))
        case (.wideString, .text(let text)):
            return .success(.wideString(WideText.encode(text)))
        case (.guid, .text(let text)):
            guard text.utf8.count == 36 else { return .failure(ValueMismatch("a GUID is 36 characters, not \(sql)")) }
            return .success(.guid(ByteString(utf8: text)))
        case (.currency, .text(let text)):
            guard let currency = Currency(text) else { return .failure(ValueMismatch("\(sql) is not a Currency (a decimal with at most 4 fraction digits)")) }
            return .success(.currency(currency))
        case (.decimal, .text(let text)):
            guard let decimal = Decimal96(text) else { return .failure(ValueMismatch("\(sql) is not a Decimal (digits with an optional point, at most 96 bits)")) }
            return .success(.decimal(decimal))
        case (.dateTime, .text(let text)):
            guard let date = Self.dateTime(text) else { return .failure(ValueMismatch("\(sql) is not a date and time (YYYY-MM-DD[THH:MM:SS[.sss]])")) }
            return .success(.dateTime(date))
        case (.dateTime, .real(let days)):
            return .success(.dateTime(OLEDateTime(days)))
        case (.float64, .real(let number)):
            return .success(.float(number))
        case (.float64, .integer(let number)):
            guard let exact = Double(exactly: number) else { return .failure(ValueMismatch("\(sql) has no exact double")) }
            return .success(.float(exact))
        case (.float32, .real(let number)):
            guard let single = Self.single(number) else { return .failure(ValueMismatch("\(sql) is out of range for \(type.name)")) }
            return .success(.singleFloat(single))
        case (.float32, .integer(let number)):
            guard let single = Float(exactly: number) else { return .failure(ValueMismatch("\(sql) has no exact single float")) }
            return .success(.singleFloat(single))
        case (.boolean, .integer(let number)):
            guard number == 0 || number == 1 else { return .failure(ValueMismatch("a Boolean is 0 or 1, not \(sql)")) }
            return .success(.boolean(UInt8(number)))
        case (.uint64, .integer(let number)):
            guard number >= 0 else { return .failure(ValueMismatch("\(sql) is out of range for \(type.name)")) }
            return .success(.largeUInt(UInt64(number)))
        case (.uint64, .real(let number)):
            guard let exact = UInt64(exactly: number) else { return .failure(ValueMismatch("\(sql) is not a whole number in range for \(type.name)")) }
            return .success(.largeUInt(exact))
        case (.blob, .blob(let bytes)):
            return .success(.blob(ByteString(bytes)))
        case (_, .integer(let number)) where Value.integer(number).fits(storage):
            return .success(.integer(number))
        case (.int8, .integer), (.int16, .integer), (.int32, .integer), (.int64, .integer),
             (.uint8, .integer), (.uint16, .integer), (.uint32, .integer):
            return .failure(ValueMismatch("\(sql) is out of range for \(type.name)"))
        default:
            return .failure(ValueMismatch("\(sql) (\(sql.typeName)) does not fit a field of type \(type.name)"))
        }
    }

    /// The nearest single float; nil when a finite double is beyond its range.
    static func single(_ number: Double) -> Float? {
        let single = Float(number)
        return single.isInfinite && number.isFinite ? nil : single
    }

    /// `YYYY-MM-DD`, `YYYY-MM-DD HH:MM:SS[.sss]` (what SQLite's date functions write) or with `T`.
    static func dateTime(_ text: String) -> OLEDateTime? {
        var iso = text
        if iso.utf8.count == 10 { iso += "T00:00:00" }
        if iso.utf8.count >= 11, Array(iso.utf8)[10] == UInt8(ascii: " ") {
            iso = String(iso.prefix(10)) + "T" + String(iso.dropFirst(11))
        }
        return OLEDateTime(isoText: iso)
    }
}

struct ValueMismatch: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
