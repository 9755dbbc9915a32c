// What the `briefcase` member's reader refuses rather than change (Spec/datastore-mapping.md §6,
// "Values that do not fit"): a datastore field that no column holds, a value its column cannot
// hold as given (a string in an integer column, 1e39 in a datSingleFloat column), and a list
// operation in an update. Each would otherwise become NULL, or vanish, without a word.

import BriefcaseJSON
import BriefcaseKit
import DatastoreKit

/// Where the values of one record come from, for the checks and their messages.
struct RecordSource {
    /// The datastore table id and record id.
    let tid: String
    let rid: String
    /// The JSON path of the record's fields object in the snapshot document
    /// (`$.rows[3].data`, `$.deltas[0].changes[2][3]`).
    let fieldsPath: JSONPath
}

extension Restorer {
    /// The path of a record's `data` in the snapshot's `rows` (found only for a message).
    func rowDataPath(tid: String, rid: String) -> JSONPath {
        let position = snapshot.snapshot.rows.enumerated().first { $0.element.tableID == tid && $0.element.recordID == rid }?.offset ?? 0
        return JSONPath.root.appending(key: "rows").appending(index: position).appending(key: "data")
    }

    /// The path of the fields of change `index` of delta `delta` (`["I"|"U", tid, rid, {…}]`).
    static func changeFieldsPath(delta: Int, index: Int) -> JSONPath {
        JSONPath.root.appending(key: "deltas").appending(index: delta).appending(key: "changes").appending(index: index).appending(index: 3)
    }

    /// Refuses a field of `names` that is not in `known` (the field ids of the table's columns,
    /// or of the delta's logged fields).
    func checkKnown<S: Sequence<String>>(_ names: S, known: Set<String>, _ source: RecordSource) throws(BriefcaseError) {
        for name in names where !known.contains(name) {
            throw refusal(source, field: name, "no column of the table has this field id (its fields: \(known.sorted().joined(separator: ", ")))")
        }
    }

    /// Refuses a column whose datastore value did not become a briefcase value (`values[c]` is
    /// nil though `given(id)` is not), unless the member gives its exact form (`overridden`).
    func checkTaken(_ values: [Value?], roles: [ColumnRole], types: [DataType], overridden: Set<Int>,
                    given: (String) -> DatastoreValue?, _ source: RecordSource) throws(BriefcaseError)
    {
        for (column, role) in roles.enumerated() where column < values.count && values[column] == nil && !overridden.contains(column) {
            guard case .field(let id, let json) = role, let value = given(id) else { continue }
            throw refusal(source, field: id, "\(Self.shown(value)) cannot be stored in a \(types[column].name) column\(json ? " (a JSON text column)" : "") as given")
        }
    }

    /// Refuses an update operation other than `P` (a value) and `D` (NULL): a briefcase column
    /// holds no lists.
    func checkOperations(_ updates: [FieldUpdate], _ source: RecordSource) throws(BriefcaseError) {
        for update in updates {
            switch update.operation {
            case .put, .delete: continue
            default:
                throw refusal(source, field: update.field, "the list operation \(update.operation.tag) cannot be applied to a briefcase column")
            }
        }
    }

    private func refusal(_ source: RecordSource, field: String, _ message: String) -> BriefcaseError {
        BriefcaseError(.invalidData, "\(source.fieldsPath.appending(key: field)): table \(JSONPath.quoted(source.tid)), record \(JSONPath.quoted(source.rid)), field \(JSONPath.quoted(field)): \(message)")
    }

    private static func shown(_ value: DatastoreValue) -> String {
        let text = value.wire.description
        return text.count > 60 ? String(text.prefix(60)) + "…" : text
    }
}
