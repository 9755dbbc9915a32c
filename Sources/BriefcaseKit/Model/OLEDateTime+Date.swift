import Foundation

extension OLEDateTime {
    /// The moment this value names, reading it as UTC (a `TDateTime` carries no time zone),
    /// rounded to the millisecond; nil outside years 1–9999 or when not finite.
    public var date: Date? {
        guard let ms = millisecondsSinceEpoch else { return nil }
        // 1899-12-30 is 25 569 days before 1970-01-01.
        return Date(timeIntervalSince1970: Double(ms - 25_569 * Self.millisecondsPerDay) / 1000)
    }

    /// The OLE date of `date` read in UTC, to the millisecond (as .NET's `ToOADate`).
    public init(date: Date) {
        let ms = Int64((date.timeIntervalSince1970 * 1000).rounded())
        self.init(oleMilliseconds: ms + 25_569 * Self.millisecondsPerDay)
    }
}
