import Testing
@testable import BriefcaseKit

/// `ByteArrayPool`: which array a reader of elements of many sizes gets back
/// (`take(atLeast:)`, by count: the memory each one touched), and how many it keeps
/// (`maximumKept`). Each array's first byte tells which it is.
struct ByteArrayPoolTests {
    /// An array of `count` bytes, the first `tag`.
    static func array(tag: UInt8, count: Int) -> [UInt8] {
        [tag] + [UInt8](repeating: 0, count: count - 1)
    }

    static func pool(maximumKept: Int? = nil, _ tagsAndCounts: [(UInt8, Int)]) -> ByteArrayPool {
        let pool = ByteArrayPool(maximumKept: maximumKept)
        for (tag, count) in tagsAndCounts { pool.giveBack(array(tag: tag, count: count)) }
        return pool
    }

    /// The least that already holds the count comes, so the larger stay for larger elements.
    @Test func theLeastHoldingTheCountComes() {
        let pool = Self.pool([(5, 100_000), (3, 1_000), (4, 10_000)])
        #expect(pool.take(atLeast: 6_000).first == 4)
        #expect(pool.take(atLeast: 900).first == 3)
        #expect(pool.take(atLeast: 900).first == 5)
        #expect(pool.take(atLeast: 1).capacity == 0, "the pool is empty")
    }

    /// When none holds the count, the one of largest count (the least memory touched anew).
    @Test func whenNoneHoldsTheCountTheLargestComes() {
        let pool = Self.pool([(3, 1_000), (4, 10_000)])
        #expect(pool.take(atLeast: 1_000_000).first == 4)
        #expect(pool.take(atLeast: 1_000_000).first == 3)
        #expect(pool.take(atLeast: 1).capacity == 0, "the pool is empty")
    }

    /// One more than `maximumKept` lets the one of least count go.
    @Test func aboveTheMaximumTheLeastTouchedGoes() {
        let pool = Self.pool(maximumKept: 2, [(1, 10_000), (2, 20_000), (3, 5_000)])
        #expect(pool.take(atLeast: 1_000_000).first == 2)
        #expect(pool.take(atLeast: 1_000_000).first == 1)
        #expect(pool.take(atLeast: 1).capacity == 0, "the 5 000 went")
    }

    /// `take()` (one size for all: chunks) gives the last array handed back.
    @Test func takeWithoutACountGivesTheLastHandedBack() {
        let pool = Self.pool([(1, 1_000), (2, 1_000)])
        #expect(pool.take().first == 2)
        #expect(pool.take().first == 1)
        #expect(pool.take().capacity == 0)
    }
}
