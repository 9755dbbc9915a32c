/// Seeded damage for the mutation suites (StreamingMutationTests, MutationCLITests).
public enum Mutation {
    /// A seeded mutant of `bytes`: bit flips, a byte set to an edge value, a truncation, an
    /// inserted or deleted range, or an Int32 overwritten with an absurd count or position.
    /// With `json`, half the mutants keep the JSON well-formed instead: a digit changed, or a
    /// value swapped for `null`, `0`, `""`, `1e400` or `-1`.
    public static func mutant(of bytes: [UInt8], _ random: inout SplitMix64, json: Bool = false) -> [UInt8] {
        var out = bytes
        guard !out.isEmpty else { return [0] }
        let at = Int(random.next() % UInt64(out.count))
        if json, random.next() % 2 == 0 {
            let digits = out.indices.filter { (0x30 ... 0x39).contains(out[$0]) }
            if random.next() % 2 == 0, !digits.isEmpty {
                out[digits[Int(random.next() % UInt64(digits.count))]] = 0x30 + UInt8(random.next() % 10)
            } else {
                // A scalar after ": " or ", " or "[": replaced up to the next delimiter.
                let starts = out.indices.dropLast().filter { out[$0] == UInt8(ascii: "[") || (out[$0] == UInt8(ascii: " ") && [UInt8(ascii: ":"), UInt8(ascii: ",")].contains(out[$0 - 1 < 0 ? 0 : $0 - 1])) }
                guard !starts.isEmpty else { return out }
                let start = starts[Int(random.next() % UInt64(starts.count))] + 1
                guard start < out.count, out[start] != UInt8(ascii: "{"), out[start] != UInt8(ascii: "[") else { return out }
                var end = start
                var inString = false
                while end < out.count {
                    let byte = out[end]
                    if byte == UInt8(ascii: "\""), end == start || inString { inString.toggle(); if !inString { end += 1; break } }
                    else if !inString, [UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}")].contains(byte) { break }
                    end += 1
                }
                let replacements = ["null", "0", "\"\"", "1e400", "-1", "true"]
                out.replaceSubrange(start ..< end, with: Array(replacements[Int(random.next() % UInt64(replacements.count))].utf8))
            }
            return out
        }
        switch random.next() % 6 {
        case 0:
            for _ in 0 ..< 1 + Int(random.next() % 3) {
                let i = Int(random.next() % UInt64(out.count))
                out[i] ^= UInt8(1) << (random.next() % 8)
            }
        case 1: out[at] = [0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF][Int(random.next() % 6)]
        case 2: out.removeLast(out.count - at)
        case 3: out.insert(contentsOf: (0 ..< 1 + Int(random.next() % 16)).map { _ in UInt8(truncatingIfNeeded: random.next()) }, at: at)
        case 4: out.removeSubrange(at ..< min(out.count, at + 1 + Int(random.next() % 32)))
        default:
            guard out.count >= 4 else { return out }
            let i = Int(random.next() % UInt64(out.count - 3))
            let absurd: [Int32] = [.min, -2, -1, 1 << 30, 1 << 24, 1 << 16, Int32(out.count), Int32(out.count - i), .max]
            let value = absurd[Int(random.next() % UInt64(absurd.count))]
            withUnsafeBytes(of: value.littleEndian) { out.replaceSubrange(i ..< i + 4, with: $0) }
        }
        return out
    }
}
