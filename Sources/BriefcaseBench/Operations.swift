#if canImport(Glibc)
import Glibc
#endif
import JSONCore
import BriefcaseDatastore
import BriefcaseJSON
import BriefcaseKit
import BriefcaseSQLite
import Foundation

extension FileSink: ResettableByteSink {}

/// The generator and json → dabriefcase write briefcases through the library's stream writer:
/// appended, the index position patched in place (`AtomicOutput.overwrite`).
extension FileSink: BriefcaseStreamOutput {
    func append(_ bytes: UnsafeRawBufferPointer) throws(BriefcaseError) { write(bytes) }

    func overwrite(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(BriefcaseError) {
        try output.overwrite(bytes, at: offset)
    }

    func reset() throws(BriefcaseError) { try output.reset() }
}

/// The measured operations. Each runs in its own child process (`briefcase-bench measure …`), so
/// that its peak resident memory (`ru_maxrss`) is its own; the child prints one `RESULT` line.
enum Operation: String, CaseIterable {
    /// The floor: read(2) the whole file into one preallocated buffer.
    case read
    /// The floor as the shell sees it: `cat FILE > /dev/null` (its own peak memory).
    case cat
    /// `BriefcaseFileCodec.decode` of bytes already in memory: every table and delta.
    case decode
    /// The same, a second time in the same process: the heap already holds the memory (freed by
    /// the first decode), so no page faults; what a long-running app sees.
    case decodeAgain = "decode-again"
    /// Every table and delta decoded from bytes in memory one at a time via the element index,
    /// each released before the next (what a streaming converter does): memory of one table.
    case decodeEach = "decode-each"
    /// `BriefcaseFileCodec.encode` of a decoded briefcase (checked equal to the input).
    case encode
    /// `Validator.validateFile` (what `briefcase validate` does with a file: header, index, then
    /// each element read by offset into reused memory and checked).
    case validate
    /// `Briefcase.open` + `table(named:)` of one small table (with its delta) out of 30.
    case openOne = "open-one"
    /// dabriefcase → json as `briefcase convert` does it: open the file's element index, then
    /// element by element decode, write its JSON, release it (`BriefcaseElements`); the code page
    /// is chosen from the tables' heads.
    case toJSON = "to-json"
    /// json → dabriefcase as `briefcase convert` does it: map the document, read it element by
    /// element (`JSONStreamReader`, rows straight from the bytes) into the streaming writer,
    /// releasing the mapped pages behind it.
    case fromJSON = "from-json"
    /// dabriefcase → datastore snapshot as `briefcase convert … x.snapshot.json` does it: element
    /// by element from the file (`SnapshotExport.stream` over `BriefcaseElements`), streaming the
    /// snapshot document. Size limits are not enforced (as with --ignore-limits): synthetic data
    /// breaks them.
    case toSnapshot = "to-snapshot"
    /// dabriefcase → folder as `briefcase convert` does it: element by element, each table
    /// decoded and written as its own DABRC600 file (atomically, with fsync), then released.
    case toFolder = "to-folder"
    /// dabriefcase → folder the lazy way: `Briefcase.open` + `write(to:as: .folder)`, which copies
    /// the tables' bytes without decoding them.
    case toFolderLazy = "to-folder-lazy"
    /// dabriefcase → sqlite as `briefcase convert … x.sqlite` does it: element by element into
    /// `SQLiteSink` (each table's current rows and exact bytes, one transaction).
    case toSQLite = "to-sqlite"
    /// sqlite → dabriefcase: the database (written first, not timed) read by `SQLiteSource` into
    /// the stream writer (checked equal to the input).
    case fromSQLite = "from-sqlite"
    /// snapshot → dabriefcase as `briefcase convert x.snapshot.json …` does it: the snapshot this
    /// tool wrote of the input (written first, not timed) read whole (`SnapshotImport`) and
    /// written by the stream writer (checked equal to the input).
    case fromSnapshot = "from-snapshot"
    /// Two briefcases that differ in 1 % of their rows (the second written first, not timed)
    /// compared as `briefcase diff` does: table by table (`DiffBench.diff`).
    case diff
    /// BASE and two copies that each changed 1 % of its rows, other rows each (written first,
    /// not timed), merged as `briefcase merge` does (`MergeBench.merge`), the result written.
    case merge
    /// `select count(*)` of the largest table, as `briefcase query` answers it (`SQLiteBench.query`).
    case queryCount = "query-count"
    /// `select *` of the largest table, as `briefcase query` answers it, to its first row.
    case queryFirstRow = "query-first-row"
    /// Side by side: `jq -c .` of the JSON document the bench wrote (a child process, output to
    /// /dev/null), what dabriefcase → json is compared with. Skipped, with a note, without `jq`.
    case jq

