#if canImport(Glibc)
import Glibc
#endif
import Foundation

struct Options {
    var sizes: [Int] = [100_000_000]
    var runs = 5
    var seed: UInt64 = 1
    var scratch = "/tmp/briefcase-bench"
    var out: String?
    /// Where to write Benchmarks.md (`--markdown FILE`), or nil.
    var markdown: String?
    /// The bench's arguments as given, for Benchmarks.md's command line.
    var arguments: [String] = []
    var operations: [Operation] = Operation.allCases
    /// Sizes at which only `largeOperations` (and the floor) are measured, after `sizes`
    /// (`--large-sizes`, `--large-ops`: the operations whose targets speak of large files).
    var largeSizes: [Int] = []
    var largeOperations: [Operation] = []
    var keepData = false
    var profile = Generator.Profile.standard
    /// dabriefcase → snapshot is measured only up to this size (it streams now; the limit is there
    /// to shorten a run: at about 85 MB/s it is the slowest operation).
    var snapshotLimit = 1_000_000_000_000
    /// Elements decoded at once by the element-by-element operations (`--jobs`, as the CLI's).
    var jobs = 1
    /// A results.json of an earlier run (`--baseline FILE`): Benchmarks.md then compares each
    /// operation measured in both, size by size (the before and after of a round of work).
    var baseline: String?
}

/// What the generator made (kept next to the file, so a second run at the same size and seed
/// can reuse it with --keep-data).
struct DataSet: Codable {
    static let generatorVersion = 1
    var version = DataSet.generatorVersion
    var targetSize: Int
    var seed: UInt64
    var profile: Generator.Profile? = .standard
    var fileSize: Int
    var jsonSize: Int = 0
    var tables: Int
    var deltas: Int
    var rows: Int
    var changes: Int
    var values: Int
    var nulls: Int
    var largestElement: Int
    var generationSeconds: Double
}

struct OperationResult: Codable {
    var operation: String
    var label: String
    var size: String
    var runs: [Measurement]
    var inputBytes: Int
    var rows: Int
    var medianNanoseconds: UInt64
    var medianCPUNanoseconds: UInt64
    var medianPeakRSS: Int
    var note: String?
    /// The median time of each phase, for an operation that tells (`Measurement.phases`).
    var medianPhases: [PhaseTime]? {
        guard let first = runs.first?.phases else { return nil }
        return first.indices.map { i in
            PhaseTime(name: first[i].name, nanoseconds: median(runs.compactMap { $0.phases?[i].nanoseconds }))
        }
    }

    var seconds: Double { Double(medianNanoseconds) / 1e9 }
    var megabytesPerSecond: Double { Double(inputBytes) / 1e6 / seconds }
    var rowsPerSecond: Double { Double(rows) / seconds }
}

struct SizeResult: Codable {
    var label: String
    var data: DataSet
    var results: [OperationResult]

    func result(_ operation: Operation) -> OperationResult? { results.first { $0.operation == operation.rawValue } }
}

struct Runner {
    var options: Options
    let executable = System.executablePath

    func run() {
        mkdir(options.scratch, 0o755)
        let outDir = options.out ?? options.scratch + "/results"
        mkdir(outDir, 0o755)
        let machine = Machine.describe()
        System.log("briefcase-bench: \(machine.oneLine)")
        System.log("scratch \(options.scratch), results \(outDir), \(options.runs) runs after 1 warm-up, seed \(options.seed)")
        var sizes: [SizeResult] = []
        let loadBefore = Machine.loadAverage()
        for size in options.sizes {
            sizes.append(measure(size: size, operations: options.operations))
        }
        for size in options.largeSizes {
            sizes.append(measure(size: size, operations: [.read] + options.largeOperations.filter { $0 != .read }))
        }
        let loadAfter = Machine.loadAverage()
        let report = Report(sizes: sizes, machine: machine, options: options, loadBefore: loadBefore, loadAfter: loadAfter)
        let text = report.markdown()
        print(text)
        try? text.write(toFile: outDir + "/results.md", atomically: true, encoding: .utf8)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        if let data = try? encoder.encode(sizes) { try? data.write(to: URL(fileURLWithPath: outDir + "/results.json")) }
        System.log("results written to \(outDir)/results.md and results.json")
        if let markdown = options.markdown {
            let file = BenchmarksFile(report: report, arguments: options.arguments,
                                      commit: BenchmarksFile.commit(excluding: markdown), date: BenchmarksFile.now())
            do {
                try file.text().write(toFile: markdown, atomically: true, encoding: .utf8)
            } catch {
                System.fail("cannot write \(markdown): \(error)")
            }
            System.log("Benchmarks written to \(markdown)")
        }
    }

    func measure(size: Int, operations: [Operation]) -> SizeResult {
        let label = sizeLabel(size)
        let profile = options.profile == .standard ? "" : "-" + options.profile.rawValue
        let base = options.scratch + "/bench-\(label)\(profile)-seed\(options.seed)"
        let data = base + ".daBriefcase", json = base + ".json", meta = base + ".meta.json"
        var dataSet = prepare(size: size, data: data, json: json, meta: meta)
        dataSet.jsonSize = System.fileSize(json)
        System.log("[\(label)] \(data): \(dataSet.fileSize) bytes, \(dataSet.tables) tables, \(dataSet.rows) rows, \(dataSet.changes) pending changes, \(String(format: "%.1f", 100 * Double(dataSet.nulls) / Double(max(1, dataSet.values))))% NULL; json \(dataSet.jsonSize) bytes")
        var results: [OperationResult] = []
        for operation in operations {
            if operation == .jq && !Operation.jqInstalled {
                System.log("[\(label)] jq: skipped (jq is not installed; `apt-get install jq` to compare → json with it)")
                continue
            }
            if operation == .toSnapshot && size > options.snapshotLimit {
                System.log("[\(label)] \(operation.rawValue): skipped (above --snapshot-limit \(sizeLabel(options.snapshotLimit)))")
                continue
            }
            results.append(measure(operation, data: data, json: json, dataSet: dataSet, label: label))
        }
        if !options.keepData {
            for path in [data, json, meta] { System.remove(path) }
        }
        return SizeResult(label: label, data: dataSet, results: results)
    }

