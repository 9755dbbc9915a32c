import Foundation

/// The markdown the bench prints (and saves as results.md): one table of figures per run, the
/// targets checked (`Target.all`), and the cost per MB across sizes (constant = linear).
struct Report {
    var sizes: [SizeResult]
    var machine: Machine.Description
    var options: Options
    var loadBefore: String
    var loadAfter: String

    func markdown() -> String {
        var lines: [String] = []
        lines.append("Command: `swift run -c release briefcase-bench \(commandArguments)`  ")
        lines.append("Machine: \(machine.oneLine); load average \(loadBefore) before, \(loadAfter) after.  ")
        if let note = jqNote { lines.append(note + "  ") }
        lines.append(method)
        lines.append("")
        lines += dataTable()
        lines.append("")
        lines += resultsTable()
        if sizes.count > 1 {
            lines.append("")
            lines += scalingTable()
        }
        return lines.joined(separator: "\n")
    }

    /// The bench's own arguments as they shape the figures (sizes, runs, seed, profile, jobs).
    var commandArguments: String {
        let sizeList = sizes.map(\.label).joined(separator: ",")
        return "--sizes \(sizeList) --runs \(options.runs) --seed \(options.seed)"
            + (options.profile == .standard ? "" : " --profile " + options.profile.rawValue)
            + (options.jobs == 1 ? "" : " --jobs \(options.jobs)")
    }

    /// How every figure was taken.
    var method: String {
        "Median of \(options.runs) runs after one warm-up (the warm-up checks the results), each run in its own process; MB = 10^6 bytes; peak RSS = `ru_maxrss` of that process (median)."
    }

    /// Why the side-by-side with jq is missing, when it is.
    var jqNote: String? {
        options.operations.contains(.jq) && !Operation.jqInstalled
            ? "`jq` is not installed: the side-by-side `jq -c .` and the → json ratio to it are left out." : nil
    }

    /// The generated data, one line per size.
    func dataTable() -> [String] {
        var lines = ["| data | file | tables | rows | pending changes | NULLs | largest table | JSON document |",
                     "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for size in sizes {
            let d = size.data
            lines.append("| \(size.label) | \(mb(d.fileSize)) | \(d.tables) | \(d.rows) | \(d.changes) | \(String(format: "%.1f %%", 100 * Double(d.nulls) / Double(max(1, d.values)))) | \(mb(d.largestElement)) | \(mb(d.jsonSize)) |")
        }
        return lines
    }

    /// One line per size and operation, with the targets that apply checked.
    func resultsTable() -> [String] {
        var lines = ["| size | operation | median time | CPU time | MB/s of input | rows/s | peak RSS | × floor (time) | × → json (time) | target |",
                     "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
        for size in sizes {
            let floor = size.result(.read), json = size.result(.toJSON)
            /// The median time as a multiple of `base`'s ("–" where it was not measured).
            func times(_ result: OperationResult, _ base: OperationResult?) -> String {
                base.map { String(format: "%.1f", Double(result.medianNanoseconds) / Double(max(1, $0.medianNanoseconds))) } ?? "–"
            }
            for result in size.results {
                guard let operation = Operation(rawValue: result.operation) else { continue }
                let throughput = operation == .openOne ? "–" : String(format: "%.0f", result.megabytesPerSecond)
                lines.append("| \(size.label) | \(result.label) | \(ms(result.medianNanoseconds)) | \(ms(result.medianCPUNanoseconds)) | \(throughput) | \(count(result.rowsPerSecond)) | \(mb(result.medianPeakRSS)) | \(times(result, floor)) | \(times(result, json)) | \(target(operation, result, size)) |")
            }
        }
        return lines
    }

    /// Where the time of the operations that tell goes (→ sqlite: `SQLiteWritePhases`), phase
    /// by phase, for each size: the median of each phase over the runs (the phases' medians need
    /// not add up to the median time exactly).
    func phasesTables() -> [String] {
        var lines: [String] = []
        for size in sizes {
            for result in size.results {
                guard let phases = result.medianPhases else { continue }
                let total = Double(max(1, result.medianNanoseconds))
                lines += ["", "\(result.label), \(size.label) (median \(ms(result.medianNanoseconds)), the thread that writes):", "",
                          "| phase | time | share |", "|---|---:|---:|"]
                for phase in phases {
                    lines.append("| \(phase.name) | \(ms(phase.nanoseconds)) | \(String(format: "%.0f %%", 100 * Double(phase.nanoseconds) / total)) |")
                }
            }
        }
        return lines
    }

    /// Milliseconds per MB of input across sizes (constant = linear).
    func scalingTable() -> [String] {
        var lines = ["Scaling: milliseconds per MB of input (constant across sizes = cost grows linearly).", "",
                     "| operation | " + sizes.map(\.label).joined(separator: " | ") + " | largest ÷ smallest |",
                     "|---|" + sizes.map { _ in "---:|" }.joined() + "---:|"]
        for operation in options.operations where operation != .openOne {
            let perMB = sizes.compactMap { size in size.result(operation).map { $0.seconds * 1000 / (Double($0.inputBytes) / 1e6) } }
            guard perMB.count == sizes.count else { continue }
            lines.append("| \(operation.label) | " + perMB.map { String(format: "%.2f", $0) }.joined(separator: " | ") + " | \(String(format: "%.2f", perMB.last! / perMB.first!)) |")
        }
        let open = sizes.compactMap { $0.result(.openOne) }
        if open.count == sizes.count {
            lines.append("| \(Operation.openOne.label) (ms, should stay flat) | " + open.map { ms($0.medianNanoseconds) }.joined(separator: " | ") + " | \(String(format: "%.2f", Double(open.last!.medianNanoseconds) / Double(max(1, open.first!.medianNanoseconds)))) |")
        }
        return lines
    }

    /// The targets of `Target.all` that apply to this operation, checked (the "target" column).
    func target(_ operation: Operation, _ result: OperationResult, _ size: SizeResult) -> String {
        checks(operation, result, size).map { check in
            check.bound + (check.met ? " ok" : " **missed** (\(check.measured))")
        }.joined(separator: "; ")
    }

    /// Every target that applies to `operation` with this run's jobs, checked against `result`.
    func checks(_ operation: Operation, _ result: OperationResult, _ size: SizeResult) -> [Target.Check] {
        Target.applying(to: operation, jobs: options.jobs).compactMap { $0.check(result, in: size, format: self) }
    }

    func mb(_ bytes: Int) -> String {
        let value = Double(bytes) / 1e6
        return value >= 100 ? String(format: "%.0f MB", value) : String(format: "%.1f MB", value)
    }

    func ms(_ nanoseconds: UInt64) -> String {
        let value = Double(nanoseconds) / 1e6
        return value >= 100 ? String(format: "%.0f ms", value) : String(format: "%.1f ms", value)
    }

    func count(_ perSecond: Double) -> String {
        if perSecond >= 1e6 { return String(format: "%.1f M", perSecond / 1e6) }
        if perSecond >= 1e3 { return String(format: "%.0f k", perSecond / 1e3) }
        return String(format: "%.0f", perSecond)
    }
}
