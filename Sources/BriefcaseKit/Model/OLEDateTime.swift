/// `datDateTime`: an OLE Automation / Delphi `TDateTime` double — days since 1899-12-30, the
/// fraction being the time of day, no time zone. The double is kept bit for bit.
///
/// Dates before 1899-12-30 use sign-magnitude: the integer part (towards zero) is the day, the
/// absolute fraction the time, so -1.25 is 1899-12-29 06:00 (Delphi and .NET `FromOADate`).
public struct OLEDateTime: Hashable, Sendable, CustomStringConvertible {
    /// Days since 1899-12-30, the fraction being the time of day.
    public var value: Double
    /// The date of `value` days since 1899-12-30.
    public init(_ value: Double) { self.value = value }

    /// Equality of bit patterns (NaN payloads and -0 are kept apart).
    public static func == (a: OLEDateTime, b: OLEDateTime) -> Bool { a.value.bitPattern == b.value.bitPattern }
    /// Hashes the bit pattern.
    public func hash(into hasher: inout Hasher) { hasher.combine(value.bitPattern) }

    static let millisecondsPerDay: Int64 = 86_400_000
    /// 0001-01-01 and 9999-12-31 as OLE day numbers: the range ISO text can show.
    /// (-657_434 would be 0100-01-01, .NET's `FromOADate` limit, not year 1.)
    public static let validDays: ClosedRange<Double> = -693_593.99999999 ... 2_958_465.99999999

    /// Days and milliseconds since 1899-12-30 00:00, rounded to the millisecond; nil when the
    /// value is not finite or outside years 1–9999.
    public var millisecondsSinceEpoch: Int64? {
        guard value.isFinite, Self.validDays.contains(value) else { return nil }
        let day = value.rounded(.towardZero)
        let time = abs(value - day)
        let ms = Int64((time * Double(Self.millisecondsPerDay)).rounded())
        return Int64(day) * Self.millisecondsPerDay + ms
    }

    /// `YYYY-MM-DDTHH:MM:SS.sss` (milliseconds rounded), or nil outside years 1–9999 / not finite.
    public var isoText: String? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.isoTextLength) { buffer in
            writeISOText(to: buffer.baseAddress!) ? String(decoding: buffer, as: UTF8.self) : nil
        }
    }

    /// The length of `isoText`: 23 bytes.
    public static let isoTextLength = 23

    /// Writes `isoText` (23 ASCII bytes) at `d` without making a String (the SQLite writer binds
    /// it from there); false, nothing written, when `isoText` is nil.
    public func writeISOText(to d: UnsafeMutablePointer<UInt8>) -> Bool {
        guard let total = millisecondsSinceEpoch else { return false }
        var days = total / Self.millisecondsPerDay
        var ms = total % Self.millisecondsPerDay
        if ms < 0 { ms += Self.millisecondsPerDay; days -= 1 }
        let (y, m, d0) = CivilDate.fromDays(days + CivilDate.oleEpochDays)
        guard (1...9999).contains(y) else { return false }
        let hh = ms / 3_600_000, mm = ms / 60_000 % 60, ss = ms / 1000 % 60, sss = ms % 1000
        // Digits from the right of each field: this runs for every DateTime value that is printed.
        func put(_ n: Int64, _ width: Int, at offset: Int, then separator: UInt8?) {
            var rest = n
            for position in (0..<width).reversed() {
                d[offset + position] = UInt8(truncatingIfNeeded: 48 + rest % 10)
                rest /= 10
            }
            if let separator { d[offset + width] = separator }
        }
        put(y, 4, at: 0, then: 45); put(m, 2, at: 5, then: 45); put(d0, 2, at: 8, then: 84)
        put(hh, 2, at: 11, then: 58); put(mm, 2, at: 14, then: 58); put(ss, 2, at: 17, then: 46); put(sss, 3, at: 20, then: nil)
        return true
    }

    /// The date as ISO 8601 text when it is one, else the number.
    public var description: String { isoText ?? String(value) }

    /// The double .NET's `DateTime.ToOADate` gives for this date and time (millisecond precision).
    /// Accepts `YYYY-MM-DDTHH:MM:SS[.sss]`.
    public init?(isoText text: String) {
        var text = text
        guard let value = text.withUTF8({ OLEDateTime(isoText: $0) }) else { return nil }
        self = value
    }

    /// The same, from the text's UTF-8 bytes (no `String` made: what the JSON reader has).
    public init?(isoText b: UnsafeBufferPointer<UInt8>) {
        func number(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= b.count else { return nil }
            var n: Int64 = 0
            for i in range { guard (48...57).contains(b[i]) else { return nil }; n = n * 10 + Int64(b[i] - 48) }
            return n
        }
        guard b.count == 19 || b.count == 23, b[4] == 45, b[7] == 45, b[10] == 84, b[13] == 58, b[16] == 58,
              let y = number(0..<4), let mo = number(5..<7), let d = number(8..<10),
              let h = number(11..<13), let mi = number(14..<16), let s = number(17..<19),
              y >= 1, (1...12).contains(mo), d >= 1, d <= CivilDate.daysInMonth(y, mo), h < 24, mi < 60, s < 60
        else { return nil }
        var ms: Int64 = 0
        if b.count == 23 {
            guard b[19] == 46, let f = number(20..<23) else { return nil }
            ms = f
        }
        let days = CivilDate.toDays(y, mo, d) - CivilDate.oleEpochDays
        self.init(oleMilliseconds: days * Self.millisecondsPerDay + ((h * 60 + mi) * 60 + s) * 1000 + ms)
    }

    /// From signed milliseconds since 1899-12-30 00:00, as .NET's `TicksToOADate` does it.
    public init(oleMilliseconds: Int64) {
        var millis = oleMilliseconds
        if millis < 0 {
            let fraction = millis % Self.millisecondsPerDay
            if fraction != 0 { millis -= (Self.millisecondsPerDay + fraction) * 2 }
        }
        self.init(Double(millis) / Double(Self.millisecondsPerDay))
    }
}

/// Proleptic Gregorian calendar arithmetic on day numbers (days since 1970-01-01).
enum CivilDate {
    /// 1899-12-30 as days since 1970-01-01.
    static let oleEpochDays: Int64 = -25_569

    static func toDays(_ year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func fromDays(_ days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    static func daysInMonth(_ year: Int64, _ month: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
