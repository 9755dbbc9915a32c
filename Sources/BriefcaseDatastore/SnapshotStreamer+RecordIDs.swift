// Record ids of streamed rows (Spec/datastore-mapping.md §3.3), as `ExportBuilder` chooses them.

import BriefcaseJSON
import BriefcaseKit
import DatastoreKit

extension SnapshotStreamer {
    /// The record id of a row: the record-id column, else the key values, else `fallback`;
    /// unique among the table's live records.
    func recordID(for row: Row, in state: StreamTableState, fallback: @autoclosure () -> String) -> String {
        // One integer key, the common case: its decimal text is always a valid id that encodes
        // to itself (digits and '-'), so the general path below would give just that.
        if state.recordIDColumn == nil, state.keyColumns.count == 1, state.keyColumns[0] < row.count,
           case .integer(let key)? = row[state.keyColumns[0]]
        {
            let id = String(key)
            return state.live.insert(id) ? id : state.live.allocate(fallback())
        }
        if let column = state.recordIDColumn, column < row.count, let value = row[column], let text = text(of: value),
           DatastoreIdentifier.isValid(text), state.live.insert(text)
        {
            return text
        }
        if !state.keyColumns.isEmpty {
            var tokens: [String] = []
            for column in state.keyColumns {
                guard column < row.count, let value = row[column],
                      let token = DatastoreNames.encode(keyText(value, type: state.table.fields[column].type))
                else { tokens = []; break }
                tokens.append(token)
            }
            let id = tokens.joined(separator: ".")
            if !tokens.isEmpty, DatastoreIdentifier.isValid(id), state.live.insert(id) { return id }
        }
        return state.live.allocate(fallback())
    }

    private func text(of value: Value) -> String? {
        switch value {
        case .ansiString(let s): return codePage.decodeReversibly(s)
        case .wideString(let s): return WideText.decode(s)
        default: return nil
        }
    }

    /// A key value as text: the JSON document's string form, or its number text.
    private func keyText(_ value: Value, type: DataType) -> String {
        switch value {
        case .integer(let i): return String(i)
        case .largeUInt(let u): return String(u)
        case .ansiString, .wideString: if let text = text(of: value) { return text }
        default: break
        }
        switch parts.json(value, type: type) {
        case .string(let s): return s
        case .number(let n): return n
        case let other: return other.description
        }
    }
}
