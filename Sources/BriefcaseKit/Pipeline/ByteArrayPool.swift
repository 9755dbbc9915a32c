import Foundation

/// Byte arrays handed back after use, for work on other threads to fill again: the elements a
/// source reads ahead, the elements a sink encodes ahead (`BinarySink.elementPreparation()`).
///
/// Why: fresh memory costs a page fault per 4 KiB touched, and on a VM that is as much as a
/// second core gains. Once the first elements are through, the pool holds as many arrays as
/// were ever in flight at once (`WorkDoneAhead`'s budget bounds those), and every later element
/// goes into memory already touched. Arrays are values: one still shared when it is filled again
/// is copied on write, never changed under its other holder.
public final class ByteArrayPool: @unchecked Sendable {
    private let lock = NSLock()
    private var free: [[UInt8]] = []

    /// The most capacity the arrays kept may add up to (nil: no limit).
    private let capacityLimit: Int?

    /// An empty pool; `capacityLimit`: see `giveBack`.
    public init(capacityLimit: Int? = nil) {
        self.capacityLimit = capacityLimit
    }

    /// One handed back as it was (its bytes and capacity), or an empty array.
    public func take() -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        return free.popLast() ?? []
    }

    /// For arrays of many sizes (elements read ahead), one whose capacity fits `count` bytes:
    /// the least of at least `count`, unless it is more than twice that (a large array taken for
    /// a small element would hold the large one's memory for it); else the largest one too small
    /// (whoever fills it replaces its memory, so the pool does not grow by one more); else an
    /// empty array.
    public func take(atLeast count: Int) -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        let fitting = free.indices.filter { free[$0].capacity >= count }
        if let best = fitting.min(by: { free[$0].capacity < free[$1].capacity }) {
            return free[best].capacity <= 2 * count ? free.remove(at: best) : []
        }
        guard let largest = free.indices.max(by: { free[$0].capacity < free[$1].capacity }) else { return [] }
        return free.remove(at: largest)
    }

    /// Keeps `array` for a later `take()` (an array without memory is not kept). With a
    /// `capacityLimit`, the smallest arrays kept are let go while they hold more than that.
    public func giveBack(_ array: [UInt8]) {
        guard array.capacity > 0 else { return }
        lock.lock()
        defer { lock.unlock() }
        free.append(array)
        guard let capacityLimit else { return }
        free.sort { $0.capacity > $1.capacity }
        var kept = 0
        free = free.prefix { kept += $0.capacity; return kept <= capacityLimit }.map { $0 }
    }
}
