// A table's mapping (Spec/datastore-mapping.md §3): its state while the export maps it, its ids
// and column roles, the record id of a row, and the annotated element objects.

import JSONCore
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit

/// One table (or a delta without a table) while mapping: its columns' roles and, while its rows
/// are being mapped, its current rows and their record ids.
final class TableState {
    let tid: String
    let name: ByteString
    let display: String
    /// The table; whole only while it is being mapped (and its deltas replayed).
    var table: Table
    /// What `table` was when the state was made: the head (no rows), kept once the rows are
    /// written — the decoded table's names are slices of its element's
    /// bytes, which keeping the whole table would keep.
    let head: Table
    let roles: [ColumnRole]
    /// Columns whose values make the record id (schema `InPrimaryKey`, else the delta's key fields).
    let keyColumns: [Int]
    /// The record id of each current row (parallel to `table.rows`).
    var slotIDs: [String] = []
    /// For tables with pending changes, parallel to `slotIDs`: each row's record size
    /// (`.conservative`), and its position among all stored records (nil: inserted by a change).
    var slotSizes: [Int] = []
    var slotPositions: [Int?] = []
    /// Parallel to `slotIDs` once a delta is mapped: the record's index
    /// in `StreamLimits.tracked` once a change touched it, else -1.
    var slotTracked: [Int] = []
    /// Record ids of the live records.
    var live = IDAllocator()

    init(tid: String, name: ByteString, display: String, table: Table, roles: [ColumnRole], keyColumns: [Int]) {
        self.tid = tid
        self.name = name
        self.display = display
        self.table = table
        head = table
        self.roles = roles
        self.keyColumns = keyColumns
    }

    var recordIDColumn: Int? { roles.firstIndex(of: .recordID) }

    /// Drops what only the mapping of the rows needed.
    func release() {
        table = head
        slotIDs = []
        slotSizes = []
        slotPositions = []
        slotTracked = []
        live = IDAllocator()
    }
}

enum TableMapping {
    /// A table's state: its tid (hinted, else from its name), field ids and roles, key columns.
    static func makeState(_ table: Table, keyDelta: Delta?, codePage: CodePage, hints: SnapshotHints?,
                          tableIDs: inout IDAllocator) -> TableState {
        let display = codePage.decodeForDisplay(table.name)
        let text = codePage.decodeReversibly(table.name)
        var preferred = DatastoreNames.preferredID(table.name, codePage: codePage)
        if let hinted = hints?.tid(forTable: text), DatastoreIdentifier.isValid(hinted), !tableIDs.contains(hinted) {
            preferred = hinted
        }
        let tid = tableIDs.allocate(preferred)

        var fieldIDs = IDAllocator()
        var roles: [ColumnRole] = []
        for (column, field) in table.fields.enumerated() {
            let properties = table.schema.flatMap { column < $0.fields.count ? $0.fields[column] : nil }
            let columnHints = ColumnHints(properties: properties)
            let isText = field.type.storage == .ansiString || field.type.storage == .wideString
            if columnHints.recordID && isText && !roles.contains(.recordID) {
                roles.append(.recordID)
                continue
            }
            var preferred = DatastoreNames.preferredID(field.name, codePage: codePage)
            if let hinted = columnHints.fieldID, DatastoreIdentifier.isValid(hinted), !fieldIDs.contains(hinted) {
                preferred = hinted
            }
            roles.append(.field(fieldIDs.allocate(preferred), json: columnHints.json && isText))
        }

        var keyColumns = table.primaryKeyColumns
        if keyColumns.isEmpty, let keyDelta {
            keyColumns = keyDelta.keyFields.compactMap { key in table.fields.firstIndex { namesMatch($0.name, key) } }
        }
        return TableState(tid: tid, name: table.name, display: display, table: table, roles: roles, keyColumns: keyColumns)
    }

    /// The state a delta is mapped over: the first of `states` with its name, else a new one
    /// (appended) for a table of its logged fields with no stored rows (a delta without a table).
    static func state(for delta: Delta, in states: inout [TableState], codePage: CodePage, hints: SnapshotHints?,
                      tableIDs: inout IDAllocator) -> TableState {
        if let existing = states.first(where: { namesMatch($0.name, delta.name) }) { return existing }
        let table = Table(name: delta.name, fields: delta.loggedFields.map { FieldDescriptor(name: $0.name, type: $0.type) })
        let state = makeState(table, keyDelta: delta, codePage: codePage, hints: hints, tableIDs: &tableIDs)
        states.append(state)
        return state
    }