    var label: String {
        switch self {
        case .read: return "floor: read file into memory"
        case .cat: return "floor: cat > /dev/null"
        case .decode: return "decode all tables"
        case .decodeAgain: return "decode all tables, warm heap"
        case .decodeEach: return "decode all tables, one at a time"
        case .encode: return "encode all tables"
        case .validate: return "validate"
        case .openOne: return "open + read 1 small table of 30"
        case .toJSON: return "dabriefcase → json"
        case .fromJSON: return "json → dabriefcase"
        case .toSnapshot: return "dabriefcase → snapshot"
        case .toFolder: return "dabriefcase → folder"
        case .toFolderLazy: return "dabriefcase → folder (lazy, raw copy)"
        case .toSQLite: return "dabriefcase → sqlite"
        case .fromSQLite: return "sqlite → dabriefcase"
        case .fromSnapshot: return "snapshot → dabriefcase"
        case .diff: return "diff, 1 % of rows changed"
        case .merge: return "merge, 1 % of rows changed on each side"
        case .queryCount: return "query: count(*) of the largest table"
        case .queryFirstRow: return "query: first row of select * of the largest table"
        case .jq: return "side by side: jq -c . of the JSON document"
        }
    }

    /// Whether the input is the JSON document rather than the dabriefcase.
    var readsJSON: Bool { self == .fromJSON || self == .jq }

    /// Whether `jq` can be started (the `jq` operation is skipped otherwise).
    static let jqInstalled = System.run(["jq", "--version"]).status == 0
    /// Conversions, which the memory target applies to.
    var isConversion: Bool { [.toJSON, .fromJSON, .toSnapshot, .toFolder, .toFolderLazy, .toSQLite, .fromSQLite, .fromSnapshot].contains(self) }
}

/// What one child measured.
struct Measurement: Codable {
    var nanoseconds: UInt64
    var cpuNanoseconds: UInt64
    var peakRSS: Int
    /// Rows the operation handled when it is not the whole briefcase (open-one).
    var rows: Int?
    var note: String?
    /// Where the time went, phase by phase, for an operation that tells (→ sqlite).
    var phases: [PhaseTime]?
}

/// The time of one phase of an operation (`SQLiteWritePhases`).
struct PhaseTime: Codable {
    var name: String
    var nanoseconds: UInt64
}

enum Measure {
    /// Child side: runs `operation` once and prints `RESULT <json>`.
    static func run(_ operation: Operation, input: String, json: String?, scratch: String, verify: Bool, jobs: Int) {
        let result: Measurement
        do {
            result = try measure(operation, input: input, json: json, scratch: scratch, verify: verify, jobs: jobs)
        } catch {
            System.fail("\(operation.rawValue): \(error)")
        }
        let data = try! JSONEncoder().encode(result)
        print("RESULT " + String(decoding: data, as: UTF8.self))
    }

