// A plain snapshot document (no `briefcase` member) → a briefcase (Spec/datastore-mapping.md §6).

import JSONCore
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit

enum SnapshotInference {
    /// The name of the column that holds the record id (another name when a field takes it).
    static let recordIDColumnName = "rowid"
    /// The first change record id of each delta, as .NET numbers them.
    static let firstChangeRecordID: Int32 = 1100

    /// One datastore change, seen from its table.
    struct Step {
        enum Kind { case insert, update, delete }
        var kind: Kind
        var recordID: String
        var before: DatastoreRecord?
        var after: DatastoreRecord?
        /// Fields the change names (an insert's fields, an update's operations).
        var touched: [String]
    }

    final class TableInfo {
        let tid: String
        var fieldOrder: [String] = []
        var values: [String: [DatastoreValue]] = [:]
        var records: [(id: String, record: DatastoreRecord)] = []
        var steps: [Step] = []

        init(tid: String) { self.tid = tid }

        func observe(_ record: DatastoreRecord) {
            for (name, value) in record.fields {
                if values[name] == nil { fieldOrder.append(name); values[name] = [] }
                values[name]!.append(value)
            }
        }
    }

    enum ColumnKind: Equatable {
        case typed(DataType, size: Int32)
        case json
    }

    static func briefcase(from document: SnapshotDocument) throws(BriefcaseError) -> (document: BriefcaseDocument, warnings: [String]) {
        let mapping = ValueMapping(codePage: .utf8)
        var tables: [TableInfo] = []
        var byID: [String: TableInfo] = [:]
        func table(_ tid: String) -> TableInfo {
            if let existing = byID[tid] { return existing }
            let created = TableInfo(tid: tid)
            tables.append(created)
            byID[tid] = created
            return created
        }
        for row in document.snapshot.rows {
            let info = table(row.tableID)
            info.records.append((row.recordID, row.record))
            info.observe(row.record)
        }
        // Replay the deltas change by change, seeing each record before and after.
        var working = document.snapshot
        var groups: [SnapshotHints.DeltaGroup] = []
        var stepRefs: [[(TableInfo, Int)]] = []
        for (d, delta) in (document.deltas ?? []).enumerated() {
            var refs: [(TableInfo, Int)] = []
            for (c, change) in delta.changes.enumerated() {
                let before = working[change.tableID, change.recordID]
                do {
                    try working.apply(change)
                } catch {
                    let located = error.prefixed(by: JSONPath.root.appending(key: "deltas").appending(index: d)
                        .appending(key: "changes").appending(index: c))
                    throw BriefcaseError(.invalidData, located.description)
                }
                let after = working[change.tableID, change.recordID]
                let info = table(change.tableID)
                if let after { info.observe(after) }
                let step: Step
                switch change {
                case .insert(_, let rid, let fields):
                    step = Step(kind: .insert, recordID: rid, before: nil, after: after, touched: fields.fieldNames)
                case .update(_, let rid, let updates):
                    step = Step(kind: .update, recordID: rid, before: before, after: after, touched: updates.map(\.field))
                case .delete(_, let rid):
                    step = Step(kind: .delete, recordID: rid, before: before, after: nil, touched: [])
                }
                info.steps.append(step)
                refs.append((info, info.steps.count - 1))
            }
            stepRefs.append(refs)
            groups.append(SnapshotHints.DeltaGroup(rev: delta.rev, nonce: delta.nonce, changes: []))
        }

        var hints = SnapshotHints()
        hints.rev = document.snapshot.rev
        hints.extras = document.extras
        var elements: [Element] = []
        var tableNames = NameClaims()
        var names: [ObjectIdentifier: String] = [:]
        for info in tables {
            let name = tableNames.claim(DatastoreNames.decode(info.tid), else: info.tid)
            names[ObjectIdentifier(info)] = name
            hints.tables.append((name, info.tid))

            // Columns: the record id first, then one per field in order of appearance.
            var columnNames = NameClaims()
            let fieldNames = info.fieldOrder.map { columnNames.claim(DatastoreNames.decode($0), else: $0) }
            let rowidName = columnNames.claim(recordIDColumnName, else: recordIDColumnName + "_")
            let kinds = info.fieldOrder.map { infer(info.values[$0] ?? [], mapping: mapping) }

            var descriptors = [FieldDescriptor(name: ByteString(utf8: rowidName), type: .wideString, size: 65536)]
            var properties = [schemaProperties(name: rowidName, type: .wideString, size: 65536, key: true,
                                               hints: ColumnHints(recordID: true), description: "Datastore record id")]
            for (i, field) in info.fieldOrder.enumerated() {
                let (type, size): (DataType, Int32)
                switch kinds[i] {
                case .typed(let t, let s): (type, size) = (t, s)
                case .json: (type, size) = (.wideMemo, 0)
                }
                descriptors.append(FieldDescriptor(name: ByteString(utf8: fieldNames[i]), type: type, size: size))
                properties.append(schemaProperties(
                    name: fieldNames[i], type: type, size: size, key: false,
                    hints: ColumnHints(fieldID: field, json: kinds[i] == .json),
                    description: kinds[i] == .json ? "Datastore field \(field), as JSON (lists, mixed types)" : "Datastore field \(field)"))
            }
            let types = descriptors.map(\.type)

            func row(_ record: DatastoreRecord?, id: String) -> Row {
                guard let record else { return Row(repeating: nil, count: types.count) }
                var row: Row = [.wideString(WideText.encode(id))]
                for (i, field) in info.fieldOrder.enumerated() {
                    guard let value = record[field] else { row.append(nil); continue }
                    row.append(mapping.reverse(value, type: types[i + 1], json: kinds[i] == .json))
                }
                return row
            }

            if !info.steps.isEmpty {
                let removes = info.steps.contains { step in
                    step.kind == .update && step.touched.contains { step.before?[$0] != nil && step.after?[$0] == nil }
                }
                var changes: [DeltaChange] = []
                for (n, step) in info.steps.enumerated() {
                    let recordID = firstChangeRecordID &+ Int32(truncatingIfNeeded: n)
                    let none = Row(repeating: nil, count: types.count)
                    switch step.kind {
                    case .insert:
                        changes.append(DeltaChange(type: .insert, recordID: recordID, oldValues: none,
                                                   newValues: row(step.after, id: step.recordID)))
                    case .delete:
                        changes.append(DeltaChange(type: .delete, recordID: recordID,
                                                   oldValues: row(step.before, id: step.recordID), newValues: none))
                    case .update:
                        var old = row(step.before, id: step.recordID)
                        var new = row(step.after, id: step.recordID)
                        if !removes {
                            // Reduced: the key and the fields the change names.
                            for (i, field) in info.fieldOrder.enumerated() where !step.touched.contains(field) {
                                old[i + 1] = nil
                                new[i + 1] = nil
                            }
                        }
                        changes.append(DeltaChange(type: .update, recordID: recordID, oldValues: old, newValues: new))
                    }
                }
                elements.append(.delta(Delta(
                    name: ByteString(utf8: name),
                    loggedFields: descriptors.map { LoggedField(name: $0.name, type: $0.type) },
                    keyFields: [ByteString(utf8: rowidName)],
                    reducedDeltaFlag: removes ? 0 : 1,
                    changes: changes)))
            }
            elements.append(.table(Table(
                name: ByteString(utf8: name),
                schema: Schema(fields: properties),
                fields: descriptors,
                rows: info.records.map { row($0.record, id: $0.id) })))
        }

        for (d, refs) in stepRefs.enumerated() {
            groups[d].changes = refs.map { info, step in
                (names[ObjectIdentifier(info)] ?? info.tid, firstChangeRecordID &+ Int32(truncatingIfNeeded: step))
            }
        }
        hints.deltas = groups
        let property = BriefcaseProperty(name: ByteString(utf8: SnapshotHints.propertyName),
                                         value: ByteString(utf8: hints.json.description))
        let file = BriefcaseFile(properties: [property], stream: Bin2Stream(elements: elements))
        return (BriefcaseDocument(container: .dabriefcase, file: file), [])
    }

