import BriefcaseKit

/// A pending change of a table, in the records API's terms: its old and new values as `Record`s
/// over the delta's logged fields (absent values are NULL there).
public struct RecordChange: Sendable {
    /// The codec's change, as stored.
    public let change: DeltaChange
    /// The old values (none for an insert), by logged field name.
    public let old: Record?
    /// The new values (none for a delete), by logged field name.
    public let new: Record?

    /// insert, update or delete.
    public var type: ChangeType { change.type }
    /// The change's record id (1100, 1101, … in .NET's briefcases).
    public var recordID: Int32 { change.recordID }
    /// pending, resolved or failed.
    public var status: ChangeStatus { change.status }
}

extension RecordTable {
    /// The pending changes with their values by logged field name (`pendingChanges` as stored).
    public var changes: [RecordChange] {
        let delta = tracker.delta
        let logged = Table(name: delta.name, fields: delta.loggedFields.map { FieldDescriptor(name: $0.name, type: $0.type) })
        let fields = FieldIndex(table: logged, codePage: index.codePage)
        return delta.changes.enumerated().map { position, change in
            let old = change.type == .insert ? nil : Record(index: fields, values: change.oldValues, position: position, table: name)
            let new = change.type == .delete ? nil : Record(index: fields, values: change.newValues, position: position, table: name)
            return RecordChange(change: change, old: old, new: new)
        }
    }
}

extension Record: CustomStringConvertible {
    /// `ID=1 Name="Ann" Score=NULL`: each field and its value as text, for logs and printing.
    public var description: String {
        zip(fields, values).map { field, value in "\(field.name)=\(value.map { Self.text($0, codePage: index.codePage) } ?? "NULL")" }
            .joined(separator: " ")
    }

    /// A value as text for display: strings quoted, numbers and dates as the JSON document
    /// writes their text, blobs as their length.
    static func text(_ value: Value, codePage: CodePage) -> String {
        switch value {
        case .ansiString(let bytes): return "\"\(codePage.decodeForDisplay(bytes))\""
        case .wideString(let bytes): return "\"\(WideText.decode(bytes) ?? "<\(bytes.count) bytes of bad UTF-16>")\""
        case .dateTime(let date): return date.description
        case .float(let double): return String(double)
        case .singleFloat(let float): return String(float)
        case .currency(let currency): return currency.description
        case .integer(let integer): return String(integer)
        case .largeUInt(let integer): return String(integer)
        case .boolean(let byte): return byte == 0 ? "false" : "true"
        case .blob(let bytes): return "<\(bytes.count) bytes>"
        case .guid(let bytes): return codePage.decodeForDisplay(bytes)
        case .decimal(let decimal): return decimal.description
        }
    }
}