    static func measure(_ operation: Operation, input: String, json: String?, scratch: String, verify: Bool,
                        jobs: Int) throws -> Measurement {
        let output = scratch + "/out-\(getpid())"
        var rows: Int?
        var note: String?
        var phases: [PhaseTime]?
        let start: UInt64, end: UInt64, cpuStart: UInt64, cpuEnd: UInt64
        switch operation {
        case .read:
            cpuStart = System.cpuTime(); start = System.now()
            let bytes = readFloor(input)
            end = System.now(); cpuEnd = System.cpuTime()
            withExtendedLifetime(bytes) {}

        case .cat:
            cpuStart = System.cpuTime(children: true); start = System.now()
            let (status, _) = System.run(["cat", input], stdoutTo: "/dev/null")
            end = System.now(); cpuEnd = System.cpuTime(children: true)
            guard status == 0 else { System.fail("cat failed (\(status))") }
            return Measurement(nanoseconds: end - start, cpuNanoseconds: cpuEnd - cpuStart, peakRSS: System.peakRSS(children: true))

        case .jq:
            guard let json else { System.fail("jq: --json is required") }
            cpuStart = System.cpuTime(children: true); start = System.now()
            let (status, _) = System.run(["jq", "-c", ".", json], stdoutTo: "/dev/null")
            end = System.now(); cpuEnd = System.cpuTime(children: true)
            guard status == 0 else { System.fail("jq failed (\(status))") }
            return Measurement(nanoseconds: end - start, cpuNanoseconds: cpuEnd - cpuStart, peakRSS: System.peakRSS(children: true))

        case .decode:
            let bytes = try FileIO.read(input)
            cpuStart = System.cpuTime(); start = System.now()
            let file = try BriefcaseFileCodec.decode(bytes)
            end = System.now(); cpuEnd = System.cpuTime()
            if verify { note = "\(file.stream.tables.count) tables, \(file.stream.deltas.count) deltas" }
            withExtendedLifetime(file) {}

        case .decodeAgain:
            let bytes = try FileIO.read(input)
            do { _ = try BriefcaseFileCodec.decode(bytes) }
            cpuStart = System.cpuTime(); start = System.now()
            let file = try BriefcaseFileCodec.decode(bytes)
            end = System.now(); cpuEnd = System.cpuTime()
            withExtendedLifetime(file) {}

        case .decodeEach:
            let bytes = try FileIO.read(input)
            var elements = 0
            // As the element-by-element converter does: each table reuses the memory freed by
            // the one before instead of faulting fresh pages in.
            BriefcaseElements.keepFreedMemoryForReuse()
            cpuStart = System.cpuTime(); start = System.now()
            let reader = try BriefcaseElements(bytes: bytes, as: .dabriefcase)
            var warnings: [DecodingWarning] = []
            for i in reader.elements.indices {
                let element = try reader.decode(i, warnings: &warnings)
                withExtendedLifetime(element) { elements += 1 }
            }
            end = System.now(); cpuEnd = System.cpuTime()
            if verify { note = "\(elements) elements, \(warnings.count) warnings" }

        case .encode:
            let bytes = try FileIO.read(input)
            let file = try BriefcaseFileCodec.decode(bytes)
            cpuStart = System.cpuTime(); start = System.now()
            let encoded = try BriefcaseFileCodec.encode(file)
            end = System.now(); cpuEnd = System.cpuTime()
            if verify, encoded != bytes { System.fail("encode: the output differs from the input") }
            withExtendedLifetime((file, encoded)) {}

        case .validate:
            cpuStart = System.cpuTime(); start = System.now()
            let report = try Validator.validateFile(at: input, container: .dabriefcase, options: ValidationOptions(jobs: jobs))
            end = System.now(); cpuEnd = System.cpuTime()
            if verify {
                guard report.errors.isEmpty else { System.fail("validate: \(report.errors.count) errors, first: \(report.errors[0])") }
                note = "valid, \(report.warnings.count) warnings, encoding \(report.encoding ?? "?")"
            }
            withExtendedLifetime(report) {}

        case .openOne:
            cpuStart = System.cpuTime(); start = System.now()
            let briefcase = try Briefcase.open(input)
            guard let table = try briefcase.table(named: Generator.smallTableName) else { System.fail("no table \(Generator.smallTableName)") }
            rows = (table.dataset?.rows.count ?? 0) + (table.delta?.changes.count ?? 0)
            end = System.now(); cpuEnd = System.cpuTime()
            if verify { note = "\(briefcase.tableCount) tables; read \(table.dataset?.rows.count ?? 0) rows, \(table.delta?.changes.count ?? 0) changes" }

        case .toJSON:
            let path = output + ".json"
            cpuStart = System.cpuTime(); start = System.now()
            // Element by element, as `briefcase convert` does it (one table in memory at a time).
            BriefcaseElements.keepFreedMemoryForReuse()
            let elements = try BriefcaseElements.open(input, as: .dabriefcase)
            var encoder = JSONDocumentEncoder(sink: FileSink(path: path), codePage: .utf8)
            let report = try elements.read(into: &encoder, encoding: nil, skipDamaged: false, jobs: jobs)
            encoder.writer.sink.close()
            let codePage = report.codePage
            end = System.now(); cpuEnd = System.cpuTime()
            if verify { note = "json \(System.fileSize(path)) bytes, encoding \(codePage.name)" }
            System.remove(path)

        case .fromJSON:
            guard let json else { System.fail("from-json needs --json") }
            let path = output + ".daBriefcase"
            cpuStart = System.cpuTime(); start = System.now()
            guard let mapped = try MappedFile(path: json) else { System.fail("from-json: \(json) is not a regular file") }
            // The CLI's path (mapped input, `JSONStreamConversion`) into a file written as the CLI
            // writes it (`FileSink`: write-behind, fsync, rename).
            var file = FileSink(path: path)
            try JSONStreamConversion.convert(mapped.bytes, to: &file, as: .dabriefcase, jobs: jobs,
                                             consumed: { mapped.release(upTo: $0) }, scanned: { mapped.release($0) })
            file.close()
            end = System.now(); cpuEnd = System.cpuTime()
            withExtendedLifetime(mapped) {}
            if verify {
                guard sameContents(path, input) else { System.fail("from-json: the output differs from the original briefcase") }
                note = "output equals the original byte for byte"
            }
            System.remove(path)

        case .toSnapshot:
            let path = output + ".snapshot.json"
            cpuStart = System.cpuTime(); start = System.now()
            // Element by element (`SnapshotExport.stream(_ elements:…)`, the path `briefcase convert`
            // takes for a binary input): one table in memory at a time, mapped and written as it goes.
            BriefcaseElements.keepFreedMemoryForReuse()
            let elements = try BriefcaseElements.open(input, as: .dabriefcase)
            let result = try SnapshotExport.stream(elements, into: FileSink(path: path), encoding: nil, jobs: jobs)
            result.sink.close()
            end = System.now(); cpuEnd = System.cpuTime()
            if verify { note = "snapshot \(System.fileSize(path)) bytes, encoding \(result.report.codePage.name), \(result.summary.limitViolations.count) datastore limits broken, \(result.summary.warnings.count) warnings" }
            System.remove(path)

        case .toFolder:
            let path = output + ".briefcase"
            cpuStart = System.cpuTime(); start = System.now()
            // Table by table, as `briefcase convert` does it (one table in memory at a time).
            BriefcaseElements.keepFreedMemoryForReuse()
            _ = try BriefcaseElements.open(input, as: .dabriefcase).writeFolder(to: path, encoding: nil, skipDamaged: false, jobs: jobs, replacing: true)
            end = System.now(); cpuEnd = System.cpuTime()
            if verify { note = "\((try? FileManager.default.contentsOfDirectory(atPath: path).count) ?? 0) files" }
            System.remove(path)

        case .toSQLite:
            let path = output + ".sqlite"
            let clock = SQLiteWritePhases()
            cpuStart = System.cpuTime(); start = System.now()
            try SQLiteBench.toSQLite(input, path, jobs: jobs, phases: clock)
            end = System.now(); cpuEnd = System.cpuTime()
            phases = SQLiteBench.phases(clock, total: end - start)
            if verify { note = "sqlite \(System.fileSize(path)) bytes" }
            System.remove(path)

        case .fromSQLite:
            let database = output + ".sqlite", path = output + ".daBriefcase"
            try SQLiteBench.toSQLite(input, database, jobs: jobs)
            cpuStart = System.cpuTime(); start = System.now()
            try SQLiteBench.fromSQLite(database, path)
            end = System.now(); cpuEnd = System.cpuTime()
            if verify { note = givesBack(path, input, operation) }
            System.remove(path)
            System.remove(database)

        case .fromSnapshot:
            let snapshot = output + ".snapshot.json", path = output + ".daBriefcase"
            var arguments = [System.executablePath, "make-snapshot", "--input", input, "--output", snapshot]
            if jobs != 1 { arguments += ["--jobs", String(jobs)] }
            guard System.run(arguments).status == 0 else { System.fail("from-snapshot: make-snapshot failed") }
            cpuStart = System.cpuTime(); start = System.now()
            // As the CLI reads it: mapped, its pages let go once read (`InputSource.readSnapshot`).
            let mapped = try MappedFile(path: snapshot)!
            var sink = BinarySink(output: FileSink(path: path))
            _ = try withExtendedLifetime(mapped) { () throws(BriefcaseError) in
                try SnapshotImport.read(mapped.bytes, into: &sink, scanned: { mapped.release($0) }, read: { mapped.release(upTo: $0) })
            }
            sink.output.close()
            end = System.now(); cpuEnd = System.cpuTime()
            if verify { note = givesBack(path, input, operation) }
            System.remove(path)
            System.remove(snapshot)

        case .diff:
            let other = output + "-edited.daBriefcase"
            let made = System.run([System.executablePath, "make-edited", "--input", input, "--output", other])
            guard made.status == 0, let edited = Int(made.output.filter { !$0.isWhitespace }) else { System.fail("diff: make-edited failed") }
            cpuStart = System.cpuTime(); start = System.now()
            let differences = try DiffBench.diff(input, other, jobs: jobs)
            end = System.now(); cpuEnd = System.cpuTime()
            if verify {
                guard differences.count == edited else { System.fail("diff: \(differences.count) differences, \(edited) rows changed") }
                note = "\(differences.count) rows changed, each found"
            }
            System.remove(other)

        case .merge:
            let local = output + "-local.daBriefcase", remote = output + "-remote.daBriefcase", merged = output + "-merged.daBriefcase"
            var edited = 0
            for (path, start) in [(local, 25), (remote, 75)] {
                let made = System.run([System.executablePath, "make-edited", "--input", input, "--output", path, "--start", String(start), "--non-null"])
                guard made.status == 0, let count = Int(made.output.filter { !$0.isWhitespace }) else { System.fail("merge: make-edited failed") }
                edited += count
            }
            cpuStart = System.cpuTime(); start = System.now()
            let conflicts = try MergeBench.merge(input, local, remote, to: merged, jobs: jobs)
            end = System.now(); cpuEnd = System.cpuTime()
            if verify {
                guard conflicts == 0 else { System.fail("merge: \(conflicts) conflicts where the sides changed other rows") }
                note = "\(edited) rows changed, no conflict"
            }
            for path in [local, remote, merged] { System.remove(path) }

        case .queryCount, .queryFirstRow:
            let table = try SQLiteBench.largestTable(input)
            let first = operation == .queryFirstRow
            let sql = (first ? "SELECT * FROM " : "SELECT count(*) FROM ") + SQLiteBench.quote(table)
            cpuStart = System.cpuTime(); start = System.now()
            let answer = try SQLiteBench.query(input, sql, firstRowOnly: first)
            end = System.now(); cpuEnd = System.cpuTime()
            if verify {
                guard answer.count == 1 else { System.fail("\(operation.rawValue): \(answer.count) rows, expected one") }
                note = first ? "table \(table)" : "table \(table): \(answer[0]) rows"
            }

        case .toFolderLazy:
            let path = output + ".briefcase"
            cpuStart = System.cpuTime(); start = System.now()
            let briefcase = try Briefcase.open(input)
            try briefcase.write(to: path, as: .folder, replacing: true)
            end = System.now(); cpuEnd = System.cpuTime()
            if verify { note = "\((try? FileManager.default.contentsOfDirectory(atPath: path).count) ?? 0) files" }
            System.remove(path)
        }
        return Measurement(nanoseconds: end - start, cpuNanoseconds: cpuEnd - cpuStart, peakRSS: System.peakRSS(), rows: rows, note: note,
                           phases: phases)
    }

