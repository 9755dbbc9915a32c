// Datastore snapshot document → briefcase (Spec/datastore-mapping.md §5 and §6).

import JSONCore
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit

/// The briefcase of a snapshot document: the original one when the document carries this
/// tool's `briefcase` member, else one inferred from the datastore (a plain snapshot).
public struct SnapshotImport: Sendable {
    /// The briefcase: restored exactly, or inferred from a plain snapshot.
    public var document: BriefcaseDocument
    /// The code page of the briefcase's 8-bit strings (UTF-8 for an inferred briefcase).
    public var codePage: CodePage
    /// True when the briefcase came from the `briefcase` member; false when inferred.
    public var restored: Bool
    /// Rows or changes of the datastore that the `briefcase` member does not account for.
    public var warnings: [String]

    /// Parses and reads a snapshot document. Errors name the JSON path (`$.rows[3].data.x`,
    /// `$.briefcase.elements[1].rows[0]`) and carry the byte offset of what is wrong.
    /// A document whose rows lie as this tool writes them has them read from its bytes
    /// (`readingRowsFromBytes`); any other is parsed whole (`init(parsingWhole:)`): the same
    /// briefcase, warnings and errors either way.
    public init(parsing bytes: [UInt8]) throws(BriefcaseError) {
        if let imported = Self.readingRowsFromBytes(bytes) {
            self = imported
        } else {
            try self.init(parsingWhole: bytes)
        }
    }

    /// Reads a snapshot document whole: parsed into a tree, then read (`init(_:)`), however its
    /// rows lie. What `init(parsing:)` falls back on when the rows cannot be read from the bytes.
    package init(parsingWhole bytes: [UInt8]) throws(BriefcaseError) {
        self = try bytes.withUnsafeBytes { buf in Result { () throws(BriefcaseError) in try SnapshotImport(parsingWhole: buf) } }.get()
    }

    /// The same, of bytes that stay valid meanwhile (a mapped file).
    package init(parsingWhole bytes: UnsafeRawBufferPointer) throws(BriefcaseError) {
        do throws(BriefcaseError) {
            let snapshot: SnapshotDocument
            do {
                snapshot = try SnapshotDocument(parsing: bytes)
            } catch {
                throw BriefcaseError(.invalidData, error.offset == nil ? error.description : error.message, offset: error.offset)
            }
            try self.init(snapshot)
        } catch {
            throw error.locatedInJSON(bytes)
        }
    }

    init(document: BriefcaseDocument, codePage: CodePage, restored: Bool, warnings: [String]) {
        self.document = document
        self.codePage = codePage
        self.restored = restored
        self.warnings = warnings
    }

    /// Reads a snapshot document already parsed: restores the briefcase its `briefcase` member carries, or infers one.
    public init(_ snapshot: SnapshotDocument) throws(BriefcaseError) {
        if let member = snapshot.extras[SnapshotExport.memberName], case .object(let meta) = member,
           meta["format"] == .string(SnapshotExport.formatName)
        {
            var restorer = Restorer(snapshot: snapshot, meta: meta)
            document = try restorer.restore()
            codePage = restorer.codePage
            warnings = restorer.warnings
            restored = true
        } else {
            let inferred = try SnapshotInference.briefcase(from: snapshot)
            document = inferred.document
            codePage = .utf8
            warnings = inferred.warnings
            restored = false
        }
    }
}

/// Reads the `briefcase` member back, taking values from the datastore.
struct Restorer {
    let snapshot: SnapshotDocument
    let meta: JSONObject
    var codePage: CodePage = .utf8
    var warnings: [String] = []
    /// The table elements' rows read from the document's bytes, in order, instead of looked up
    /// among the snapshot's records (`SnapshotImport.readingRowsFromBytes`).
    var rowBytes: RowBytes?

    init(snapshot: SnapshotDocument, meta: JSONObject) {
        self.snapshot = snapshot
        self.meta = meta
    }

    private static let root = "$." + SnapshotExport.memberName

    private static func error(_ path: String, _ message: String) -> BriefcaseError {
        BriefcaseError(.invalidData, "\(path): \(message)")
    }

    private static func mismatch(_ path: String, _ expected: String, _ found: JSONValue?) -> BriefcaseError {
        Self.error(path, "expected \(expected), found \(found?.foundDescription ?? "nothing")")
    }

