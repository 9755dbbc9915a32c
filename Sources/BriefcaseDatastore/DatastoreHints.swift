// What a briefcase made from a plain snapshot carries so that it converts back to the same
// datastore (Spec/datastore-mapping.md §6):
//
// - a column's `CustomAttributes` schema property: `Datastore.RecordID` (the column holds the
//   record id), `Datastore.Field=<id>` (the field id), `Datastore.JSON` (the text is the
//   field's value in the wire encoding: lists, mixed types), separated by `;`;
// - the briefcase property `DatastoreSnapshot`: JSON text
//   `{"rev": r, "tables": [[name, tid], …], "deltas": [{"rev", "nonce", "changes": [[table name, change recordID], …]}, …], "extras": {…}}`.

import JSONCore
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit

/// The `CustomAttributes` markers of one column.
struct ColumnHints: Equatable {
    var recordID = false
    var fieldID: String?
    var json = false

    static let propertyName = "CustomAttributes"

    init(recordID: Bool = false, fieldID: String? = nil, json: Bool = false) {
        self.recordID = recordID
        self.fieldID = fieldID
        self.json = json
    }

    /// Reads the markers from a column's schema properties (none when absent).
    init(properties: [SchemaProperty]?) {
        guard let text = properties?.value(named: Self.propertyName) else { return }
        for item in text.split(separator: ";") {
            let trimmed = trimmedSpace(item)
            let parts = trimmed.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            switch parts[0].lowercased() {
            case "datastore.recordid": recordID = true
            case "datastore.json": json = true
            case "datastore.field" where parts.count == 2: fieldID = String(parts[1])
            default: break
            }
        }
    }

    /// The `CustomAttributes` text.
    var text: String {
        var items: [String] = []
        if recordID { items.append("Datastore.RecordID") }
        if let fieldID { items.append("Datastore.Field=" + fieldID) }
        if json { items.append("Datastore.JSON") }
        return items.joined(separator: ";")
    }
}

/// The `DatastoreSnapshot` briefcase property.
struct SnapshotHints {
    static let propertyName = "DatastoreSnapshot"

    struct DeltaGroup {
        var rev: Int
        var nonce: String
        /// (table name as text, change record id)
        var changes: [(table: String, recordID: Int32)]
    }

    var rev: Int?
    var tables: [(name: String, tid: String)] = []
    var deltas: [DeltaGroup]?
    var extras = JSONObject()

    init() {}

    /// Reads the property; nil when the briefcase has none (or it is not JSON of this shape).
    init?(properties: [BriefcaseProperty], codePage: CodePage) {
        guard let property = properties.first(where: { codePage.decodeReversibly($0.name) == Self.propertyName }),
              let text = codePage.decodeReversibly(property.value),
              let json = try? JSONParser.parse(text), case .object(let object) = json
        else { return nil }
        rev = object["rev"]?.int64Value.flatMap { Int(exactly: $0) }
        for pair in object["tables"]?.arrayValue ?? [] {
            guard let name = pair[0]?.stringValue, let tid = pair[1]?.stringValue else { return nil }
            tables.append((name, tid))
        }
        if let groups = object["deltas"]?.arrayValue {
            var result: [DeltaGroup] = []
            for group in groups {
                guard let rev = group["rev"]?.int64Value.flatMap({ Int(exactly: $0) }),
                      let nonce = group["nonce"]?.stringValue, let changes = group["changes"]?.arrayValue
                else { return nil }
                var refs: [(String, Int32)] = []
                for ref in changes {
                    guard let table = ref[0]?.stringValue, let id = ref[1]?.int32Value else { return nil }
                    refs.append((table, id))
                }
                result.append(DeltaGroup(rev: rev, nonce: nonce, changes: refs))
            }
            deltas = result
        }
        extras = object["extras"]?.objectValue ?? JSONObject()
    }

    var json: JSONValue {
        var object = JSONObject()
        if let rev { object["rev"] = .integer(rev) }
        object["tables"] = .array(tables.map { [.string($0.name), .string($0.tid)] })
        if let deltas {
            object["deltas"] = .array(deltas.map { group in
                ["rev": .integer(group.rev), "nonce": .string(group.nonce),
                 "changes": .array(group.changes.map { [.string($0.table), .integer($0.recordID)] })]
            })
        }
        if !extras.isEmpty { object["extras"] = .object(extras) }
        return .object(object)
    }

    func tid(forTable name: String?) -> String? {
        guard let name else { return nil }
        return tables.first { $0.name == name }?.tid
    }
}

private func trimmedSpace(_ text: Substring) -> Substring {
    var text = text
    while let first = text.first, first == " " || first == "\t" || first == "\r" || first == "\n" { text.removeFirst() }
    while let last = text.last, last == " " || last == "\t" || last == "\r" || last == "\n" { text.removeLast() }
    return text
}
