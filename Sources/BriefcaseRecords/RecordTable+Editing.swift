import BriefcaseKit

extension RecordTable {
    /// Appends a row with these field values (the others NULL) and records an insert.
    public mutating func insert(_ values: [String: (any FieldValue)?]) throws(RecordError) {
        let row = try row(from: Array(values.map { ($0.key, $0.value) }), over: Row(repeating: nil, count: fields.count))
        try tracking { (tracker: inout ChangeTracker) throws(ChangeTrackingError) in try tracker.insert(row) }
    }

    /// Appends `value` as a row (its properties by field name; fields it has none for NULL) and
    /// records an insert.
    public mutating func insert<T: Encodable>(_ value: T) throws(RecordError) {
        let row = try row(from: try located { () throws(RecordError) in try RowEncoder.encode(value) }, over: Row(repeating: nil, count: fields.count))
        try tracking { (tracker: inout ChangeTracker) throws(ChangeTrackingError) in try tracker.insert(row) }
    }

    /// Sets these fields of the current row at `position` (nil = NULL) and records the update.
    public mutating func update(at position: Int, setting values: [String: (any FieldValue)?]) throws(RecordError) {
        let row = try row(from: Array(values.map { ($0.key, $0.value) }), over: try record(at: position).values, at: position)
        try tracking { (tracker: inout ChangeTracker) throws(ChangeTrackingError) in try tracker.update(at: position, to: row) }
    }

    /// Sets the fields `value` has properties for (a nil `Optional` sets NULL) in the current row
    /// at `position`, and records the update; fields it has no property for stay as they are.
    public mutating func update<T: Encodable>(at position: Int, to value: T) throws(RecordError) {
        let encoded = try located(row: position) { () throws(RecordError) in try RowEncoder.encode(value) }
        let row = try row(from: encoded, over: try record(at: position).values, at: position)
        try tracking { (tracker: inout ChangeTracker) throws(ChangeTrackingError) in try tracker.update(at: position, to: row) }
    }

    /// Removes the current row at `position` and records the delete.
    public mutating func delete(at position: Int) throws(RecordError) {
        try tracking { (tracker: inout ChangeTracker) throws(ChangeTrackingError) in try tracker.delete(at: position) }
    }

    /// The position of the one current row whose key fields (`keyFields`) hold `key` (every key
    /// field named once).
    public func position(ofKey key: [String: any FieldValue]) throws(RecordError) -> Int {
        let keyColumns = tracker.keyColumns
        guard !keyColumns.isEmpty else {
            throw RecordError(.changeTracking(.noKey), "the table has no key fields (no key in its delta, no InPrimaryKey field)", table: name)
        }
        var values: [Value?] = []
        for column in keyColumns {
            let field = index.fields[column]
            guard let entry = key.first(where: { index.column($0.key) == column }) else {
                throw RecordError(.unknownField, "the key names no value for key field '\(field.name)'", table: name, field: field.name)
            }
            values.append(try located { () throws(RecordError) in try FieldConversion.store(entry.value, in: field, codePage: index.codePage) })
        }
        for name in key.keys where !keyColumns.contains(try located { () throws(RecordError) in try index.requireColumn(name) }) {
            throw RecordError(.unknownField, "'\(name)' is not one of the key fields (\(keyFields.joined(separator: ", ")))", table: self.name, field: name)
        }
        do throws(ChangeTrackingError) {
            return try tracker.position(ofKey: values)
        } catch {
            throw RecordError(.noSuchRow, error.message, table: name)
        }
    }

    /// The position of the first current row for which `matches` is true, or nil.
    public func firstPosition(where matches: (Record) throws -> Bool) rethrows -> Int? {
        for (position, values) in tracker.rows.enumerated() where try matches(Record(index: index, values: values, position: position, table: name)) {
            return position
        }
        return nil
    }

    /// `update(at:setting:)` of the row `position(ofKey:)` finds.
    public mutating func update(key: [String: any FieldValue], setting values: [String: (any FieldValue)?]) throws(RecordError) {
        try update(at: try position(ofKey: key), setting: values)
    }

    /// `update(at:to:)` of the row `position(ofKey:)` finds.
    public mutating func update<T: Encodable>(key: [String: any FieldValue], to value: T) throws(RecordError) {
        try update(at: try position(ofKey: key), to: value)
    }

    /// `delete(at:)` of the row `position(ofKey:)` finds.
    public mutating func delete(key: [String: any FieldValue]) throws(RecordError) {
        try delete(at: try position(ofKey: key))
    }

    // MARK: helpers

    /// `base` with the named fields set. A field whose new Swift value reads back from its current
    /// value equal keeps that value as stored (its exact bytes: an 8-bit string, a GUID's case,
    /// a date's sub-millisecond bits), so writing back what was read changes nothing.
    /// The row `base` with `values` set by field name; a refusal names the table and, for an
    /// update, the row's `position` (Spec/records-api.md §5).
    func row(from values: [(name: String, value: (any FieldValue)?)], over base: Row, at position: Int? = nil) throws(RecordError) -> Row {
        var row = base
        for (name, value) in values {
            let column = try located(row: position) { () throws(RecordError) in try index.requireColumn(name) }
            let field = index.fields[column]
            guard let value else { row[column] = nil; continue }
            if let old = base[column], Self.reads(old, as: value, field: field, codePage: index.codePage) { continue }
            row[column] = try located(row: position) { () throws(RecordError) in try FieldConversion.store(value, in: field, codePage: index.codePage) }
        }
        return row
    }

    /// Whether `old` reads as a value equal to `value` (of the same Swift type).
    static func reads<V: FieldValue>(_ old: Value, as value: V, field: RecordField, codePage: CodePage) -> Bool {
        guard let read = try? FieldConversion.read(old, as: V.self, field: field, codePage: codePage),
              let a = read as? AnyHashable, let b = value as? AnyHashable else { return false }
        return a == b
    }

    /// Runs an edit on the tracker; its error names the table and the field (by column).
    mutating func tracking(_ edit: (inout ChangeTracker) throws(ChangeTrackingError) -> Void) throws(RecordError) {
        do throws(ChangeTrackingError) {
            try edit(&tracker)
        } catch {
            throw RecordError(error, table: name, field: error.column.map { index.fields[$0].name })
        }
    }

    func located<R>(row position: Int? = nil, _ body: () throws(RecordError) -> R) throws(RecordError) -> R {
        do throws(RecordError) { return try body() } catch { throw error.located(table: name, row: position) }
    }
}
