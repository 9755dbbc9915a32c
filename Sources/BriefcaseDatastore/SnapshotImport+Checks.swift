// What the `briefcase` member's reader refuses rather than change (Spec/datastore-mapping.md §6,
// "Values that do not fit"): a datastore field that no column holds, a value its column cannot
// hold as given (a string in an integer column, 1e39 in a datSingleFloat column), and a list
// operation in an update. Each would otherwise become NULL, or vanish, without a word.

import JSONCore
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit

/// A column of a table element in the member: its type, and whether it holds JSON text.
struct TableColumn {
    var type: DataType
    var json: Bool
}

/// Where the values of one record come from, for the checks and their messages.
struct RecordSource {
    /// The datastore table id and record id.
    let tid: String
    let rid: String
    /// The JSON path of the record's fields object in the snapshot document (`$.rows[3].data`,
    /// `$.deltas[0].changes[2][3]`), worked out only for a message: finding a row's position
    /// is a search.
    let fieldsPath: () -> JSONPath
}

extension Restorer {
    /// The path of a record's `data` in the snapshot's `rows` (found only for a message).
    static func rowDataPath(in snapshot: SnapshotDocument, tid: String, rid: String) -> JSONPath {
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

    /// Refuses a datastore field (`given(id)`) that no column with its id took: none read it
    /// as a briefcase value, and the member gives no exact form for any of them (`overridden`).
    /// (Logged fields of the same name share an id; one of them taking the value is enough.)
    /// In a change, the field holds the value of the table's column with that id (the export
    /// maps the table's columns, `tableColumn`): when the logged field has another type, a value
    /// that fits the table's column reads as NULL in the logged field by design.
    func checkTaken(_ values: [Value?], roles: [ColumnRole], types: [DataType], overridden: Set<Int>,
                    given: (String) -> DatastoreValue?, tableColumn: (String) -> TableColumn? = { _ in nil },
                    _ source: RecordSource) throws(BriefcaseError)
    {
        let mapping = ValueMapping(codePage: codePage)
        var taken = Set<String>()
        for (column, role) in roles.enumerated() where column < values.count && (values[column] != nil || overridden.contains(column)) {
            if let id = role.fieldID { taken.insert(id) }
        }
        for (column, role) in roles.enumerated() {
            guard case .field(let id, let json) = role, !taken.contains(id), let value = given(id) else { continue }
            if let table = tableColumn(id), table.type != types[column] || table.json != json,
               mapping.reverse(value, type: table.type, json: table.json) != nil { continue }
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
        BriefcaseError(.invalidData, "\(source.fieldsPath().appending(key: field)): table \(JSONPath.quoted(source.tid)), record \(JSONPath.quoted(source.rid)), field \(JSONPath.quoted(field)): \(message)")
    }

    private static func shown(_ value: DatastoreValue) -> String {
        let text = value.wire.description
        return text.count > 60 ? String(text.prefix(60)) + "…" : text
    }
}
