import BriefcaseKit

/// The decimal text of Currency and Decimal values (`Currency.description`,
/// `Decimal96.description`) written by the JSON emitter's digit writers into a small buffer,
/// without making a string: for writers that take bytes (the SQLite format binds them as text).
public enum DecimalText {
    /// The most bytes `write(_:to:)` writes: Currency at most 21; Decimal a sign, "0.", 255
    /// zeros of scale and 29 digits.
    public static let longest = 320

    /// Writes the UTF-8 text of a Currency or Decimal value at `d` (room for `longest` bytes);
    /// returns its length, nil (nothing written) for other values. Not generic, unlike
    /// `withText`, which from another module runs unspecialized (a metadata lookup per value).
    public static func write(_ value: Value, to d: UnsafeMutablePointer<UInt8>) -> Int? {
        var count = 0
        switch value {
        case .currency(let currency): JSONValueEmitter.putCurrency(currency, d, &count)
        case .decimal(let decimal): JSONValueEmitter.putDecimal(decimal, d, &count)
        default: return nil
        }
        return count
    }

    /// Calls `body` with the UTF-8 text of a Currency or Decimal value; nil for other values.
    public static func withText<R, E: Error>(of value: Value, _ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R? {
        // Currency: at most 21 bytes; Decimal: sign, "0.", 255 zeros of scale, 29 digits.
        let result: Result<R, E>? = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: longest) { buffer in
            var count = 0
            switch value {
            case .currency(let currency): JSONValueEmitter.putCurrency(currency, buffer.baseAddress!, &count)
            case .decimal(let decimal): JSONValueEmitter.putDecimal(decimal, buffer.baseAddress!, &count)
            default: return nil
            }
            do throws(E) {
                return .success(try body(UnsafeBufferPointer(rebasing: buffer[..<count])))
            } catch {
                return .failure(error)
            }
        }
        return try result?.get()
    }
}
