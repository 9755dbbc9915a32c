// The UTF-8 of a wide string's UTF-16LE bytes, without a String: what the streamed snapshot
// writes for a wide text value (`WideText.decode` would build a String per value).

enum UTF16Text {
    /// Appends the UTF-8 of well-formed UTF-16LE `bytes` to `out` (emptied first); false (and
    /// `out` unspecified) for an odd length or an unpaired surrogate, which `WideText.decode`
    /// refuses too.
    static func utf8(of bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) -> Bool {
        out.removeAll(keepingCapacity: true)
        let count = bytes.count
        guard count % 2 == 0 else { return false }
        var i = 0
        while i < count {
            let unit = UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8
            i += 2
            var scalar = unit
            if unit >= 0xD800 && unit < 0xE000 {
                guard unit < 0xDC00, i < count else { return false }
                let low = UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8
                guard low >= 0xDC00 && low < 0xE000 else { return false }
                i += 2
                scalar = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            }
            if scalar < 0x80 {
                out.append(UInt8(scalar))
            } else if scalar < 0x800 {
                out.append(UInt8(0xC0 | scalar >> 6))
                out.append(UInt8(0x80 | scalar & 0x3F))
            } else if scalar < 0x10000 {
                out.append(UInt8(0xE0 | scalar >> 12))
                out.append(UInt8(0x80 | (scalar >> 6) & 0x3F))
                out.append(UInt8(0x80 | scalar & 0x3F))
            } else {
                out.append(UInt8(0xF0 | scalar >> 18))
                out.append(UInt8(0x80 | (scalar >> 12) & 0x3F))
                out.append(UInt8(0x80 | (scalar >> 6) & 0x3F))
                out.append(UInt8(0x80 | scalar & 0x3F))
            }
        }
        return true
    }
}
