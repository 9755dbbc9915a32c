import Foundation

/// The markdown the bench prints (and saves as results.md): one table of figures per run, the
/// targets checked, and the cost per MB across sizes (constant = linear).
struct Report {
    var sizes: [SizeResult]
    var machine: Machine.Description
    var options: Options
    var loadBefore: String
    var loadAfter: String

    static let slackBytes = 64_000_000

    func markdown() -> String {
        var lines: [String] = []
        let sizeList = sizes.map(\.label).joined(separator: ",")
        lines.append("Command: `swift run -c release briefcase-bench --sizes \(sizeList) --runs \(options.runs) --seed \(options.seed)\(options.profile == .standard ? "" : " --profile " + options.profile.rawValue)\(options.jobs == 1 ? "" : " --jobs \(options.jobs)")`  ")
        lines.append("Machine: \(machine.oneLine); load average \(loadBefore) before, \(loadAfter) after.  ")
        if options.operations.contains(.jq) && !Operation.jqInstalled {
            lines.append("`jq` is not installed: the side-by-side `jq -c .` and the → json ratio to it are left out.  ")
        }
        lines.append("Median of \(options.runs) runs after one warm-up (the warm-up checks the results), each run in its own process; MB = 10^6 bytes; peak RSS = `ru_maxrss` of that process (median).")
        lines.append("")
        lines.append("| data | file | tables | rows | pending changes | NULLs | largest table | JSON document |")
        lines.append("|---|---:|---:|---:|---:|---:|---:|---:|")
        for size in sizes {
            let d = size.data
            lines.append("| \(size.label) | \(mb(d.fileSize)) | \(d.tables) | \(d.rows) | \(d.changes) | \(String(format: "%.1f %%", 100 * Double(d.nulls) / Double(max(1, d.values)))) | \(mb(d.largestElement)) | \(mb(d.jsonSize)) |")
        }
        lines.append("")
        lines.append("| size | operation | median time | CPU time | MB/s of input | rows/s | peak RSS | × floor (time) | target |")
        lines.append("|---|---|---:|---:|---:|---:|---:|---:|---|")
        for size in sizes {
            let floor = size.result(.read)
            for result in size.results {
                guard let operation = Operation(rawValue: result.operation) else { continue }
                let ratio = floor.map { String(format: "%.1f", Double(result.medianNanoseconds) / Double(max(1, $0.medianNanoseconds))) } ?? "–"
                let throughput = operation == .openOne ? "–" : String(format: "%.0f", result.megabytesPerSecond)
                lines.append("| \(size.label) | \(result.label) | \(ms(result.medianNanoseconds)) | \(ms(result.medianCPUNanoseconds)) | \(throughput) | \(count(result.rowsPerSecond)) | \(mb(result.medianPeakRSS)) | \(ratio) | \(target(operation, result, size)) |")
            }
        }
        if sizes.count > 1 {
            lines.append("")
            lines.append("Scaling: milliseconds per MB of input (constant across sizes = cost grows linearly).")
            lines.append("")
            lines.append("| operation | " + sizes.map(\.label).joined(separator: " | ") + " | largest ÷ smallest |")
            lines.append("|---|" + sizes.map { _ in "---:|" }.joined() + "---:|")
            for operation in options.operations where operation != .openOne {
                let perMB = sizes.compactMap { size in size.result(operation).map { $0.seconds * 1000 / (Double($0.inputBytes) / 1e6) } }
                guard perMB.count == sizes.count else { continue }
                lines.append("| \(operation.label) | " + perMB.map { String(format: "%.2f", $0) }.joined(separator: " | ") + " | \(String(format: "%.2f", perMB.last! / perMB.first!)) |")
            }
            let open = sizes.compactMap { $0.result(.openOne) }
            if open.count == sizes.count {
                lines.append("| \(Operation.openOne.label) (ms, should stay flat) | " + open.map { ms($0.medianNanoseconds) }.joined(separator: " | ") + " | \(String(format: "%.2f", Double(open.last!.medianNanoseconds) / Double(max(1, open.first!.medianNanoseconds)))) |")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The issue's targets, checked.
    func target(_ operation: Operation, _ result: OperationResult, _ size: SizeResult) -> String {
        var checks: [String] = []
        func speed(_ minimum: Double) {
            checks.append("≥ \(Int(minimum)) MB/s " + (result.megabytesPerSecond >= minimum ? "ok" : "**MISS**"))
        }
        // With two jobs or more, round 3's targets for two cores (issue 13); else one core's.
        let cores = options.jobs >= 2
        switch operation {
        case .decode: speed(2000)  // in a fresh process (round 3)
        case .validate: speed(cores ? 1800 : 1000)
        case .toJSON:
            speed(cores ? 550 : 300)
            if let jq = size.result(.jq) {
                let ratio = Double(result.medianNanoseconds) / Double(max(1, jq.medianNanoseconds))
                checks.append(String(format: "÷ jq %.3f (≤ 0.1 ", ratio) + (ratio <= 0.1 ? "ok)" : "**MISS**)"))
            }
        case .fromJSON: speed(cores ? 350 : 150)
        case .openOne: checks.append("< 50 ms " + (result.seconds < 0.05 ? "ok" : "**MISS**"))
        case .toSQLite:
            if let json = size.result(.toJSON) {
                let ratio = Double(result.medianNanoseconds) / Double(max(1, json.medianNanoseconds))
                checks.append(String(format: "≤ 3× → json (%.1f×) ", ratio) + (ratio <= 3 ? "ok" : "**MISS**"))
            }
        default: break
        }
        if operation.isConversion {
            let budget = result.inputBytes + size.data.largestElement + Self.slackBytes
            checks.append("RSS ≤ \(mb(budget)) " + (result.medianPeakRSS <= budget ? "ok" : "**MISS**"))
        }
        return checks.joined(separator: "; ")
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
