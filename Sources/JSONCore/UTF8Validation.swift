/// Strict UTF-8: no overlong forms, no encoded surrogates, nothing above U+10FFFF. The one
/// definition that the byte strings, the JSON parser and the streaming JSON reader all use.
public enum UTF8Validation {
    /// The length (2…4) of the well-formed sequence whose lead byte, at `i` (below `end`), is
    /// 0x80 or more; 0 when it is not well formed; -1 when `end` comes first and every byte
    /// before it is right so far (a truncated sequence).
    @inlinable
    public static func sequenceLength(_ bytes: UnsafePointer<UInt8>, at i: Int, end: Int) -> Int {
        var length: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        switch bytes[i] {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: return 0
        }
        var k = 1
        while k < length {
            guard i &+ k < end else { return -1 }
            let byte = bytes[i &+ k]
            guard byte >= low && byte <= high else { return 0 }
            low = 0x80
            high = 0xBF
            k &+= 1
        }
        return length
    }

    /// Whether `buffer` is strict UTF-8.
    public static func isValid(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = buffer.baseAddress else { return true }
        var i = 0
        let n = buffer.count
        while i < n {
            // ASCII eight bytes at a time.
            while n - i >= 8, UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 { i += 8 }
            if i >= n { break }
            if base[i] < 0x80 { i += 1; continue }
            let length = sequenceLength(base, at: i, end: n)
            guard length > 0 else { return false }
            i += length
        }
        return true
    }
}
