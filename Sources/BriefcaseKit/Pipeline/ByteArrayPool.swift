import Synchronization

/// Byte arrays handed back after use, for work on other threads to fill again: the elements a
/// source reads ahead, the elements a sink encodes ahead (`BinarySink.elementPreparation()`).
///
/// Why: fresh memory costs a page fault per 4 KiB touched, and on a VM that is as much as a
/// second core gains. Once the first elements are through, the pool holds as many arrays as
/// were ever in flight at once (`WorkDoneAhead`'s budget bounds those), and every later element
/// goes into memory already touched. Arrays are values: one still shared when it is filled again
/// is copied on write, never changed under its other holder.
package final class ByteArrayPool: Sendable {
    private let free = Mutex<[[UInt8]]>([])

    /// The most arrays kept (nil: no limit).
    private let maximumKept: Int?

    /// An empty pool; `maximumKept`: see `giveBack`.
    package init(maximumKept: Int? = nil) {
        self.maximumKept = maximumKept
    }

    /// One handed back as it was (its bytes and capacity), or an empty array.
    package func take() -> [UInt8] {
        free.withLock { $0.popLast() ?? [] }
    }

    /// For arrays whose count is the memory they touched (elements read into them, each at the
    /// start, the count only growing: `RandomAccessFile.read(_:reusing:)`): one already holding
    /// `count` bytes — the one of least count that does, so that the larger stay for larger
    /// elements — else the one of largest count (the least memory touched anew), else an empty one.
    package func take(atLeast count: Int) -> [UInt8] {
        free.withLock { free in
            let holding = free.indices.filter { free[$0].count >= count }
            guard let chosen = holding.min(by: { free[$0].count < free[$1].count })
                    ?? free.indices.max(by: { free[$0].count < free[$1].count }) else { return [] }
            return free.remove(at: chosen)
        }
    }

    /// Keeps `array` for a later `take()` (an array without memory is not kept). With
    /// `maximumKept`, one more than that lets the one of least count go (the least memory
    /// touched): arrays in flight beyond the usual (elements read far ahead past small ones) are
    /// not all kept, each one's memory resident for good once a large element has filled it.
    package func giveBack(_ array: [UInt8]) {
        guard array.capacity > 0 else { return }
        free.withLock { free in
            free.append(array)
            guard let maximumKept, free.count > maximumKept,
                  let least = free.indices.min(by: { free[$0].count < free[$1].count }) else { return }
            free.remove(at: least)
        }
    }
}
