/// The targets the bench checks, as data: each names the operations it applies to, its bound,
/// the number of jobs it is for, and where it comes from. The report's "target" column and
/// Benchmarks.md's "Targets" table are both made from `Target.all`; adding a target is adding a
/// line here.
struct Target {
    enum Bound {
        /// At least this many MB/s of the operation's input.
        case throughput(megabytesPerSecond: Double)
        /// At least this many rows (and pending changes) a second.
        case rows(perSecond: Double)
        /// A median time under this many seconds.
        case time(under: Double)
        /// A median time at most `factor` times another operation's (measured in the same run).
        case ratio(to: Operation, atMost: Double)
        /// Peak RSS at most the input, plus the largest table, plus `slack` bytes.
        case memory(slack: Int)
        /// Peak RSS at most `tables` times the largest table for each job and for the thread
        /// taking their work, plus `slack` bytes: a bound that does not grow with the input.
        case memoryOfTables(Int, slack: Int)
        /// Peak RSS at most the largest table plus `slack` bytes (what reads one table).
        case memoryBeyondLargestTable(slack: Int)
    }

    /// Which `--jobs` the target is for.
    enum Jobs {
        case any, one, several

        func applies(to jobs: Int) -> Bool {
            switch self {
            case .any: return true
            case .one: return jobs < 2
            case .several: return jobs >= 2
            }
        }
    }

    /// How one target came out for one operation at one size.
    struct Check {
        var target: Target
        /// What was measured, as the bound reads it (`1285 MB/s`, `2.2×`, `29.5 MB`).
        var measured: String
        /// The bound with its figure (`≥ 300 MB/s`, `RSS ≤ 76.6 MB`).
        var bound: String
        var met: Bool
    }

    var operations: [Operation]
    var bound: Bound
    var jobs: Jobs = .any
    var source: String
    /// The largest data (its target size) the target is for; nil: every size.
    var upTo: Int?

    /// Peak memory a conversion may use above its input and its largest table.
    static let slackBytes = 64_000_000

    static let all: [Target] = [
        Target(operations: [.decode], bound: .throughput(megabytesPerSecond: 2000), source: "issue 13, round 3 (a fresh process)"),
        Target(operations: [.validate], bound: .throughput(megabytesPerSecond: 1000), jobs: .one, source: "issue 13, one core"),
        Target(operations: [.validate], bound: .throughput(megabytesPerSecond: 1800), jobs: .several, source: "issue 13, two cores"),
        Target(operations: [.toJSON], bound: .throughput(megabytesPerSecond: 300), jobs: .one, source: "the first benchmark"),
        Target(operations: [.toJSON], bound: .throughput(megabytesPerSecond: 550), jobs: .several, source: "issue 13, two cores"),
        Target(operations: [.toJSON], bound: .ratio(to: .jq, atMost: 0.1), source: "issue 13"),
        Target(operations: [.fromJSON], bound: .throughput(megabytesPerSecond: 150), jobs: .one, source: "the first benchmark"),
        Target(operations: [.fromJSON], bound: .throughput(megabytesPerSecond: 350), jobs: .several, source: "issue 13, two cores"),
        Target(operations: [.openOne], bound: .time(under: 0.05), source: "the first benchmark"),
        Target(operations: [.toSQLite], bound: .ratio(to: .toJSON, atMost: 3), source: "issue 15"),
        Target(operations: [.toSQLite], bound: .ratio(to: .toJSON, atMost: 2), source: "issue 29"),
        Target(operations: [.toSQLite], bound: .rows(perSecond: 3_000_000), source: "issue 29"),
        // (The input of sqlite → dabriefcase is counted as the briefcase it gives: its output.)
        Target(operations: [.fromSQLite], bound: .throughput(megabytesPerSecond: 400), source: "issue 29 (MB/s of output)"),
        Target(operations: [.toSnapshot], bound: .ratio(to: .toJSON, atMost: 2), source: "issue 29"),
        Target(operations: [.fromSnapshot], bound: .ratio(to: .fromJSON, atMost: 2), source: "issue 29"),
        Target(operations: [.diff], bound: .ratio(to: .toJSON, atMost: 2), source: "issue 26"),
        Target(operations: [.diff], bound: .memoryOfTables(2, slack: slackBytes), source: "issue 26"),
        Target(operations: [.merge], bound: .ratio(to: .toJSON, atMost: 3), source: "issue 27"),
        Target(operations: [.merge], bound: .memoryOfTables(3, slack: slackBytes), source: "issue 27"),
        Target(operations: [.queryCount, .queryFirstRow], bound: .time(under: 0.05), source: "issue 28 (100 MB)", upTo: 100_000_000),
        Target(operations: [.queryCount], bound: .memoryBeyondLargestTable(slack: slackBytes), source: "issue 28 (100 MB)", upTo: 100_000_000),
        Target(operations: Operation.allCases.filter(\.isConversion), bound: .memory(slack: slackBytes),
               source: "the first benchmark"),
    ]

