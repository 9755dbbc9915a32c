import Foundation

/// Benchmarks.md, the repository's current figures (`--markdown FILE`): what the run measured,
/// the machine, commit and date it came from, and every target of `Target.all` with ok or
/// missed. Written by the bench only, never by hand; the README quotes a few of its lines.
struct BenchmarksFile {
    var report: Report
    /// The bench's arguments as given (so the file says how to make it again).
    var arguments: [String]
    var commit: String
    var date: String

    func text() -> String {
        var lines = [
            "# Benchmarks",
            "",
            "<!-- Written by briefcase-bench --markdown (Sources/BriefcaseBench): do not edit by hand, run the bench again. -->",
            "",
            "The current figures of the `briefcase` library, written by its benchmark `briefcase-bench`",
            "(`Sources/BriefcaseBench`) with `--markdown`, never by hand: to bring them up to date, run the",
            "command below from the repository's root and commit the file. The bench generates a synthetic",
            "briefcase of each size (seeded, so the same bytes every time), measures each operation in a",
            "child process of its own, and checks the targets below. The journal of how the figures got",
            "here is `docs/performance-history.md`.",
            "",
            "| | |",
            "|---|---|",
            "| command | `swift run -c release briefcase-bench \(arguments.joined(separator: " "))` |",
            "| commit | \(commit) |",
            "| date | \(date) |",
            "| machine | \(report.machine.oneLine) |",
            "| load average | \(report.loadBefore) before, \(report.loadAfter) after |",
            "| method | \(report.method) |",
        ]
        if let note = report.jqNote { lines += ["", note] }
        lines += ["", "## Data", ""] + report.dataTable()
        lines += ["", "## Results", ""] + report.resultsTable()
        lines += ["", "## Targets", "",
                  "The targets as data (`Target.all` in `Sources/BriefcaseBench/Targets.swift`), each checked against",
                  "every size it applies to in this run.", ""] + targetsTable()
        if let baseline = report.options.baseline {
            lines += ["", "## Against the baseline", "",
                      "The same operations measured by an earlier run (`--baseline \(baseline)`, its results.json),",
                      "on the same machine; the ratio is now ÷ then (below 1: faster now).", ""] + baselineTable(baseline)
        }
        let phases = report.phasesTables()
        if !phases.isEmpty {
            lines += ["", "## Where the time goes", "",
                      "Each phase's wall-clock time on the thread that writes, measured in the same runs",
                      "(`SQLiteWritePhases`); \"SQLite\" is time inside SQLite's calls, \"ours\" the library's."] + phases
        }
        if report.sizes.count > 1 { lines += ["", "## Scaling", ""] + report.scalingTable() }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Every target, with what was measured and ok or missed per size; a target whose
    /// operation (or the one it compares with) was not measured says so.
    func targetsTable() -> [String] {
        var lines = ["| target | for | source | size | measured | |", "|---|---|---|---|---:|---|"]
        for target in Target.all {
            for operation in target.operations {
                var checked = false
                if target.jobs.applies(to: report.options.jobs) {
                    for size in report.sizes {
                        guard let result = size.result(operation),
                              let check = target.check(result, in: size, format: report) else { continue }
                        lines.append("| \(target.description) | \(operation.label) | \(target.source) | \(size.label) | \(check.measured) | \(check.met ? "ok" : "**missed**") |")
                        checked = true
                    }
                }
                if !checked {
                    let why = target.jobs.applies(to: report.options.jobs) ? "not measured in this run" : "not this run's --jobs"
                    lines.append("| \(target.description) | \(operation.label) | \(target.source) | – | – | \(why) |")
                }
            }
        }
        return lines
    }

    /// Each operation measured both in this run and in the baseline's, size by size: median
    /// time and peak RSS then and now.
    func baselineTable(_ path: String) -> [String] {
        guard let data = FileManager.default.contents(atPath: path),
              let then = try? JSONDecoder().decode([SizeResult].self, from: data) else {
            System.fail("--baseline: \(path) is not a results.json the bench wrote")
        }
        var lines = ["| size | operation | then | now | now ÷ then | peak RSS then | now |", "|---|---|---:|---:|---:|---:|---:|"]
        for size in report.sizes {
            guard let earlier = then.first(where: { $0.label == size.label }) else { continue }
            for result in size.results {
                guard let before = earlier.results.first(where: { $0.operation == result.operation }) else { continue }
                let ratio = Double(result.medianNanoseconds) / Double(max(1, before.medianNanoseconds))
                lines.append("| \(size.label) | \(result.label) | \(report.ms(before.medianNanoseconds)) | \(report.ms(result.medianNanoseconds)) | "
                             + "\(String(format: "%.2f", ratio)) | \(report.mb(before.medianPeakRSS)) | \(report.mb(result.medianPeakRSS)) |")
            }
        }
        return lines
    }

    /// `git rev-parse --short HEAD` of the current directory, marked when tracked files other
    /// than `markdownPath` differ from it; "unknown (not a git checkout)" otherwise.
    static func commit(excluding markdownPath: String) -> String {
        let head = System.run(["git", "rev-parse", "--short", "HEAD"], quietErrors: true)
        let hash = head.output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard head.status == 0, !hash.isEmpty else { return "unknown (not a git checkout)" }
        let excluded = ":(exclude)" + URL(fileURLWithPath: markdownPath).standardizedFileURL.path
        let changes = System.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".", excluded], quietErrors: true)
        let clean = changes.status == 0 && changes.output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        return "`\(hash)`" + (clean ? "" : " with uncommitted changes")
    }

    /// The date and time in UTC, to the minute.
    static func now() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        return formatter.string(from: Date())
    }
}
