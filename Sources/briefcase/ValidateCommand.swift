import JSONCore
import ArgumentParser
import BriefcaseDatastore
import BriefcaseJSON
import BriefcaseKit
import BriefcaseSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check briefcases: structure, positions, schemas, deltas and values.",
        discussion: """
        Checks each PATH (dabriefcase, folder, bin2 or json; a trailing .gz is gzip around it) \
        beyond what reading it needs: magic and version, the data offset, the element index and \
        the element bounds, schema-end positions, row descriptors against the schema (count, Name, \
        DataType), a delta's logged fields against its table, change types, statuses and counts, \
        UTF-16 text, decimal scales, GUID text, DateTime values, duplicate element names and mask \
        padding. Spec/validation.md lists every check. A snapshot document (.snapshot.json) is         checked as a datastore (ids, value encodings, the delta sequence, deltas that apply, size         limits) and then as the briefcase it maps to (Spec/datastore-mapping.md).

        Errors are what Data Abstract cannot read, or would read wrongly; warnings are what it \
        tolerates (padding bytes or bits, a stale schema-end, disagreeing change counts). \
        --strict counts warnings as errors.

        Each finding is one line on standard error: PATH: element 'NAME': offset N: error|warning: \
        message. Standard output gets one summary line per PATH, or with --json an array with one \
        object per PATH: path, format, valid, encoding, errors and warnings (each finding: message, \
        check, and offset, element and file where they apply).

        Exit status: 0 every PATH is valid; 1 at least one is not; 2 usage error, missing file or \
        I/O error.

        Examples:
          briefcase validate Orders.daBriefcase
          briefcase validate Orders.daBriefcase Backup.briefcase Orders.json --json
          briefcase validate Orders.daBriefcase --strict
          briefcase validate - --from bin2 < payload.bin2
        """
    )

    @Argument(help: "The briefcases to check (.daBriefcase, .briefcase folder, .bin2, .json; - for standard input).")
    var paths: [String]

    @Flag(help: "Print a JSON array with one report per PATH.")
    var json = false

    @Flag(help: "Count warnings as errors.")
    var strict = false

    @OptionGroup var inputOptions: InputOptions

    func validate() throws {
        if paths.isEmpty { throw ValidationError("name at least one PATH to check") }
        try inputOptions.check(paths)
        if paths.filter({ $0 == "-" }).count > 1 { throw ValidationError("standard input (-) can be read only once") }
    }

    func run() throws {
        let options = ValidationOptions(codePage: inputOptions.encoding.codePage, strict: strict, jobs: inputOptions.jobs.count)
        var reports: [ValidationReport] = []
        var unchecked: Set<Int> = []   // indices of reports for paths that could not be read
        var status: Int32 = 0
        for path in paths {
            do {
                let report = try Self.check(path, format: inputOptions.from, options: options)
                if let reason = report.encodingReason, let encoding = report.encoding {
                    Console.note("\(path): 8-bit strings read as \(encoding): \(reason) (override with --encoding)")
                }
                Self.printFindings(report)
                if !report.valid { status = max(status, 1) }
                reports.append(report)
            } catch let error as BriefcaseError {
                // Missing file, unreadable file, an input we will not check: reported, exit 2.
                let located = error.file == nil ? error.inFile(path) : error
                Console.error(located.description)
                status = 2
                unchecked.insert(reports.count)
                reports.append(ValidationReport(path: path, format: inputOptions.from?.rawValue ?? FileFormat.fromExtension(path)?.rawValue ?? "",
                                                errors: [Finding(.input, located.message, offset: located.offset, element: located.element)]))
            }
        }
        if json {
            var writer = JSONWriter(sink: StandardOutputSink())
            Self.writeJSON(reports, &writer)
            try writer.flush()
        } else {
            for (i, report) in reports.enumerated() {
                let line = unchecked.contains(i) ? "\(report.path): not checked: \(report.errors.first?.message ?? "cannot be read")" : Self.summary(report)
                try StandardOutput.write(TerminalText.escaped(line) + "\n")
            }
        }
        if status != 0 { throw ExitCode(status) }
    }

    // MARK: checking one path

    /// The report for one PATH. Throws a `BriefcaseError` for what is not a property of the input:
    /// a missing or unreadable file (`.io`), a format validate does not check.
    static func check(_ path: String, format explicit: FileFormat?, options: ValidationOptions) throws -> ValidationReport {
        if path != "-" && !FileIO.exists(path) {
            throw BriefcaseError(.io, "no such file or folder", file: path)
        }
        // Found as every command finds it (`FileFormat`); only standard input is told by its
        // content once spooled. A damaged gzip wrapper makes the input invalid.
        var format = explicit ?? FileFormat.fromExtension(path)
        if format == nil && path != "-" {
            do throws(BriefcaseError) { format = try FileFormat.ofContent(path) } catch {
                if error.kind == .io { throw error }
                return ValidationReport.failure(path: path, format: "", check: .input, error: error)
            }
        }
        if format == .folder {
            guard isDirectory(path) else { throw BriefcaseError(.io, "a folder briefcase is a directory", file: path) }
            return try Validator.validateFolder(at: path, options: options)
        }
        if format == .sqlite {
            // The briefcase the database gives back (edits included), checked as a document.
            var sink = ValidationSink(path: path, format: "sqlite", options: options)
            do throws(BriefcaseError) {
                // Every page of the file first: a damaged page is an invalid database even where
                // no table that is read lies (Spec/sqlite-mapping.md §7).
                try SQLiteSource(path: path, checkingIntegrity: true).read(into: &sink)
            } catch {
                return ValidationReport.failure(path: path, format: "sqlite", check: .input, error: error)
            }
            return sink.report!
        }
        // Opened as every command opens it (`InputSource.readable`): standard input and gzip
        // spooled first; a binary briefcase is then read by offset, never whole.
        let readable: String, spooled: SpooledInput?
        do throws(BriefcaseError) {
            (readable, spooled) = try InputSource.readable(path, as: format)
        } catch {
            if error.kind == .io { throw error }
            return ValidationReport.failure(path: path, format: format?.rawValue ?? "", check: .input, error: error)
        }
        if format == nil { format = FileFormat.sniff(try FileIO.readPrefix(readable, count: 8)) }
        if let container = format?.container {
            do throws(BriefcaseError) {
                var report = try Validator.validateFile(at: readable, container: container, options: options)
                report.path = path
                return report
            } catch {
                throw spooled?.relabel(error) ?? error
            }
        }
        let bytes = try spooled?.readAll() ?? FileIO.read(path)
        if format == nil { format = FileFormat.sniff(bytes) }
        switch format {
        case .dabriefcase?, .bin2?:
            return Validator.validate(bytes: bytes, container: format!.container!, path: path, options: options)
        case .snapshot?:
            return SnapshotValidation.validate(bytes: bytes, path: path, options: options)
        case .json?:
            // The document read as it comes into the validation sink.
            var sink = ValidationSink(path: path, format: "json", options: options)
            let failure: BriefcaseError? = bytes.withUnsafeBytes { buffer in
                var reader = JSONStreamReader(buffer)
                reader.jobs = options.jobs
                do throws(BriefcaseError) { try reader.read(into: &sink) } catch { return error }
                return nil
            }
            if let failure { return ValidationReport.failure(path: path, format: "json", check: .jsonDocument, error: failure) }
            return sink.report!
        default:
            return ValidationReport(path: path, format: "", errors: [Finding(.input,
                "not a briefcase: the content is neither a DABRC600 file, a DABIN200 stream nor a JSON document (name the format with --from)",
                offset: 0)])
        }
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(systemPath(path), &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    // MARK: output

    /// `PATH: element 'X': offset N: error: message`, one line per finding, on standard error,
    /// escaped for the terminal (`TerminalText`): the path, the element and the message may hold
    /// names and values of the file.
    static func printFindings(_ report: ValidationReport) {
        var text = ""
        for (severity, findings) in [("error", report.errors), ("warning", report.warnings)] {
            for finding in findings { text += TerminalText.escaped(line(report.path, finding, severity)) + "\n" }
        }
        Console.write(text)
    }

    static func line(_ path: String, _ finding: Finding, _ severity: String) -> String {
        var parts = [finding.file.map { path.hasSuffix("/") ? path + $0 : path + "/" + $0 } ?? path]
        if let element = finding.element { parts.append("element '\(element)'") }
        if let offset = finding.offset { parts.append("offset \(offset)") }
        parts.append(severity)
        parts.append(finding.message)
        return parts.joined(separator: ": ")
    }

    static func summary(_ report: ValidationReport) -> String {
        func count(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
        var format = report.format.isEmpty ? "" : " \(report.format)"
        if report.format != "folder" && GzipInput.isGzipped(report.path) { format += " (gzip; offsets are in the decompressed data)" }
        return "\(report.path): \(report.valid ? "valid" : "INVALID")\(format), \(count(report.errors.count, "error")), \(count(report.warnings.count, "warning"))"
    }

    static func writeJSON<S: ByteSink>(_ reports: [ValidationReport], _ w: inout JSONWriter<S>) {
        w.writeRaw("[")
        for (i, report) in reports.enumerated() {
            w.writeRaw(i == 0 ? "\n  {\"path\": " : ",\n  {\"path\": ")
            w.writeString(SystemPath.repaired(report.path)) // JSON cannot carry a byte that is not UTF-8
            w.writeRaw(", \"format\": "); w.writeString(report.format)
            w.writeRaw(", \"valid\": "); w.writeBool(report.valid)
            w.writeRaw(", \"encoding\": ")
            if let encoding = report.encoding { w.writeString(encoding) } else { w.writeNull() }
            for (key, findings) in [("errors", report.errors), ("warnings", report.warnings)] {
                w.writeRaw(", \""); w.writeRaw(key); w.writeRaw("\": [")
                for (k, finding) in findings.enumerated() {
                    w.writeRaw(k == 0 ? "\n    {\"message\": " : ",\n    {\"message\": ")
                    w.writeString(finding.message)
                    w.writeRaw(", \"check\": "); w.writeString(finding.check.rawValue)
                    if let offset = finding.offset { w.writeRaw(", \"offset\": "); w.writeInt(Int64(offset)) }
                    if let element = finding.element { w.writeRaw(", \"element\": "); w.writeString(element) }
                    if let file = finding.file { w.writeRaw(", \"file\": "); w.writeString(SystemPath.repaired(file)) }
                    w.writeRaw("}")
                }
                w.writeRaw(findings.isEmpty ? "]" : "\n  ]")
            }
            w.writeRaw("}")
        }
        w.writeRaw(reports.isEmpty ? "]\n" : "\n]\n")
    }
}
