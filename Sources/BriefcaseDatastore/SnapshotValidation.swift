// `validate` for datastore snapshot documents (Spec/datastore-mapping.md §8).

import JSONCore
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit

/// `validate` for datastore snapshot documents (Spec/datastore-mapping.md §8).
public enum SnapshotValidation {
    /// Checks a snapshot document: JSON syntax (byte offset), structure, ids and value encodings,
    /// the delta revision sequence (all `snapshot` errors, naming the JSON path); that the deltas
    /// apply; every size and count limit (`datastore-limits` errors); then the briefcase it maps
    /// to (this tool's `briefcase` member read back, or the inferred one), with every check
    /// `Validator` runs on a decoded model.
    public static func validate(bytes: [UInt8], path: String, options: ValidationOptions = ValidationOptions()) -> ValidationReport {
        var report = ValidationReport(path: path, format: "snapshot")
        /// A finding with both its JSON path and its byte offset.
        func finding(_ check: ValidationCheck, _ message: String, offset: Int? = nil) -> Finding {
            let located = BriefcaseError(.invalidData, message, offset: offset).locatedInJSON(bytes)
            return Finding(check, located.message, offset: located.offset)
        }
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            report.errors.append(finding(.snapshot, error.briefcaseError.message, offset: error.offset))
            return options.strict ? report.strict() : report
        }
        let document: SnapshotDocument
        do {
            document = try SnapshotDocument(json: json)
        } catch {
            report.errors.append(finding(.snapshot, error.description))
            return options.strict ? report.strict() : report
        }

        // The deltas apply, in sequence.
        var state = document.snapshot
        var applies = true
        for (position, delta) in (document.deltas ?? []).enumerated() {
            let deltaPath = JSONPath.root.appending(key: "deltas").appending(index: position)
            if let error = DatastoreLimits.violation(ofDelta: delta) {
                report.errors.append(finding(.datastoreLimits, error.prefixed(by: deltaPath).description))
            }
            guard applies else { continue }
            do {
                try state.apply(delta)
            } catch {
                report.errors.append(finding(.snapshot, error.prefixed(by: deltaPath).description))
                applies = false
            }
        }
        // Limits, before and after the deltas.
        var seen = Set<String>()
        for error in DatastoreLimits.violations(in: document.snapshot) where seen.insert(error.message).inserted {
            report.errors.append(finding(.datastoreLimits, error.description))
        }
        if applies && !(document.deltas ?? []).isEmpty {
            for error in DatastoreLimits.violations(in: state) where seen.insert(error.message).inserted {
                report.errors.append(Finding(.datastoreLimits, "after the deltas: " + error.message))
            }
        }

        // The briefcase the document maps to.
        guard applies else { return options.strict ? report.strict() : report }
        do {
            let imported = try SnapshotImport(document)
            report.encoding = imported.codePage.name
            for warning in imported.warnings { report.warnings.append(Finding(.snapshot, warning)) }
            let inner = Validator.validate(document: imported.document, path: path, format: "snapshot",
                                           options: ValidationOptions(codePage: imported.codePage, strict: false))
            report.errors += inner.errors
            report.warnings += inner.warnings
        } catch {
            report.errors.append(finding(.snapshot, error.message))
        }
        return options.strict ? report.strict() : report
    }
}
