import JSONCore

extension OLEDateTime {
    /// The fields of `isoText` (`YYYY-MM-DDTHH:MM:SS.sss`) when that text is an exact spelling of
    /// this value — `OLEDateTime(isoText:)` gives back the same double; nil otherwise (not
    /// finite, outside years 1–9999, or finer than a millisecond). Builds no String: for writers
    /// of large documents, which format the fields themselves.
    public var exactISOFields: (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, millisecond: Int)? {
        guard let total = millisecondsSinceEpoch else { return nil }
        // `OLEDateTime(isoText: isoText)` rebuilds the value from these milliseconds.
        guard OLEDateTime(oleMilliseconds: total) == self else { return nil }
        var days = total / Self.millisecondsPerDay
        var ms = total % Self.millisecondsPerDay
        if ms < 0 { ms += Self.millisecondsPerDay; days -= 1 }
        let (y, m, d) = CivilDate.fromDays(days + CivilDate.oleEpochDays)
        guard (1...9999).contains(y) else { return nil }
        return (Int(y), Int(m), Int(d), Int(ms / 3_600_000), Int(ms / 60_000 % 60), Int(ms / 1000 % 60), Int(ms % 1000))
    }
}

extension ByteString {
    /// True when the bytes are strict UTF-8 (what `utf8String` accepts), without building a String.
    public var isValidUTF8: Bool {
        withUnsafeBufferPointer { UTF8Validation.isValid($0) } // (no slice: called per value)
    }
}
