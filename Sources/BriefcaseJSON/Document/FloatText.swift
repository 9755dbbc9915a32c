/// Double and Float as the document writes and reads them. `FloatText` is written once for both;
/// a type only says how its bit pattern widens to 64 bits (the `NaN:<hex>` payload).
public protocol DocumentFloat: BinaryFloatingPoint, LosslessStringConvertible {
    /// The bit pattern, widened to 64 bits (a float's in the low 32).
    var widenedBitPattern: UInt64 { get }
    /// The value of a widened bit pattern.
    init(widenedBitPattern: UInt64)
}

/// `datFloat` values in the JSON document.
extension Double: DocumentFloat {
    /// The bit pattern as it is.
    public var widenedBitPattern: UInt64 { bitPattern }
    /// The double with bit pattern `bits`.
    public init(widenedBitPattern bits: UInt64) { self.init(bitPattern: bits) }
}

/// `datSingleFloat` values in the JSON document.
extension Float: DocumentFloat {
    /// The 32-bit pattern in the low bits.
    public var widenedBitPattern: UInt64 { UInt64(bitPattern) }
    /// The float whose bit pattern is the low 32 bits of `bits`.
    public init(widenedBitPattern bits: UInt64) { self.init(bitPattern: UInt32(truncatingIfNeeded: bits)) }
}

/// Text for the doubles and floats JSON numbers cannot hold: `NaN`, `Infinity`, `-Infinity`, and
/// `NaN:<hex bits>` (16 digits for a double, 8 for a float) for NaNs with another payload than
/// the default one.
public enum FloatText {
    /// The text of a NaN or infinite `value` (`NaN`, `NaN:<hex bits>`, `Infinity`, `-Infinity`); for those only.
    public static func special<F: DocumentFloat>(_ value: F) -> String {
        if value.isNaN {
            let bits = value.widenedBitPattern
            return bits == F.nan.widenedBitPattern ? "NaN" : "NaN:" + hex(bits, hexDigits(F.self))
        }
        return value < 0 ? "-Infinity" : "Infinity"
    }

    /// The value of `special(_:)`'s text for an `F`, or nil for any other text.
    public static func parse<F: DocumentFloat>(special text: String, as type: F.Type = F.self) -> F? {
        switch text {
        case "NaN": return .nan
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        default:
            guard text.hasPrefix("NaN:"), text.count == 4 + hexDigits(F.self),
                  let bits = UInt64(text.dropFirst(4), radix: 16) else { return nil }
            let value = F(widenedBitPattern: bits)
            return value.isNaN ? value : nil
        }
    }

    /// The hex digits of an `F`'s bit pattern: 16 for a double, 8 for a float.
    static func hexDigits<F: DocumentFloat>(_ type: F.Type) -> Int { MemoryLayout<F>.size * 2 }

    static func hex(_ value: UInt64, _ digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
