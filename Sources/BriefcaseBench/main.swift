// briefcase-bench: measured speed and memory of the briefcase library, side by side with the
// floor (reading the same file), on large synthetic briefcases.
//
//     swift run -c release briefcase-bench --size 100MB
//     swift run -c release briefcase-bench --sizes 10MB,100MB,1GB --runs 5 --seed 1 --out DIR
//     swift run -c release briefcase-bench --size 10MB --runs 3 --markdown Benchmarks.md
//
// Every measured run is a child process (this executable, `measure` subcommand), so each figure
// has its own peak resident memory. Generated data goes to a scratch folder (default
// /tmp/briefcase-bench) and is deleted at the end unless --keep-data.

#if canImport(Glibc)
import Glibc
#endif
import JSONCore
import BriefcaseJSON
import BriefcaseKit
import Foundation

let usage = """
usage: briefcase-bench [--size SIZE | --sizes SIZE,SIZE,…] [--runs N] [--seed S] [--out DIR]
                       [--markdown FILE] [--scratch DIR] [--ops OP,OP,…] [--keep-data] [--snapshot-limit SIZE]
                       [--profile default|delta-heavy] [--jobs N] [--large-sizes SIZE,… --large-ops OP,…]
                       [--baseline RESULTS.json]
       briefcase-bench generate --size SIZE [--seed S] [--profile P] --output FILE [--meta FILE]
       briefcase-bench measure --op OP --input FILE [--json FILE] [--scratch DIR] [--verify] [--jobs N]

SIZE: 10MB, 100MB, 1GB, … (MB = 10^6 bytes). Defaults: --size 100MB --runs 5 --seed 1,
--scratch /tmp/briefcase-bench, --out SCRATCH/results (results.md and results.json), no --markdown
(FILE: Benchmarks.md, the figures with the machine, commit, date and every target, ok or missed), no --snapshot-limit (to-snapshot, the
slowest operation, is skipped above it when given), --profile default (delta-heavy: every row
of the six tables with a delta has a pending change, plus a quarter as many inserts), --jobs 1
(elements decoded at once by validate, to-json, to-snapshot, to-folder and json → dabriefcase, as `briefcase --jobs`),
no --large-sizes (sizes at which only --large-ops and the floor are measured, after the others),
no --baseline (the results.json of an earlier run, which Benchmarks.md then compares with).
OP: \(Operation.allCases.map(\.rawValue).joined(separator: ", "))
"""

/// `--name value` pairs and bare `--flags`.
struct Arguments {
    var values: [String: String] = [:]
    var flags: Set<String> = []

    init(_ list: ArraySlice<String>, flags known: Set<String>) {
        var rest = list
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("--") else { System.fail("unexpected argument '\(argument)'\n\(usage)") }
            let name = String(argument.dropFirst(2))
            if name == "help" { print(usage); exit(0) }
            if known.contains(name) { flags.insert(name); continue }
            guard let value = rest.popFirst() else { System.fail("--\(name) needs a value\n\(usage)") }
            values[name] = value
        }
    }

    func size(_ name: String) -> Int? {
        guard let text = values[name] else { return nil }
        guard let size = parseSize(text) else { System.fail("--\(name): '\(text)' is not a size like 10MB or 1GB") }
        return size
    }

    func int(_ name: String) -> Int? {
        guard let text = values[name] else { return nil }
        guard let value = Int(text) else { System.fail("--\(name): '\(text)' is not a number") }
        return value
    }

    func required(_ name: String) -> String {
        guard let value = values[name] else { System.fail("--\(name) is required\n\(usage)") }
        return value
    }
}

extension Generator.Profile {
    init(argument: String?) {
        guard let argument else { self = .standard; return }
        guard let profile = Self(rawValue: argument) else { System.fail("--profile: '\(argument)' is not default or delta-heavy") }
        self = profile
    }
}

/// `--jobs N` (at least 1; default 1).
func jobsArgument(_ arguments: Arguments) -> Int {
    let jobs = arguments.int("jobs") ?? 1
    if jobs < 1 { System.fail("--jobs: must be at least 1") }
    return jobs
}

