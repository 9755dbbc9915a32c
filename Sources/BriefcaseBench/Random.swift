/// SplitMix64: small, fast, and the same sequence on every platform for a seed, which is what
/// makes the generated briefcases reproducible byte for byte.
struct SplitMix64 {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    @inline(__always)
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in `range` (tiny modulo bias, irrelevant here).
    @inline(__always)
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }

    /// Uniform in [0, 1).
    @inline(__always)
    mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

    @inline(__always)
    mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// Log-uniform in `range`: many small values, a few large ones (blob sizes, text lengths).
    mutating func logUniform(_ range: ClosedRange<Int>) -> Int {
        let low = Double(max(1, range.lowerBound)).squareRoot().squareRoot(), high = Double(range.upperBound).squareRoot().squareRoot()
        // x^4 of a uniform in [low, high]: skewed towards the low end, like real blob sizes.
        let x = low + (high - low) * unit()
        return min(range.upperBound, max(range.lowerBound, Int(x * x * x * x)))
    }

    mutating func pick<T>(_ items: [T]) -> T { items[Int(next() % UInt64(items.count))] }

    /// A new generator whose sequence depends on this one's seed and `salt` (one per table, so a
    /// table's contents do not depend on how many rows the tables before it got).
    func fork(_ salt: UInt64) -> SplitMix64 {
        var copy = SplitMix64(seed: state ^ (salt &* 0xD6E8_FEB8_6659_FD93))
        _ = copy.next()
        return copy
    }
}
