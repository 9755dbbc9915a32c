import BriefcaseKit

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
            // What .NET's Guid parser reads (and `validate` checks): 8-4-4-4-12 hexadecimal digits.
            guard Validator.guidProblem(ByteString(utf8: text)) == nil else {
                return .failure(ValueMismatch("a GUID is 36 characters XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX (hexadecimal digits), not \(sql)"))
            }
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
            // .NET's DateTime holds years 1 to 9999 (what ISO text can say too): a day number
            // beyond them would be a briefcase that Data Abstract for .NET cannot read.
            guard OLEDateTime.validDays.contains(days) else {
                return .failure(ValueMismatch("\(sql) is not a date .NET can hold: an OLE day number from \(OLEDateTime.validDays.lowerBound) to \(OLEDateTime.validDays.upperBound) (years 1 to 9999)"))
            }
            return .success(.dateTime(OLEDateTime(days)))
        case (.float64, .text(let text)) where Self.special(text) != nil:
            return .success(.float(Self.special(text)!))
        case (.float32, .text(let text)) where Self.special(text) != nil:
            return .success(.singleFloat(Float(Self.special(text)!)))
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

    /// NaN and the infinities as `cat` spells them (`NaN`, `Infinity`, `-Infinity`): a REAL
    /// column holds them as text (SQLite has no NaN; the infinities it holds as REAL too).
    static func special(_ text: String) -> Double? {
        switch text {
        case "NaN": return .nan
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        default: return nil
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
