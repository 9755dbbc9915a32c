/// How a run reads a binary briefcase's elements: one value, computed before the run from the
/// jobs, the elements' sizes and what the sink needs (`SinkNeeds`), that `ElementDecoding`
/// carries out — never a choice made along the way. Whatever the plan, the sink gets the same
/// elements, warnings and errors in the same order: only where and when the work is done changes.
package struct ReadingPlan: Equatable, Sendable {
    /// Where elements are decoded.
    package enum Mode: Equatable, Sendable {
        /// Each element decoded when taken, on the caller's thread (one job, or one element).
        case inline
        /// `workers` threads decode elements ahead of the caller, and do the sink's work on each
        /// (`BriefcaseSink.elementPreparation()`).
        case elementsAhead(workers: Int)
        /// Elements too large to be decoded ahead on every job (`jobs` × the largest above the
        /// budget) go one at a time to a sink that spends the jobs within each
        /// (`SinkNeeds.jobsWithinElements`, `BriefcaseSink.useJobsWithinElements`); one worker reads
        /// and decodes the next ones meanwhile (when there is more than one).
        case rowsWithin(jobs: Int)
    }

    package var mode: Mode
    /// Tables are decoded from the file mapped into memory (`Stored.readMapped`), not copied into
    /// buffers: in `rowsWithin`, and with one job for a sink that writes rows from their bytes (a
    /// sink that made values of them would copy each string out of the mapping).
    package var mapped: Bool
    /// The workers let an element's rows go once they have prepared it: the sink's preparation
    /// needs no rows and the caller reads heads only (`ElementPreparation.needsRows`).
    package var dropsRows: Bool
    /// Each element is read into fresh memory of its own size rather than into the memory of the
    /// one before (inline) or a pooled buffer with room for the largest (ahead): the sink keeps
    /// every element (`SinkNeeds.keepsElements`), so that memory is never free again, and reusing
    /// it would copy the element before, or take the largest element's room, for every element.
    package var freshMemory = false

    /// Whether the workers do the sink's work on each element.
    package var prepares: Bool {
        if case .elementsAhead = mode { return true }
        return false
    }

    /// The plan for `elementCount` elements of which the largest is `largestElement` bytes, with
    /// `jobs`, for a sink with `needs` whose preparation needs rows or not (nil: it has none);
    /// `headsSuffice`: the caller reads only the heads of prepared elements (no code page check
    /// needs their rows). Above `aheadBudget` bytes of elements ahead (`jobs` × the largest), the
    /// elements go one at a time when the sink can use the jobs within each.
    package static func make(jobs: Int, elementCount: Int, largestElement: Int, aheadBudget: Int, needs: SinkNeeds,
                             preparationNeedsRows: Bool?, headsSuffice: Bool) -> ReadingPlan {
        let jobs = max(1, jobs)
        let within = jobs > 1 && jobs * largestElement > aheadBudget && needs.jobsWithinElements
        // Workers decoding ahead only pay when there is more than one element to share among them.
        let mode: Mode = within ? .rowsWithin(jobs: jobs) : jobs > 1 && elementCount > 1 ? .elementsAhead(workers: jobs) : .inline
        let mapped = within || (jobs == 1 && needs.rowsFromTheirBytes)
        var plan = ReadingPlan(mode: mode, mapped: mapped, dropsRows: false, freshMemory: needs.keepsElements)
        plan.dropsRows = plan.prepares && headsSuffice && preparationNeedsRows == false
        return plan
    }

    /// The plan of a run with no sink's needs (`validate`'s own reading): elements ahead on `jobs`.
    package static func plain(jobs: Int, elementCount: Int) -> ReadingPlan {
        make(jobs: jobs, elementCount: elementCount, largestElement: 0, aheadBudget: .max, needs: SinkNeeds(),
             preparationNeedsRows: nil, headsSuffice: false)
    }

    /// The jobs the sink spends within each element (`rowsWithin`), else nil.
    package var jobsWithinElements: Int? {
        if case .rowsWithin(let jobs) = mode { return jobs }
        return nil
    }
}