    private func member(_ object: JSONObject, _ key: String, _ path: String) throws(BriefcaseError) -> JSONValue {
        guard let value = object[key] else { throw Self.error(path, "missing key \"\(key)\"") }
        return value
    }

    private func string(_ object: JSONObject, _ key: String, _ path: String) throws(BriefcaseError) -> String {
        let value = try member(object, key, path)
        guard case .string(let text) = value else { throw Self.mismatch("\(path).\(key)", "a string", value) }
        return text
    }

    private func array(_ value: JSONValue?, _ path: String) throws(BriefcaseError) -> [JSONValue] {
        guard case .array(let items)? = value else { throw Self.mismatch(path, "an array", value) }
        return items
    }

    /// The briefcase of the member, whole.
    mutating func restore() throws(BriefcaseError) -> BriefcaseDocument {
        var elements: [Element] = []
        var document = try restore(begin: { _ throws(BriefcaseError) in }, element: { _, element throws(BriefcaseError) in elements.append(element) })
        document.file.stream.elements = elements
        return document
    }

    /// The briefcase of the member, element by element: `begin` with its head as soon as the
    /// member's head is read, then `element` with each element and its stream position, in
    /// stream order. Returns the briefcase without its elements. (Errors found after the last
    /// element — a bin2 briefcase with properties — come after the elements were given.)
    mutating func restore(begin: (BriefcaseHead) throws(BriefcaseError) -> Void,
                          element: (Int, Element) throws(BriefcaseError) -> Void) throws(BriefcaseError) -> BriefcaseDocument
    {
        let root = Self.root
        guard meta["version"]?.int64Value == SnapshotExport.formatVersion else {
            throw BriefcaseError(.unsupported, "\(root).version: only version \(SnapshotExport.formatVersion) is supported")
        }
        let containerName = try string(meta, "container", root)
        guard let container = ContainerFormat(rawValue: containerName) else {
            throw Self.error("\(root).container", "unknown container '\(containerName)' (dabriefcase or bin2)")
        }
        let encodingName = try string(meta, "encoding", root)
        guard let codePage = CodePage(name: encodingName) else {
            throw BriefcaseError(.unsupported, "\(root).encoding: unknown code page '\(encodingName)'")
        }
        self.codePage = codePage
        let parts = JSONDocumentParts(codePage: codePage)
        let mapping = ValueMapping(codePage: codePage)

        var file = BriefcaseFile()
        for (i, pair) in try array(meta["properties"] ?? .array([]), "\(root).properties").enumerated() {
            let path = "\(root).properties[\(i)]"
            guard case .array(let items) = pair, items.count == 2 else { throw Self.mismatch(path, "[name, value]", pair) }
            file.properties.append(BriefcaseProperty(name: try parts.ansi(items[0], path: path + "[0]"),
                                                     value: try parts.ansi(items[1], path: path + "[1]")))
        }
        if let padding = meta["headerPadding"] {
            guard case .string(let text) = padding, let bytes = Base64.decode(text) else {
                throw Self.error("\(root).headerPadding", "not valid base64")
            }
            file.headerPadding = ByteString(bytes)
        }

        try begin(BriefcaseHead(container: container, codePage: codePage, properties: file.properties, headerPadding: file.headerPadding))
        let deltas = snapshot.deltas ?? []
        let tableColumns = try self.tableColumns()
        var usedRows = Set<RecordKey>()
        var usedChanges = Set<[Int]>()
        for (e, item) in try array(meta["elements"], "\(root).elements").enumerated() {
            let path = "\(root).elements[\(e)]"
            guard case .object(let object) = item else { throw Self.mismatch(path, "an object", item) }
            let tid = try string(object, "tid", path)
            switch try string(object, "kind", path) {
            case "table":
                var table = try parts.table(head: object, path: path)
                let types = table.fields.map(\.type)
                let roles = try self.roles(object["fields"], count: types.count, path: "\(path).fields")
                let exact = object["exact"]?.objectValue ?? JSONObject()
                let ids = try array(object["rows"], "\(path).rows")
                if var reading = rowBytes {
                    rowBytes = nil  // (read beside `self`, then put back)
                    table.rows = try reading.rows(tid: tid, ids: ids, roles: roles, types: types, exact: exact, path: path,
                                                  parts: parts, mapping: mapping)
                    rowBytes = reading
                } else {
                    for (r, idJSON) in ids.enumerated() {
                        let rowPath = "\(path).rows[\(r)]"
                        guard case .string(let id) = idJSON else { throw Self.mismatch(rowPath, "a record id (a string)", idJSON) }
                        guard let record = snapshot.snapshot[tid, id] else {
                            throw Self.error(rowPath, "the record \"\(id)\" of table \"\(tid)\" is not in the snapshot's rows")
                        }
                        guard usedRows.insert(RecordKey(tid: tid, rid: id)).inserted else {
                            throw Self.error(rowPath, "the record \"\(id)\" of table \"\(tid)\" is listed twice")
                        }
                        var row = mapping.row(of: record, recordID: id, roles: roles, types: types)
                        let source = RecordSource(tid: tid, rid: id, fieldsPath: { [snapshot] in Self.rowDataPath(in: snapshot, tid: tid, rid: id) })
                        try checkKnown(record.fields.lazy.map(\.name), known: Set(roles.compactMap(\.fieldID)), source)
                        var overridden = Set<Int>()
                        if let overrides = exact[id] {
                            overridden = try Self.apply(overrides, to: &row, types: types, parts: parts, path: "\(path).exact[\"\(id)\"]")
                        }
                        try checkTaken(row, roles: roles, types: types, overridden: overridden, given: { record[$0] }, source)
                        table.rows.append(row)
                    }
                }
                try element(e, .table(table))
            case "delta":
                var delta = try parts.delta(head: object, path: path)
                let types = delta.loggedFields.map(\.type)
                let roles = try self.roles(object["loggedFields"], count: types.count, path: "\(path).loggedFields")
                for (k, entryJSON) in try array(object["changes"], "\(path).changes").enumerated() {
                    let changePath = "\(path).changes[\(k)]"
                    guard case .object(let entry) = entryJSON else { throw Self.mismatch(changePath, "an object", entryJSON) }
                    var change = try parts.change(head: entry, path: changePath)
                    change.oldValues = try parts.values(try member(entry, "old", changePath), types: types, path: changePath + ".old")
                    var datastore: DatastoreChange?
                    var datastoreIndex: (Int, Int)?
                    if case .string(let id)? = entry["rowid"] {
                        guard let rev = entry["rev"]?.int64Value.flatMap({ Int(exactly: $0) }),
                              let index = entry["change"]?.int64Value.flatMap({ Int(exactly: $0) })
                        else { throw Self.error(changePath, "a change with a rowid needs \"rev\" and \"change\"") }
                        let (d, overflow) = rev.subtractingReportingOverflow(snapshot.snapshot.rev)
                        guard !overflow, d >= 0, d < deltas.count, index >= 0, index < deltas[d].changes.count else {
                            throw Self.error(changePath, "the snapshot has no change \(index) in a delta at revision \(rev)")
                        }
                        let found = deltas[d].changes[index]
                        guard found.tableID == tid, found.recordID == id else {
                            throw Self.error(changePath, "change \(index) of the delta at revision \(rev) is not about record \"\(id)\" of table \"\(tid)\"")
                        }
                        usedChanges.insert([d, index])
                        datastore = found
                        datastoreIndex = (d, index)
                    }
                    change.newValues = mapping.newValues(of: datastore, roles: roles, types: types)
                    var overridden = Set<Int>()
                    if let overrides = entry["new"] {
                        overridden = try Self.apply(overrides, to: &change.newValues, types: types, parts: parts, path: changePath + ".new")
                    }
                    if let datastore, let (d, index) = datastoreIndex {
                        try checkNewValues(change.newValues, of: datastore, roles: roles, types: types, overridden: overridden,
                                           tableColumns: tableColumns[tid], at: Self.changeFieldsPath(delta: d, index: index))
                    }
                    delta.changes.append(change)
                }
                try element(e, .delta(delta))
            case let other:
                throw Self.error("\(path).kind", "unknown element kind '\(other)' (table or delta)")
            }
        }

        if var reading = rowBytes, !reading.readAll() { throw RowBytes.declined }
        let extraRows = snapshot.snapshot.rows.filter { !usedRows.contains(RecordKey(tid: $0.tableID, rid: $0.recordID)) }
        if !extraRows.isEmpty {
            let first = extraRows[0]
            warnings.append("\(extraRows.count) row(s) of the snapshot are not part of the briefcase and are left out (the first: record \"\(first.recordID)\" of table \"\(first.tableID)\")")
        }
        let extraChanges = deltas.enumerated().reduce(0) { count, item in
            count + item.element.changes.indices.filter { !usedChanges.contains([item.offset, $0]) }.count
        }
        if extraChanges > 0 {
            warnings.append("\(extraChanges) change(s) of the snapshot's deltas are not part of the briefcase and are left out")
        }
        if container == .bin2, !file.properties.isEmpty || !file.headerPadding.isEmpty {
            throw Self.error("\(root).properties", "a bin2 briefcase has no properties")
        }
        return BriefcaseDocument(container: container, file: file)
    }