    /// The targets that apply to `operation` with `jobs`.
    static func applying(to operation: Operation, jobs: Int) -> [Target] {
        all.filter { $0.operations.contains(operation) && $0.jobs.applies(to: jobs) }
    }

    /// This target checked against `result`, or nil when what it compares with was not measured.
    func check(_ result: OperationResult, in size: SizeResult, format: Report) -> Check? {
        if let upTo, size.data.targetSize > upTo { return nil }
        switch bound {
        case .throughput(let minimum):
            return Check(target: self, measured: String(format: "%.0f MB/s", result.megabytesPerSecond),
                         bound: "≥ \(Int(minimum)) MB/s", met: result.megabytesPerSecond >= minimum)
        case .rows(let minimum):
            return Check(target: self, measured: format.count(result.rowsPerSecond) + " rows/s",
                         bound: "≥ \(format.count(minimum)) rows/s", met: result.rowsPerSecond >= minimum)
        case .time(let limit):
            return Check(target: self, measured: format.ms(result.medianNanoseconds),
                         bound: "< \((limit * 1000).formatted()) ms", met: result.seconds < limit)
        case .ratio(let other, let factor):
            guard let base = size.result(other) else { return nil }
            let ratio = Double(result.medianNanoseconds) / Double(max(1, base.medianNanoseconds))
            let figure = factor < 1 ? String(format: "%.3f×", ratio) : String(format: "%.1f×", ratio)
            return Check(target: self, measured: figure, bound: "≤ \(factor.formatted())× \(other.label)", met: ratio <= factor)
        case .memory(let slack):
            let budget = result.inputBytes + size.data.largestElement + slack
            return Check(target: self, measured: format.mb(result.medianPeakRSS), bound: "RSS ≤ \(format.mb(budget))",
                         met: result.medianPeakRSS <= budget)
        case .memoryOfTables(let tables, let slack):
            let budget = (format.options.jobs + 1) * tables * size.data.largestElement + slack
            return Check(target: self, measured: format.mb(result.medianPeakRSS), bound: "RSS ≤ \(format.mb(budget))",
                         met: result.medianPeakRSS <= budget)
        case .memoryBeyondLargestTable(let slack):
            let budget = size.data.largestElement + slack
            return Check(target: self, measured: format.mb(result.medianPeakRSS), bound: "RSS ≤ \(format.mb(budget))",
                         met: result.medianPeakRSS <= budget)
        }
    }

    /// The bound in words, for the table of targets (`≥ 300 MB/s of input, one job`).
    var description: String {
        let text: String
        switch bound {
        case .throughput(let minimum): text = "≥ \(Int(minimum)) MB/s of input"
        case .rows(let minimum): text = "≥ \(Int(minimum / 1e6)) M rows/s"
        case .time(let limit): text = "median time < \((limit * 1000).formatted()) ms"
        case .ratio(let other, let factor): text = "≤ \(factor.formatted())× the time of \(other.label)"
        case .memory(let slack): text = "peak RSS ≤ input + largest table + \(slack / 1_000_000) MB"
        case .memoryOfTables(let tables, let slack):
            text = "peak RSS ≤ (jobs + 1) × \(tables) × largest table + \(slack / 1_000_000) MB"
        case .memoryBeyondLargestTable(let slack): text = "peak RSS ≤ largest table + \(slack / 1_000_000) MB"
        }
        switch jobs {
        case .any: return text
        case .one: return text + ", one job"
        case .several: return text + ", --jobs 2 or more"
        }
    }
}

private extension Double {
    /// `3`, `0.1`, `50`: the shortest text of a bound.
    func formatted() -> String {
        self == rounded() ? String(Int(self)) : String(self)
    }
}
