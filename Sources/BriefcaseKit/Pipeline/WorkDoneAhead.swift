import Foundation

/// Items `0 ..< sizes.count` worked on by worker threads ahead of the one thread that takes
/// them, in order: how a source decodes elements on several cores while its sink still takes
/// them one by one in the order of a single-core run (`BriefcaseElements.read(…jobs:)`, the JSON
/// document's `JSONStreamReader.jobs`).
///
/// How far ahead: the item the taker holds and those worked on ahead of it — in work, or done
/// and waiting — add up to at most `jobs` + 1 times the largest item's size (`sizes`, in bytes of
/// input), and number at most `jobs` × 16 ahead. So memory holds at most `jobs` + 1 items the
/// size of the largest, the taker's included, where one job holds one. A bound in bytes rather
/// than in items: briefcases put small tables between large ones, and a window of a few items
/// would leave the workers idle behind the small ones while the sink writes a large one. The
/// taker's item counts: while it holds a small one, the largest may already be worked on.
///
/// `@unchecked Sendable`: the workers and the taker share the object, and every mutable property
/// is read and written only with `condition` locked; the outputs it hands across are `Sendable`.
package final class WorkDoneAhead<Output: Sendable>: @unchecked Sendable {
    /// Makes one worker's function (once per thread, on that thread: it may keep scratch memory
    /// of its own). The function works on item `n`.
    package typealias MakeWorker = @Sendable () -> (_ n: Int) -> Output

    private let count: Int
    /// `sizeBefore[k]`: the sizes of items `0 ..< k`.
    private let sizeBefore: [Int]
    private let budget: Int
    private let maximumAhead: Int
    private let condition = NSCondition()
    /// Done items by number modulo `slots.count` (`taker ... taker + maximumAhead`).
    private var slots: [Output?]
    /// The next item a worker takes up.
    private var nextToDo = 0
    /// The item the taker holds or waits for: those before it are let go.
    private var taker = 0
    private var stopped = false
    private var runningWorkers: Int
    /// What makes the workers' functions, let go by `stop()`: what they captured (an element
    /// whose buffer is handed back to be read into again) must not outlive the work, or that
    /// buffer, still shared, would be copied on its next write.
    private var workerMaker: (() -> (_ n: Int) -> Output)?

    /// Starts `min(jobs, sizes.count)` threads named `name`. `outputsAreSmall`: an item's
    /// memory is let go when it is done, its output being small beside it (a comparison of two
    /// tables gives their differences): the items worked on are at most `jobs`, so only
    /// `jobs` × 16 bounds how far ahead the workers go, not the sizes.
    package init(sizes: [Int], jobs: Int, name: String, outputsAreSmall: Bool = false, makeWorker: @escaping MakeWorker) {
        count = sizes.count
        var total = 0
        sizeBefore = [0] + sizes.map { total += $0; return total }
        budget = outputsAreSmall ? Int.max : (max(1, jobs) + 1) * max(sizes.max() ?? 1, 1)
        maximumAhead = max(1, jobs) * 16
        slots = Array(repeating: nil, count: maximumAhead + 1)
        runningWorkers = min(max(1, jobs), count)
        workerMaker = makeWorker
        for _ in 0 ..< runningWorkers {
            let worker = Thread { [self] in work() }
            worker.name = name
            worker.start()
        }
    }

    /// Whether item `n` may be taken up now (called with `condition` locked): it is the one the
    /// taker waits for, or it is within the budget with the items from the taker's to it.
    private func mayDo(_ n: Int) -> Bool {
        n == taker || (n - taker <= maximumAhead && sizeBefore[n + 1] - sizeBefore[taker] <= budget)
    }

    /// The output of item `n` (each in turn from 0), waiting for it to be done. Taking it lets
    /// the one taken before go.
    package func take(_ n: Int) -> Output {
        condition.lock()
        defer { condition.unlock() }
        if taker != n {
            taker = n  // the one before is let go: workers may start more
            condition.broadcast()
        }
        while true {
            if let done = slots[n % slots.count] {
                slots[n % slots.count] = nil
                return done
            }
            condition.wait()
        }
    }

    /// Asks the workers to stop, waits until they have (each finishes the item it is on), and
    /// drops what is left done: when the taker is done, or gives up early (an error, a restart).
    package func stop() {
        condition.lock()
        defer { condition.unlock() }
        stopped = true
        condition.broadcast()
        while runningWorkers > 0 { condition.wait() }
        slots = []
        workerMaker = nil
    }

    /// One worker: takes up the next item when it may, works on it unlocked, puts it in its slot.
    /// Its function is let go before the worker counts itself out (`stop()` returns then).
    private func work() {
        do {
            condition.lock()
            let make = workerMaker
            condition.unlock()
            if let make { work(make()) }
        }
        condition.lock()
        runningWorkers -= 1
        condition.broadcast()
        condition.unlock()
    }

    private func work(_ function: (Int) -> Output) {
        condition.lock()
        defer { condition.unlock() }
        while true {
            while !stopped && nextToDo < count && !mayDo(nextToDo) { condition.wait() }
            guard !stopped && nextToDo < count else { break }
            let n = nextToDo
            nextToDo += 1
            condition.unlock()
            let output = function(n)
            condition.lock()
            if !stopped { slots[n % slots.count] = output }
            condition.broadcast()
        }
    }
}