    /// The roles written on field or logged-field objects: `"id"` (+ `"json"`), `"rowid": true`, or none.
    private func roles(_ fields: JSONValue?, count: Int, path: String) throws(BriefcaseError) -> [ColumnRole] {
        let items = try array(fields, path)
        guard items.count == count else { throw Self.error(path, "expected \(count) items, found \(items.count)") }
        var roles: [ColumnRole] = []
        for (i, item) in items.enumerated() {
            guard case .object(let object) = item else { throw Self.mismatch("\(path)[\(i)]", "an object", item) }
            if case .string(let id)? = object["id"] {
                roles.append(.field(id, json: object["json"] == .bool(true)))
            } else if object["rowid"] == .bool(true) {
                roles.append(.recordID)
            } else {
                roles.append(.none)
            }
        }
        return roles
    }

    /// Exact forms `{"<position>": form or null}` over reconstructed values; the positions they give.
    static func apply(_ overrides: JSONValue, to values: inout [Value?], types: [DataType], parts: JSONDocumentParts,
                      path: String) throws(BriefcaseError) -> Set<Int>
    {
        var positions = Set<Int>()
        guard case .object(let object) = overrides else { throw Self.mismatch(path, "an object", overrides) }
        for member in object.members {
            guard let position = Int(member.key), position >= 0, position < types.count, position < values.count else {
                throw Self.error(path, "\"\(member.key)\" is not a field position (0…\(types.count - 1))")
            }
            values[position] = member.value.isNull
                ? nil : try parts.value(member.value, type: types[position], path: "\(path)[\"\(member.key)\"]")
            positions.insert(position)
        }
        return positions
    }