    /// read(2) into one buffer of the file's size: the least any reader of the whole file does.
    static func readFloor(_ path: String) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { System.fail("cannot open \(path)") }
        defer { close(fd) }
        let size = System.fileSize(path)
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            var done = 0
            while done < size {
                let n = SystemCall.read(fd, buffer.baseAddress! + done, size - done)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                done += n
            }
            initialized = done
        }
    }

    /// Compares two files in 1 MiB pieces (bounded memory).
    /// The warm-up's check of a conversion back to a briefcase: `output` is `input` byte for
    /// byte (else the bench stops), and the note that says so.
    static func givesBack(_ output: String, _ input: String, _ operation: Operation) -> String {
        guard sameContents(output, input) else { System.fail("\(operation.rawValue): the output differs from the original briefcase") }
        return "output equals the original byte for byte"
    }

    static func sameContents(_ a: String, _ b: String) -> Bool {
        guard System.fileSize(a) == System.fileSize(b), let fa = fopen(a, "rb"), let fb = fopen(b, "rb") else { return false }
        defer { fclose(fa); fclose(fb) }
        var x = [UInt8](repeating: 0, count: 1 << 20), y = x
        while true {
            let n = fread(&x, 1, x.count, fa), m = fread(&y, 1, y.count, fb)
            if n != m || x[0..<n] != y[0..<m] { return false }
            if n == 0 { return true }
        }
    }
}

