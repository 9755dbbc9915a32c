import Testing
@testable import BriefcaseKit

/// `ByteArrayPool.take(atLeast:)` and `capacityLimit`: which array a reader of many sizes gets
/// back, and how much memory the pool keeps. Each array carries its capacity's order of magnitude
/// as its one byte, so a test sees which one came back (capacities are at least what was asked,
/// rounded up by the allocator, so the sizes here are far apart).
struct ByteArrayPoolTests {
    static func array(tag: UInt8, capacity: Int) -> [UInt8] {
        var array: [UInt8] = [tag]
        array.reserveCapacity(capacity)
        return array
    }

    static func pool(capacityLimit: Int? = nil, _ tagsAndCapacities: [(UInt8, Int)]) -> ByteArrayPool {
        let pool = ByteArrayPool(capacityLimit: capacityLimit)
        for (tag, capacity) in tagsAndCapacities { pool.giveBack(array(tag: tag, capacity: capacity)) }
        return pool
    }

    @Test func theLeastCapacityThatHoldsTheCountComesBack() {
        let pool = Self.pool([(5, 100_000), (3, 1_000), (4, 10_000)])
        #expect(pool.take(atLeast: 6_000) == [4])
        #expect(pool.take(atLeast: 900) == [3])
        #expect(pool.take(atLeast: 60_000) == [5])
        #expect(pool.take(atLeast: 1).capacity == 0, "the pool is empty")
    }

    /// An array more than twice the size asked for stays in the pool: it would hold its memory
    /// for a small element.
    @Test func anArrayMoreThanTwiceTheCountIsNotTaken() {
        let pool = Self.pool([(5, 100_000)])
        #expect(pool.take(atLeast: 1_000).capacity == 0)
        #expect(pool.take(atLeast: 60_000) == [5])
    }

    /// When none is large enough, the largest comes (its memory is replaced by whoever fills it),
    /// so the pool does not grow by one more array.
    @Test func whenNoneIsLargeEnoughTheLargestComes() {
        let pool = Self.pool([(3, 1_000), (4, 10_000)])
        #expect(pool.take(atLeast: 1_000_000) == [4])
        #expect(pool.take(atLeast: 1_000_000) == [3])
    }

    /// With a limit, the smallest arrays are let go while those kept hold more than it.
    @Test func theSmallestAreLetGoAboveTheCapacityLimit() {
        let pool = Self.pool(capacityLimit: 50_000, [(1, 10_000), (2, 20_000)])
        #expect(pool.take(atLeast: 15_000) == [2], "30 000 bytes kept: both")
        pool.giveBack(Self.array(tag: 2, capacity: 20_000))
        pool.giveBack(Self.array(tag: 4, capacity: 40_000))  // 70 000: the 10 000 and 20 000 go
        #expect(pool.take(atLeast: 1_000_000) == [4])
        #expect(pool.take(atLeast: 1_000_000).capacity == 0, "nothing else kept")
    }

    /// `take()` (one size for all: chunks) gives the last array handed back.
    @Test func takeWithoutACountGivesTheLastHandedBack() {
        let pool = Self.pool([(1, 1_000), (2, 1_000)])
        #expect(pool.take() == [2])
        #expect(pool.take() == [1])
        #expect(pool.take().capacity == 0)
    }
}
