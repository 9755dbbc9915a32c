import BriefcaseKit

/// One difference between two briefcases, A (the old) and B (the new) (Spec/diff.md §2). A
/// comparison (`BriefcaseComparison`) gives them in a fixed order: properties, then each table
/// (A's order, then B's new ones) — its presence, its fields, its rows by key, its pending
/// changes by record id.
public enum BriefcaseDifference: Sendable, Equatable {
    /// A property added (`old` nil), removed (`new` nil) or changed.
    case property(name: ByteString, old: ByteString?, new: ByteString?)
    /// A table only in B (`.added`) or only in A (`.removed`); its rows are not listed.
    case table(name: ByteString, kind: Kind)
    /// A field added, removed, or changed (type, size, or whether it is in the key).
    case field(FieldDifference)
    /// A stored row (or, with `DiffOptions.current`, a current row) added, removed or changed.
    case row(RowDifference)
    /// A pending change added, removed or changed, by record id.
    case change(ChangeDifference)

    /// Added (only in B), removed (only in A), or changed (in both, not the same).
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// Only in B.
        case added
        /// Only in A.
        case removed
        /// In both, not the same.
        case changed
    }

    /// The table the difference is in (nil for a property).
    public var table: ByteString? {
        switch self {
        case .property: return nil
        case .table(let name, _): return name
        case .field(let field): return field.table
        case .row(let row): return row.table
        case .change(let change): return change.table
        }
    }
}

/// A field of a table present in both A and B, added, removed or changed.
public struct FieldDifference: Sendable, Equatable {
    /// The table's name.
    public var table: ByteString
    /// The field's name.
    public var name: ByteString
    /// Added, removed or changed.
    public var kind: BriefcaseDifference.Kind
    /// The field in A (nil when it is not there).
    public var old: FieldDescriptor?
    /// The field in B (nil when it is not there).
    public var new: FieldDescriptor?
    /// Whether it is in the table's key (`InPrimaryKey`) in A.
    public var keyInOld: Bool
    /// Whether it is in the table's key in B.
    public var keyInNew: Bool
}

/// A row of a table present in both A and B. Rows are paired by key (the `InPrimaryKey` fields
/// both sides have), as a multiset of whole rows in a table without one, or by position when
/// asked (Spec/diff.md §3).
public struct RowDifference: Sendable, Equatable {
    /// The table's name.
    public var table: ByteString
    /// A's table's place among A's elements (which of several tables of one name it is).
    public var tablePosition: Int?
    /// Added, removed or changed.
    public var kind: BriefcaseDifference.Kind
    /// The columns the key is made of, as places in A's fields and in B's (empty: the table has
    /// none).
    public var keyColumns: [ColumnPair]
    /// The row's values of the key fields.
    public var key: [Value?]
    /// The row's place in A's (or, when added, B's) rows, paired by position (`byPosition`).
    public var position: Int?
    /// The fields of A's rows (what `old` holds, in order).
    public var oldFields: [FieldDescriptor]
    /// The fields of B's rows (what `new` holds, in order).
    public var newFields: [FieldDescriptor]
    /// The row in A (nil when it is not there).
    public var old: Row?
    /// The row in B (nil when it is not there).
    public var new: Row?
    /// Every field of A paired with the field of B of that name (the ignored ones too), in A's order.
    public var pairedColumns: [ColumnPair]
    /// For a changed row, the columns whose values differ (fields both sides have, in A's order,
    /// the ignored ones left out).
    public var changedColumns: [ColumnPair]

    /// The names of the key fields (A's).
    public var keyFields: [ByteString] { keyColumns.map { oldFields[$0.old].name } }
    /// The names of the fields whose values differ (A's).
    public var changedFields: [ByteString] { changedColumns.map { oldFields[$0.old].name } }
}

/// A field of A and the field of B it is compared with: their places in each table's fields
/// (fields are paired by name, the k-th of a name with the k-th, Spec/diff.md §2).
public struct ColumnPair: Sendable, Equatable {
    /// The field's place in A's fields.
    public var old: Int
    /// The field's place in B's fields.
    public var new: Int
}

/// A pending change of a table's delta, added, removed or changed, paired by record id.
public struct ChangeDifference: Sendable, Equatable {
    /// The table's name.
    public var table: ByteString
    /// Added, removed or changed.
    public var kind: BriefcaseDifference.Kind
    /// The change's record id.
    public var recordID: Int32
    /// The delta's logged fields in A (what `old`'s values are of).
    public var oldFields: [LoggedField]
    /// The delta's logged fields in B.
    public var newFields: [LoggedField]
    /// The change in A (nil when it is not there).
    public var old: DeltaChange?
    /// The change in B (nil when it is not there).
    public var new: DeltaChange?
}
