// A record's fields: an ordered map from field name to value.

import JSONCore

/// The fields of one record, in insertion order (the order they are written in).
///
/// Equality ignores order: two records are equal when they have the same fields with equal
/// values. The record size is kept up to date on every change, so reading it is O(1).
/// Field names are not validated here; they are when the record enters a snapshot or is written.
public struct DatastoreRecord: Hashable, Sendable {
    /// The field names, in the order they were set.
    public private(set) var fieldNames: [String] = []
    /// The values by field name.
    public private(set) var values: [String: DatastoreValue] = [:]
    /// Σ over fields of (100 + value size).
    private(set) var fieldsTally = SizeTally()

    /// A record with no fields.
    public init() {}

    /// Fields in the given order; a later duplicate name replaces the earlier value in place.
    public init(_ fields: [(String, DatastoreValue)]) {
        for (name, value) in fields { self[name] = value }
    }

    /// The number of fields.
    public var count: Int { fieldNames.count }
    /// True when the record has no fields.
    public var isEmpty: Bool { fieldNames.isEmpty }

    /// The fields in order.
    public var fields: [(name: String, value: DatastoreValue)] {
        fieldNames.map { (name: $0, value: values[$0]!) }
    }

    /// The value of a field; setting nil removes the field, setting a new field appends it.
    public subscript(field: String) -> DatastoreValue? {
        get { values[field] }
        set {
            if let old = values[field] {
                fieldsTally -= old.sizeTally
                if newValue == nil {
                    fieldsTally.exact -= DatastoreSize.baseField
                    fieldNames.remove(at: fieldNames.firstIndex(of: field)!)
                }
            } else if newValue != nil {
                fieldsTally.exact += DatastoreSize.baseField
                fieldNames.append(field)
            }
            values[field] = newValue
            if let newValue { fieldsTally += newValue.sizeTally }
        }
    }

    /// Removes a field, returning its value.
    @discardableResult
    public mutating func removeField(_ field: String) -> DatastoreValue? {
        let old = values[field]
        self[field] = nil
        return old
    }

    var tally: SizeTally { SizeTally(exact: DatastoreSize.baseRecord) + fieldsTally }

    /// Record size: 100 + Σ over fields of (100 + value size).
    public func size(_ accounting: BytesAccounting = .exact) -> Int {
        tally.total(accounting)
    }

    /// Throws `invalidIdentifier` for the first invalid field name, at `path.<name>`.
    public func validateFieldNames(at path: @autoclosure () -> JSONPath = .root) throws(DatastoreError) {
        for name in fieldNames where !DatastoreIdentifier.isValid(name) {
            try DatastoreIdentifier.validate(name, as: .field, at: path().appending(key: name))
        }
    }

    /// Records are equal when their values are (field order aside).
    public static func == (lhs: DatastoreRecord, rhs: DatastoreRecord) -> Bool { lhs.values == rhs.values }
    /// Hashes the values.
    public func hash(into hasher: inout Hasher) { hasher.combine(values) }
}

extension DatastoreRecord: ExpressibleByDictionaryLiteral {
    /// A record of the fields listed, in that order.
    public init(dictionaryLiteral elements: (String, DatastoreValue)...) { self.init(elements) }
}

extension DatastoreRecord: CustomStringConvertible {
    /// The fields in order, as `name: value` pairs.
    public var description: String {
        "{" + fields.map { "\(JSONPath.quoted($0.name)):\($0.value.wire)" }.joined(separator: ",") + "}"
    }
}