    /// The columns of each table element by field id, by table id: an insert carries every
    /// column of its table, logged or not, and a change's values are those of the table's columns.
    private func tableColumns() throws(BriefcaseError) -> [String: [String: TableColumn]] {
        var columns: [String: [String: TableColumn]] = [:]
        for item in try array(meta["elements"], "\(Self.root).elements") {
            guard case .object(let object) = item, object["kind"] == .string("table"), case .string(let tid)? = object["tid"],
                  case .array(let fields)? = object["fields"] else { continue }
            for case .object(let field) in fields {
                guard case .string(let id)? = field["id"], case .string(let name)? = field["type"], let type = DataType(name: name) else { continue }
                columns[tid, default: [:]][id] = TableColumn(type: type, json: field["json"] == .bool(true))
            }
        }
        return columns
    }

    /// The checks of a change's new values against the datastore change they came from.
    private func checkNewValues(_ values: [Value?], of change: DatastoreChange, roles: [ColumnRole], types: [DataType],
                                overridden: Set<Int>, tableColumns: [String: TableColumn]?, at path: JSONPath) throws(BriefcaseError)
    {
        let source = RecordSource(tid: change.tableID, rid: change.recordID, fieldsPath: { path })
        let logged = Set(roles.compactMap(\.fieldID))
        switch change {
        case .insert(_, _, let fields):
            try checkKnown(fields.fields.lazy.map(\.name), known: logged.union(tableColumns?.keys ?? [:].keys), source)
            try checkTaken(values, roles: roles, types: types, overridden: overridden, given: { fields[$0] },
                           tableColumn: { tableColumns?[$0] }, source)
        case .update(_, _, let updates):
            try checkKnown(updates.lazy.map(\.field), known: logged, source)
            try checkOperations(updates, source)
            try checkTaken(values, roles: roles, types: types, overridden: overridden, given: { id in
                guard case .put(let value)? = updates.last(where: { $0.field == id })?.operation else { return nil }
                return value
            }, tableColumn: { tableColumns?[$0] }, source)
        case .delete:
            break
        }
    }
}

struct RecordKey: Hashable {
    var tid: String
    var rid: String
}
