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

    /// An empty pool.
    public init() {}

    /// One handed back as it was (its bytes and capacity), or an empty array.
    public func take() -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        return free.popLast() ?? []
    }

    /// Keeps `array` for a later `take()` (an array without memory is not kept).
    public func giveBack(_ array: [UInt8]) {
        guard array.capacity > 0 else { return }
        lock.lock()
        defer { lock.unlock() }
        free.append(array)
    }
}
