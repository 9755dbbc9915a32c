import BriefcaseKit

/// The decimal text of Currency and Decimal values (`Currency.description`,
/// `Decimal96.description`) written by the JSON emitter's digit writers into a small buffer,
/// without making a string: for writers that take bytes (the SQLite format binds them as text).
public enum DecimalText {
    /// Calls `body` with the UTF-8 text of a Currency or Decimal value; nil for other values.
    public static func withText<R, E: Error>(of value: Value, _ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R? {
        // Currency: at most 21 bytes; Decimal: sign, "0.", 255 zeros of scale, 29 digits.
        let result: Result<R, E>? = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 320) { buffer in
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
