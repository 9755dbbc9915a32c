import CSystemShims
import Foundation

/// The disk's side of `AtomicOutput`'s write-behind, on a thread of its own: the writer says how
/// far it has written (`request(upTo:)`) and goes on; this thread asks the kernel to start writing
/// each new stretch to disk, then waits for the stretch asked for before that one and lets the
/// page cache drop it (`briefcase_settle_written`).
///
/// Why a thread: starting the writing is the file system's work done in the caller (ext4 maps
/// blocks and builds the I/O for every page: 26 ms of CPU for the 134 MB of the bench's 100 MB →
/// json), and the thread that writes the output is the one every conversion waits for; done here,
/// it overlaps with the encoding. The same system calls in the same order as on the writer's
/// thread, so the same pages reach the disk and leave the cache.
///
/// `@unchecked Sendable`: the writer and the thread share it, and every mutable property is read
/// and written only with `condition` locked. The descriptor is the writer's; `finish()` returns
/// only once the thread is done with it, so the writer may then close it.
final class WriteBehind: @unchecked Sendable {
    private let fd: Int32
    private let condition = NSCondition()
    /// Where each request the writer made ends, in order, from `next` on not yet handled (each is
    /// handled as it was made, however far behind this thread is: the same calls as on the
    /// writer's thread); and how far this thread has asked the disk to take.
    private var requests: [Int] = []
    private var next = 0
    private var handled = 0
    /// Whether a request is being handled (taken off the list, not yet done).
    private var busy = false
    /// Where the last request to the disk began; the bytes before `settled` are on disk and out
    /// of the page cache.
    private var lastRequestStart = 0
    private var settledBytes = 0
    private var finishing = false
    private var running = true
    /// The first error the disk reported (an errno).
    private var failure: Int32?
    /// Whether each stretch, once on disk, leaves the page cache (false for a file another
    /// writer may still read or write: SQLite's).
    private let dropsWritten: Bool

    init(fd: Int32, dropsWritten: Bool = true) {
        self.fd = fd
        self.dropsWritten = dropsWritten
        let thread = Thread { [self] in run() }
        thread.name = "briefcase write-behind"
        thread.start()
    }

    /// The writer has written `end` bytes: the new ones are the disk's to take.
    func request(upTo end: Int) {
        condition.lock()
        requests.append(end)
        condition.broadcast()
        condition.unlock()
    }

    /// The bytes before this offset are on disk and out of the page cache (once every request
    /// made so far is handled: see `waitUntilHandled()`).
    var settled: Int {
        condition.lock()
        defer { condition.unlock() }
        return settledBytes
    }

    /// Waits until every request made so far is handled (for tests: what the disk was asked).
    func waitUntilHandled() {
        condition.lock()
        while (next < requests.count || busy) && running { condition.wait() }
        condition.unlock()
    }

    /// Handles what is left, ends the thread and returns the first error the disk reported.
    /// After this the descriptor is the writer's alone.
    func finish() -> Int32? {
        condition.lock()
        defer { condition.unlock() }
        finishing = true
        condition.broadcast()
        while running { condition.wait() }
        return failure
    }

    private func run() {
        condition.lock()
        while true {
            while next == requests.count && !finishing { condition.wait() }
            guard next < requests.count else { break }
            let start = handled, end = requests[next], settleFrom = settledBytes, settleTo = lastRequestStart
            next += 1
            if next == requests.count {  // (all taken: the list starts again)
                requests.removeAll(keepingCapacity: true)
                next = 0
            }
            busy = true
            condition.unlock()
            _ = briefcase_start_writeback(fd, Int64(start), Int64(end - start))
            var error: Int32?
            if dropsWritten, settleTo > settleFrom, briefcase_settle_written(fd, Int64(settleFrom), Int64(settleTo - settleFrom)) != 0 {
                error = errno
            }
            condition.lock()
            if failure == nil { failure = error }
            if dropsWritten { settledBytes = max(settledBytes, settleTo) }
            lastRequestStart = start
            handled = end
            busy = false
            condition.broadcast()
        }
        running = false
        condition.broadcast()
        condition.unlock()
    }
}