    /// The most specific column type that holds every value exactly: one atom type throughout
    /// (strings → datWideString, or datWideMemo beyond 65 536 UTF-16 units; booleans →
    /// datBoolean; integers → datLargeInt; doubles → datFloat; dates → datDateTime when every
    /// date fits years 1–9999 to the millisecond; bytes → datBlob); anything else (lists, mixed
    /// types, dates out of range) → the JSON text column.
    static func infer(_ values: [DatastoreValue], mapping: ValueMapping) -> ColumnKind {
        var kind: String?
        var longest = 0
        for value in values {
            guard case .atom(let atom) = value else { return .json }
            if kind == nil { kind = atom.typeName } else if kind != atom.typeName { return .json }
            if case .string(let s) = atom { longest = max(longest, s.utf16.count) }
        }
        let type: DataType
        var size: Int32 = 0
        switch kind {
        case "string":
            if longest <= 65536 { type = .wideString; size = 65536 } else { type = .wideMemo }
        case "boolean": type = .boolean
        case "integer": type = .largeInt
        case "double": type = .float
        case "date": type = .dateTime
        case "bytes": type = .blob
        default: return .json
        }
        for value in values {
            guard let back = mapping.reverse(value, type: type), mapping.forward(back) == value else { return .json }
        }
        return .typed(type, size: size)
    }

    /// The schema properties of an inferred column (the same ten for every column).
    static func schemaProperties(name: String, type: DataType, size: Int32, key: Bool, hints: ColumnHints,
                                 description: String) -> [SchemaProperty] {
        [
            SchemaProperty("Name", name),
            SchemaProperty("DataType", type.name),
            SchemaProperty("Size", String(size)),
            SchemaProperty("InPrimaryKey", key ? "True" : "False"),
            SchemaProperty("LogChanges", "True"),
            SchemaProperty("Required", key ? "True" : "False"),
            SchemaProperty("ReadOnly", "False"),
            SchemaProperty("DisplayLabel", name),
            SchemaProperty("CustomAttributes", hints.text),
            SchemaProperty("Description", description),
        ]
    }
}

/// Names that must differ ASCII case-insensitively (as Data Abstract compares them).
struct NameClaims {
    private var used = Set<[UInt8]>()

    private static func key(_ name: String) -> [UInt8] {
        name.utf8.map { (65...90).contains($0) ? $0 | 0x20 : $0 }
    }

    /// `preferred` if free, else `fallback`, else `fallback~2`, `fallback~3`, …
    mutating func claim(_ preferred: String, else fallback: String) -> String {
        if used.insert(Self.key(preferred)).inserted { return preferred }
        if used.insert(Self.key(fallback)).inserted { return fallback }
        var n = 2
        while !used.insert(Self.key("\(fallback)~\(n)")).inserted { n += 1 }
        return "\(fallback)~\(n)"
    }
}