let argv = CommandLine.arguments
switch argv.dropFirst().first {
case "generate":
    let arguments = Arguments(argv.dropFirst(2), flags: [])
    let size = arguments.size("size") ?? 100_000_000
    let seed = UInt64(arguments.int("seed") ?? 1)
    let profile = Generator.Profile(argument: arguments.values["profile"])
    let output = arguments.required("output")
    let start = System.now()
    let summary: Generator.Summary
    do {
        summary = try Generator(targetSize: size, seed: seed, profile: profile).write(to: output + ".tmp")
    } catch {
        System.fail("generate: \(error)")
    }
    rename(output + ".tmp", output)
    let seconds = Double(System.now() - start) / 1e9
    let dataSet = DataSet(targetSize: size, seed: seed, profile: profile, fileSize: System.fileSize(output), tables: summary.tables, deltas: summary.deltas,
                          rows: summary.rows, changes: summary.changes, values: summary.values, nulls: summary.nulls,
                          largestElement: summary.largestElement, generationSeconds: seconds)
    let data = try! JSONEncoder().encode(dataSet)
    if let meta = arguments.values["meta"] { try! data.write(to: URL(fileURLWithPath: meta)) }
    print(String(decoding: data, as: UTF8.self))

case "make-json":
    // The JSON document the json → dabriefcase measurement reads (written with the library).
    let arguments = Arguments(argv.dropFirst(2), flags: [])
    let input = arguments.required("input"), output = arguments.required("output")
    do {
        var warnings: [DecodingWarning] = []
        let document = try BriefcaseDocument.decode(try FileIO.read(input), as: .dabriefcase, warnings: &warnings)
        var encoder = JSONDocumentEncoder(sink: FileSink(path: output), codePage: CodePage.detect(in: document.file).codePage)
        try encoder.encode(document)
        encoder.writer.sink.close()
    } catch {
        System.fail("make-json: \(error)")
    }

case "make-edited":
    // The second briefcase the diff measurement compares (in a process of its own, so that the
    // memory of writing it is not the diff's); prints how many rows it changed.
    let arguments = Arguments(argv.dropFirst(2), flags: ["non-null"])
    do {
        print(try DiffBench.writeEdited(arguments.required("input"), to: arguments.required("output"), start: arguments.int("start") ?? 50,
                                        nonNull: arguments.flags.contains("non-null")))
    } catch {
        System.fail("make-edited: \(error)")
    }

case "make-snapshot":
    // The snapshot document the snapshot → dabriefcase measurement reads (in a process of its
    // own, so that the memory of writing it is not the reading's).
    let arguments = Arguments(argv.dropFirst(2), flags: [])
    do {
        try SnapshotBench.write(arguments.required("input"), to: arguments.required("output"), jobs: jobsArgument(arguments))
    } catch {
        System.fail("make-snapshot: \(error)")
    }

case "measure":
    let arguments = Arguments(argv.dropFirst(2), flags: ["verify"])
    let name = arguments.required("op")
    guard let operation = Operation(rawValue: name) else { System.fail("unknown operation '\(name)'\n\(usage)") }
    Measure.run(operation, input: arguments.required("input"), json: arguments.values["json"],
                scratch: arguments.values["scratch"] ?? "/tmp/briefcase-bench", verify: arguments.flags.contains("verify"),
                jobs: jobsArgument(arguments))

default:
    let arguments = Arguments(argv.dropFirst(), flags: ["keep-data"])
    var options = Options()
    if let sizes = arguments.values["sizes"] {
        options.sizes = sizes.split(separator: ",").map { text in
            guard let size = parseSize(String(text)) else { System.fail("--sizes: '\(text)' is not a size") }
            return size
        }
    } else if let size = arguments.size("size") {
        options.sizes = [size]
    }
    if let runs = arguments.int("runs") { options.runs = max(1, runs) }
    if let seed = arguments.int("seed") { options.seed = UInt64(seed) }
    if let scratch = arguments.values["scratch"] { options.scratch = scratch }
    options.out = arguments.values["out"]
    options.markdown = arguments.values["markdown"]
    options.arguments = Array(argv.dropFirst())
    if let ops = arguments.values["ops"] {
        options.operations = ops.split(separator: ",").map { name in
            guard let operation = Operation(rawValue: String(name)) else { System.fail("--ops: unknown operation '\(name)'") }
            return operation
        }
        // The floor is always measured: every figure is also a ratio to it.
        if !options.operations.contains(.read) { options.operations.insert(.read, at: 0) }
    }
    if let sizes = arguments.values["large-sizes"] {
        options.largeSizes = sizes.split(separator: ",").map { text in
            guard let size = parseSize(String(text)) else { System.fail("--large-sizes: '\(text)' is not a size") }
            return size
        }
        guard let ops = arguments.values["large-ops"] else { System.fail("--large-sizes needs --large-ops") }
        options.largeOperations = ops.split(separator: ",").map { name in
            guard let operation = Operation(rawValue: String(name)) else { System.fail("--large-ops: unknown operation '\(name)'") }
            return operation
        }
    }
    options.keepData = arguments.flags.contains("keep-data")
    if let limit = arguments.size("snapshot-limit") { options.snapshotLimit = limit }
    options.profile = Generator.Profile(argument: arguments.values["profile"])
    options.jobs = jobsArgument(arguments)
    options.baseline = arguments.values["baseline"]
    Runner(options: options).run()
}
