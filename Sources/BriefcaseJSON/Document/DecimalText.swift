import BriefcaseKit

/// The decimal text of Currency and Decimal values (`Currency.description`,
/// `Decimal96.description`) written by the JSON emitter's digit writers into a small buffer,
/// without making a string: for writers that take bytes (the SQLite format binds them as text).
public enum DecimalText {
    /// The most bytes `write(_:to:)` writes: Currency at most 21; Decimal a sign, "0.", 255
    /// zeros of scale and 29 digits.
    public static let longest = 320

    /// Writes the UTF-8 text of a Currency or Decimal value at `d` (room for `longest` bytes);
    /// returns its length, nil (nothing written) for other values. Not generic: a generic form
    /// with a closure, called from another module, ran unspecialized (a metadata lookup per value).
    public static func write(_ value: Value, to d: UnsafeMutablePointer<UInt8>) -> Int? {
        var count = 0
        switch value {
        case .currency(let currency): JSONValueEmitter.putCurrency(currency, d, &count)
        case .decimal(let decimal): JSONValueEmitter.putDecimal(decimal, d, &count)
        default: return nil
        }
        return count
    }
}
