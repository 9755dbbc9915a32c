import BriefcaseDatastore
import BriefcaseKit
import BriefcaseMerge
import DatastoreKit
import JSONCore

/// Three plain datastore snapshots are merged as datastores (Spec/merge.md §5): records by id,
/// list fields by operational transform. Anything else — a snapshot this tool wrote from a
/// briefcase among them — is merged as briefcases.
extension MergeCommand {
    /// The three inputs as datastore snapshot documents, when all three are snapshots no
    /// briefcase was written into; nil otherwise (and for standard input, which is read once).
    func plainSnapshots() throws -> [SnapshotDocument]? {
        let paths = [base, local, remote]
        guard !paths.contains("-"), try paths.allSatisfy({ try inputOptions.format(of: $0) == .snapshot }) else { return nil }
        var documents: [SnapshotDocument] = []
        for path in paths {
            let document = try GzipInput.read(path, as: .snapshot).decoding { (bytes) throws(BriefcaseError) -> SnapshotDocument in
                do throws(DatastoreError) {
                    return try SnapshotDocument(parsing: bytes)
                } catch {
                    throw BriefcaseError(.invalidData, error.description, file: path)
                }
            }
            if case .object(let member)? = document.extras["briefcase"], member["format"] == .string(SnapshotExport.formatName) {
                return nil
            }
            documents.append(document)
        }
        return documents
    }

    /// Merges three plain snapshots; writes a snapshot document (other formats: the merged
    /// document converted as `convert` converts a snapshot), then the report.
    func mergeSnapshots(_ documents: [SnapshotDocument], into format: FileFormat) throws {
        let result: SnapshotMerge.Result
        do {
            result = try SnapshotMerge.merge(base: documents[0], local: documents[1], remote: documents[2], rules: parsedRules(),
                                             asStored: asStored)
        } catch let failure as SnapshotMerge.Failure {
            let path = switch failure.input { case .local?: local; case .remote?: remote; default: base }
            throw BriefcaseError(.invalidModel, failure.input == nil ? failure.description : failure.error.description, file: path)
        }
        let bytes: [UInt8]
        do {
            bytes = try result.document.serialized()
        } catch {
            throw BriefcaseError(.invalidModel, "the merged document cannot be written: \(error)", file: output)
        }
        for violation in Self.limitViolations(result) { Console.warning("\(output): \(violation)") }
        if format == .snapshot {
            let (file, target) = try AtomicOutputSink.make(path: output, replacing: force, progress: nil)
            var sink = target
            do {
                try bytes.withUnsafeBytes { try sink.write($0) }
                try sink.commit()
            } catch {
                file.discard()
                throw error
            }
        } else {
            let imported = try SnapshotImport(parsing: bytes)
            try Conversion(.document(imported.document, imported.codePage), of: base, into: output, format: format, options: inputOptions,
                           replacing: force).run()
        }
        try finish(report: Self.reportLines(result.conflicts), conflicts: result.conflicts.count,
                   resolvedByRule: result.conflicts.filter { $0.rule != nil }.count)
    }

    /// The datastore's limits the merged document breaks (written all the same: each input
    /// kept within them is the user's business, and the merge refuses nothing it can hold).
    static func limitViolations(_ result: SnapshotMerge.Result) -> [DatastoreError] {
        var found = DatastoreLimits.violations(in: result.document.snapshot)
        for delta in result.document.deltas ?? [] {
            if let violation = DatastoreLimits.violation(ofDelta: delta) { found.append(violation) }
        }
        return found
    }

    /// One JSON object per conflict: table (id), key (`{"rowid": id}`), field, base, local,
    /// remote (the datastore's wire form; null when absent), rule, outcome.
    static func reportLines(_ conflicts: [SnapshotMerge.Conflict]) -> String {
        func value(_ v: DatastoreValue?) -> String {
            guard let v else { return "null" }
            var writer = JSONWriter(sink: ArraySink())
            v.write(to: &writer)
            try! writer.flush()  // an ArraySink never fails
            return String(decoding: writer.sink.bytes, as: UTF8.self)
        }
        return conflicts.map { conflict in
            reportLine([("table", string(conflict.tableID)), ("key", "{\"rowid\": \(string(conflict.recordID))}"),
                        ("field", conflict.field.map(string) ?? "null"), ("base", value(conflict.base)),
                        ("local", value(conflict.local)), ("remote", value(conflict.remote)),
                        ("rule", conflict.rule.map { string($0.rawValue) } ?? "null"), ("outcome", string(conflict.outcome))])
        }.joined()
    }
}
