/// `datDecimal`: the 16 bytes of a .NET `System.Decimal` — a 96-bit unsigned magnitude
/// (`low`, `mid`, `high`, least significant first) and a flags word with the scale in bits 16–23
/// and the sign in bit 31. Kept as stored, so no value is ever rounded through `Double`.
public struct Decimal96: Hashable, Sendable, CustomStringConvertible {
    /// Bits 0–31 of the 96-bit magnitude.
    public var low: UInt32
    /// Bits 32–63 of the magnitude.
    public var mid: UInt32
    /// Bits 64–95 of the magnitude.
    public var high: UInt32
    /// The scale (bits 16–23) and the sign (bit 31), as stored.
    public var flags: UInt32

    /// A decimal of these four stored words.
    public init(low: UInt32, mid: UInt32, high: UInt32, flags: UInt32) {
        self.low = low; self.mid = mid; self.high = high; self.flags = flags
    }

    /// The number of decimals: the magnitude is divided by 10 to this power.
    public var scale: Int { Int((flags >> 16) & 0xFF) }
    /// True when the sign bit is set.
    public var isNegative: Bool { flags & 0x8000_0000 != 0 }
    /// True when no flag bits besides scale and sign are set (as .NET requires) and scale ≤ 28.
    public var isCanonical: Bool { flags & 0x7F00_FFFF == 0 && scale <= 28 }
    /// True when the decimal text (`description`) reads back to exactly these 16 bytes.
    public var isTextReversible: Bool { flags & 0x7F00_FFFF == 0 }

    /// The magnitude's decimal digits (no sign, no point).
    public var magnitudeDigits: String {
        var limbs = [high, mid, low]
        if limbs == [0, 0, 0] { return "0" }
        var digits: [UInt8] = []
        while limbs != [0, 0, 0] {
            var remainder: UInt64 = 0
            for i in 0..<3 {
                let current = remainder << 32 | UInt64(limbs[i])
                limbs[i] = UInt32(current / 10)
                remainder = current % 10
            }
            digits.append(UInt8(remainder) + 48)
        }
        return String(decoding: digits.reversed(), as: UTF8.self)
    }

    /// Decimal text with exactly `scale` fraction digits: `1.50`, `201403`, `-0.001`.
    public var description: String {
        var digits = magnitudeDigits
        let scale = self.scale
        if scale > 0 {
            if digits.count <= scale { digits = String(repeating: "0", count: scale - digits.count + 1) + digits }
            digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -scale))
        }
        return (isNegative ? "-" : "") + digits
    }

    /// Parses `[-]digits[.digits]`; the scale is the number of fraction digits (at most 255).
    /// Nil when the magnitude does not fit 96 bits.
    public init?(_ text: String) {
        var text = text
        guard let value = text.withUTF8({ Decimal96(utf8: $0) }) else { return nil }
        self = value
    }

    /// The same, from the text's UTF-8 bytes (no `String` made: what the JSON reader has).
    public init?(utf8 text: UnsafeBufferPointer<UInt8>) {
        let parsed: Decimal96?? = DecimalText.scan(text) { negative, integer, fraction -> Decimal96? in
            guard fraction.count <= 255 else { return nil }
            var limbs: (UInt32, UInt32, UInt32) = (0, 0, 0) // low, mid, high
            for digit in [integer, fraction].joined() {
                var product = UInt64(limbs.0) * 10 + UInt64(digit &- 48)
                limbs.0 = UInt32(truncatingIfNeeded: product)
                product = UInt64(limbs.1) * 10 + product >> 32
                limbs.1 = UInt32(truncatingIfNeeded: product)
                product = UInt64(limbs.2) * 10 + product >> 32
                limbs.2 = UInt32(truncatingIfNeeded: product)
                if product >> 32 != 0 { return nil }
            }
            return Decimal96(low: limbs.0, mid: limbs.1, high: limbs.2,
                             flags: UInt32(fraction.count) << 16 | (negative ? 0x8000_0000 : 0))
        }
        guard let value = parsed ?? nil else { return nil }
        self = value
    }
}