    /// The record id of a row: the record-id column, else the key values, else `fallback`;
    /// unique among the table's live records.
    static func recordID(for row: Row, in state: TableState, codePage: CodePage, parts: JSONDocumentParts,
                         fallback: @autoclosure () -> String) -> String {
        // One integer key, the common case: its decimal text is always a valid id that encodes
        // to itself (digits and '-'), so the general path below would give just that.
        if state.recordIDColumn == nil, state.keyColumns.count == 1, state.keyColumns[0] < row.count,
           case .integer(let key)? = row[state.keyColumns[0]]
        {
            return state.live.insert(integer: key) ? String(key) : state.live.allocate(fallback())
        }
        if let column = state.recordIDColumn, column < row.count, let value = row[column],
           let text = text(of: value, codePage: codePage), DatastoreIdentifier.isValid(text), state.live.insert(text)
        {
            return text
        }
        if !state.keyColumns.isEmpty {
            var tokens: [String] = []
            for column in state.keyColumns {
                guard column < row.count, let value = row[column],
                      let token = DatastoreNames.encode(keyText(value, type: state.table.fields[column].type, codePage: codePage, parts: parts))
                else { tokens = []; break }
                tokens.append(token)
            }
            let id = tokens.joined(separator: ".")
            if !tokens.isEmpty, DatastoreIdentifier.isValid(id), state.live.insert(id) { return id }
        }
        return state.live.allocate(fallback())
    }

    private static func text(of value: Value, codePage: CodePage) -> String? {
        switch value {
        case .ansiString(let s): return codePage.decodeReversibly(s)
        case .wideString(let s): return WideText.decode(s)
        default: return nil
        }
    }

    /// A key value as text: the JSON document's string form, or its number text.
    private static func keyText(_ value: Value, type: DataType, codePage: CodePage, parts: JSONDocumentParts) -> String {
        switch value {
        case .integer(let i): return String(i)
        case .largeUInt(let u): return String(u)
        case .ansiString, .wideString: if let text = text(of: value, codePage: codePage) { return text }
        default: break
        }
        switch parts.json(value, type: type) {
        case .string(let s): return s
        case .number(let n): return n
        case let other: return other.description
        }
    }

    /// An element's object in the `briefcase` member (Spec/datastore-mapping.md §5): the JSON
    /// document's head (`make`) with `"tid"` after `"name"` and, on each object of its `columns`
    /// member, the column's role.
    static func elementHead(tid: String, columns: String, roles: [ColumnRole],
                            _ make: () throws -> JSONObject) throws(BriefcaseError) -> JSONObject {
        var head: JSONObject
        do {
            head = try make()
        } catch let error as BriefcaseError {
            throw error
        } catch {
            throw BriefcaseError(.invalidModel, "\(error)")
        }
        head = inserting(tid: tid, into: head)
        head[columns] = annotate(head[columns], roles: roles)
        return head
    }

    /// The element's head object with `"tid"` after `"name"`.
    private static func inserting(tid: String, into head: JSONObject) -> JSONObject {
        var result = JSONObject()
        for member in head.members {
            result.append(key: member.key, value: member.value)
            if member.key == "name" { result.append(key: "tid", value: .string(tid)) }
        }
        return result
    }

    /// Field (or logged field) objects with their role: `"id"` (and `"json": true`), or `"rowid": true`.
    private static func annotate(_ fields: JSONValue?, roles: [ColumnRole]) -> JSONValue {
        guard case .array(let items) = fields else { return fields ?? .array([]) }
        return .array(items.enumerated().map { position, item in
            guard case .object(var object) = item, position < roles.count else { return item }
            switch roles[position] {
            case .field(let id, let json):
                object["id"] = .string(id)
                if json { object["json"] = true }
            case .recordID:
                object["rowid"] = true
            case .none:
                break
            }
            return .object(object)
        })
    }
}