    /// Generates the briefcase and its JSON document (each in a child process), unless a kept
    /// copy from the same generator, size and seed is there.
    func prepare(size: Int, data: String, json: String, meta: String) -> DataSet {
        if let saved = try? Data(contentsOf: URL(fileURLWithPath: meta)),
           let dataSet = try? JSONDecoder().decode(DataSet.self, from: saved),
           dataSet.version == DataSet.generatorVersion, dataSet.targetSize == size, dataSet.seed == options.seed,
           (dataSet.profile ?? .standard) == options.profile,
           System.fileSize(data) == dataSet.fileSize, System.fileSize(json) > 0 {
            System.log("[\(sizeLabel(size))] reusing \(data)")
            return dataSet
        }
        System.log("[\(sizeLabel(size))] generating \(data) …")
        let generated = System.run([executable, "generate", "--size", String(size), "--seed", String(options.seed), "--profile", options.profile.rawValue, "--output", data, "--meta", meta])
        guard generated.status == 0 else { System.fail("generating failed:\n\(generated.output)") }
        let converted = System.run([executable, "make-json", "--input", data, "--output", json])
        guard converted.status == 0 else { System.fail("writing the JSON document failed:\n\(converted.output)") }
        guard let saved = try? Data(contentsOf: URL(fileURLWithPath: meta)), let dataSet = try? JSONDecoder().decode(DataSet.self, from: saved) else {
            System.fail("no \(meta)")
        }
        return dataSet
    }

    func measure(_ operation: Operation, data: String, json: String, dataSet: DataSet, label: String) -> OperationResult {
        var runs: [Measurement] = []
        var note: String?
        for run in 0...options.runs {
            var arguments = [executable, "measure", "--op", operation.rawValue, "--input", data, "--json", json, "--scratch", options.scratch]
            if run == 0 { arguments.append("--verify") }
            if options.jobs != 1 { arguments += ["--jobs", String(options.jobs)] }
            let child = System.run(arguments)
            guard child.status == 0,
                  let line = child.output.split(separator: "\n").last(where: { $0.hasPrefix("RESULT ") }),
                  let measurement = try? JSONDecoder().decode(Measurement.self, from: Data(line.dropFirst(7).utf8))
            else { System.fail("\(operation.rawValue) failed (exit \(child.status)):\n\(child.output)") }
            if run == 0 { note = measurement.note } else { runs.append(measurement) }
        }
        let input = operation.readsJSON ? dataSet.jsonSize : dataSet.fileSize
        let rows = runs.first?.rows ?? dataSet.rows + dataSet.changes
        let result = OperationResult(operation: operation.rawValue, label: operation.label, size: label, runs: runs, inputBytes: input, rows: rows,
                                     medianNanoseconds: median(runs.map(\.nanoseconds)), medianCPUNanoseconds: median(runs.map(\.cpuNanoseconds)),
                                     medianPeakRSS: median(runs.map(\.peakRSS)), note: note)
        let spread = runs.map { Double($0.nanoseconds) / 1e6 }.sorted().map { String(format: "%.1f", $0) }.joined(separator: " ")
        System.log("[\(label)] \(operation.rawValue): median \(String(format: "%.1f", result.seconds * 1000)) ms (\(spread)), \(String(format: "%.0f", result.megabytesPerSecond)) MB/s, peak \(result.medianPeakRSS / 1_000_000) MB\(note.map { "; " + $0 } ?? "")")
        return result
    }
}

func median<T: BinaryInteger>(_ values: [T]) -> T {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    let n = sorted.count
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
}

enum Machine {
    struct Description: Codable {
        var cpu: String
        var cores: Int
        var memory: String
        var kernel: String
        var swift: String
        var oneLine: String { "\(cpu), \(cores) cores, \(memory) RAM, \(kernel), \(swift)" }
    }

    static func describe() -> Description {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let cpu = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }?.split(separator: ":", maxSplits: 1).last
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
        let meminfo = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
        let totalKB = meminfo.split(separator: "\n").first { $0.hasPrefix("MemTotal") }?.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        var name = utsname()
        uname(&name)
        let release = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let version = System.run(["swift", "--version"]).output.split(separator: "\n").first.map(String.init) ?? ""
        let swift = version.isEmpty ? "Swift (version unknown)" : version.replacingOccurrences(of: " (swift-", with: " (").trimmingCharacters(in: .whitespaces)
        return Description(cpu: cpu, cores: sysconf(Int32(_SC_NPROCESSORS_ONLN)), memory: String(format: "%.0f GiB", Double(totalKB) / 1_048_576),
                           kernel: "Linux " + release, swift: swift)
    }

    static func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "").split(separator: " ").prefix(3).joined(separator: " ")
    }
}
