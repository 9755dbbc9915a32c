import Testing
@testable import BriefcaseKit

/// `ReadingPlan.make`: given the jobs, the elements' count and largest size, the budget of bytes
/// ahead and what the sink needs → where the elements are decoded, mapped or not, rows dropped or
/// not. Each row written out by hand from the rules of BriefcaseElements.read (issue 25 item 3).
struct ReadingPlanTests {
    struct Case: Sendable, CustomStringConvertible {
        var jobs: Int, count: Int, largest: Int
        var needs: SinkNeeds
        var preparationNeedsRows: Bool?
        var headsSuffice: Bool
        var mode: ReadingPlan.Mode, mapped: Bool, dropsRows: Bool
        var description: String { "jobs \(jobs), \(count) elements, largest \(largest), \(needs)" }
    }

    static let budget = 100
    static let json = SinkNeeds(rowsFromTheirBytes: true, jobsWithinElements: true, checksUTF8: true)
    static let binary = SinkNeeds()

    static let cases: [Case] = [
        // One job: inline; a sink writing rows from their bytes reads them mapped.
        Case(jobs: 1, count: 30, largest: 10, needs: json, preparationNeedsRows: false, headsSuffice: true, mode: .inline, mapped: true, dropsRows: false),
        Case(jobs: 1, count: 30, largest: 10, needs: binary, preparationNeedsRows: false, headsSuffice: true, mode: .inline, mapped: false, dropsRows: false),
        // Several jobs, small elements: decoded ahead, prepared there, rows let go when only heads are read.
        Case(jobs: 2, count: 30, largest: 10, needs: json, preparationNeedsRows: false, headsSuffice: true,
             mode: .elementsAhead(workers: 2), mapped: false, dropsRows: true),
        Case(jobs: 2, count: 30, largest: 10, needs: json, preparationNeedsRows: false, headsSuffice: false,
             mode: .elementsAhead(workers: 2), mapped: false, dropsRows: false),
        Case(jobs: 3, count: 30, largest: 10, needs: binary, preparationNeedsRows: nil, headsSuffice: true,
             mode: .elementsAhead(workers: 3), mapped: false, dropsRows: false),
        // 2 × 60 > 100: a sink that can use the jobs within elements takes them one at a time, mapped;
        Case(jobs: 2, count: 30, largest: 60, needs: json, preparationNeedsRows: false, headsSuffice: true,
             mode: .rowsWithin(jobs: 2), mapped: true, dropsRows: false),
        // (a single large element too: its rows still on both jobs)
        Case(jobs: 2, count: 1, largest: 600, needs: json, preparationNeedsRows: false, headsSuffice: true,
             mode: .rowsWithin(jobs: 2), mapped: true, dropsRows: false),
        // one that cannot is decoded ahead all the same.
        Case(jobs: 2, count: 30, largest: 60, needs: binary, preparationNeedsRows: false, headsSuffice: true,
             mode: .elementsAhead(workers: 2), mapped: false, dropsRows: true),
        // 2 × 50 = 100: not above the budget.
        Case(jobs: 2, count: 30, largest: 50, needs: json, preparationNeedsRows: false, headsSuffice: true,
             mode: .elementsAhead(workers: 2), mapped: false, dropsRows: true),
        // One element and no jobs within: nothing to share among workers.
        Case(jobs: 4, count: 1, largest: 10, needs: binary, preparationNeedsRows: false, headsSuffice: true, mode: .inline, mapped: false, dropsRows: false),
        // A preparation that needs the rows keeps them.
        Case(jobs: 2, count: 30, largest: 10, needs: binary, preparationNeedsRows: true, headsSuffice: true,
             mode: .elementsAhead(workers: 2), mapped: false, dropsRows: false),
    ]

    @Test(arguments: cases)
    func thePlanFollowsTheRules(_ c: Case) {
        let plan = ReadingPlan.make(jobs: c.jobs, elementCount: c.count, largestElement: c.largest, aheadBudget: Self.budget, needs: c.needs,
                                    preparationNeedsRows: c.preparationNeedsRows, headsSuffice: c.headsSuffice)
        #expect(plan == ReadingPlan(mode: c.mode, mapped: c.mapped, dropsRows: c.dropsRows), "\(c)")
        #expect(plan.prepares == (c.mode == .elementsAhead(workers: c.jobs)))
    }

    /// A sink that keeps every element (a document collected whole) gets each read into memory of
    /// its own; the others reuse the memory of the element before.
    @Test func aSinkThatKeepsElementsGetsFreshMemory() {
        func plan(_ needs: SinkNeeds) -> ReadingPlan {
            ReadingPlan.make(jobs: 1, elementCount: 30, largestElement: 10, aheadBudget: Self.budget, needs: needs,
                             preparationNeedsRows: nil, headsSuffice: true)
        }
        #expect(plan(BriefcaseCollector().needs).freshMemory)
        #expect(plan(BriefcaseCollector().needs) == ReadingPlan(mode: .inline, mapped: false, dropsRows: false, freshMemory: true))
        #expect(!plan(SinkNeeds()).freshMemory)
    }

    /// `validate`'s reading: elements ahead on the jobs, never mapped, rows kept.
    @Test func validateReadsAheadOnItsJobs() {
        #expect(ReadingPlan.plain(jobs: 1, elementCount: 9) == ReadingPlan(mode: .inline, mapped: false, dropsRows: false))
        #expect(ReadingPlan.plain(jobs: 2, elementCount: 9) == ReadingPlan(mode: .elementsAhead(workers: 2), mapped: false, dropsRows: false))
        #expect(ReadingPlan.plain(jobs: 0, elementCount: 9).mode == .inline)
    }
}
