import Foundation
import Testing
@testable import BriefcaseKit

/// `WorkDoneAhead`: the items come in order, and what the workers' functions captured is let go
/// by the time `stop()` returns (a captured element's buffer, handed back to be read into again,
/// must not be shared any more: it would be copied on write, into fresh memory).
struct WorkDoneAheadTests {
    final class Captured: Sendable {}

    @Test(arguments: [1, 2, 4])
    func itemsComeInOrderAndWhatTheWorkersCapturedIsLetGoAtStop(jobs: Int) {
        weak var weakCaptured: Captured?
        let work: WorkDoneAhead<Int> = {
            let captured = Captured()
            weakCaptured = captured
            return WorkDoneAhead(sizes: Array(repeating: 1, count: 50), jobs: jobs, name: "test") {
                { n in withExtendedLifetime(captured) { n * n } }
            }
        }()
        #expect((0 ..< 50).map { work.take($0) } == (0 ..< 50).map { $0 * $0 })
        work.stop()
        #expect(weakCaptured == nil, "the workers' functions are gone once stop() returns")
    }
}
