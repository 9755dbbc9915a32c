/// `insert` (0), `update` (1), `delete` (2); other codes are kept as read so a reader can report them.
public struct ChangeType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The type's number in the stream.
    public var rawValue: Int32
    /// The change type numbered `rawValue` (known or not).
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// A row was inserted (0).
    public static let insert = ChangeType(rawValue: 0)
    /// A row was updated (1).
    public static let update = ChangeType(rawValue: 1)
    /// A row was deleted (2).
    public static let delete = ChangeType(rawValue: 2)

    /// The names of the known types, by number.
    public static let names = ["insert", "update", "delete"]
    /// True for insert, update and delete.
    public var isKnown: Bool { (0...2).contains(rawValue) }
    /// The type's name, or its number when unknown.
    public var description: String { isKnown ? Self.names[Int(rawValue)] : String(rawValue) }
}

/// `pending` (0), `resolved` (1), `failed` (2); other codes are kept as read.
public struct ChangeStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The status's number in the stream.
    public var rawValue: Int32
    /// The change status numbered `rawValue` (known or not).
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Not yet sent to the server (0).
    public static let pending = ChangeStatus(rawValue: 0)
    /// Applied by the server (1).
    public static let resolved = ChangeStatus(rawValue: 1)
    /// Refused by the server; `message` says why (2).
    public static let failed = ChangeStatus(rawValue: 2)

    /// The names of the known statuses, by number.
    public static let names = ["pending", "resolved", "failed"]
    /// True for pending, resolved and failed.
    public var isKnown: Bool { (0...2).contains(rawValue) }
    /// The status's name, or its number when unknown.
    public var description: String { isKnown ? Self.names[Int(rawValue)] : String(rawValue) }
}

/// A field logged in a delta (delta headers carry no size).
public struct LoggedField: Hashable, Sendable {
    /// The field's name (8-bit).
    public var name: ByteString
    /// The field's data type.
    public var type: DataType
    /// A logged field of `name` and `type`.
    public init(name: ByteString, type: DataType) {
        self.name = name
        self.type = type
    }
}

/// One pending (or resolved/failed) change of a delta.
///
/// `oldValues` and `newValues` have one entry per logged field; nil means "not present" (mask bit
/// clear), which a reduced delta uses for unchanged fields and which also stands for NULL.
public struct DeltaChange: Hashable, Sendable {
    /// Insert, update or delete.
    public var type: ChangeType
    /// The client's change id (.NET numbers them 1100, 1101, …); not a row index.
    public var recordID: Int32
    /// Pending, resolved or failed.
    public var status: ChangeStatus
    /// 8-bit text; error text of failed changes.
    public var message: ByteString
    /// The row's values before the change, one per logged field (nil: absent or NULL).
    public var oldValues: [Value?]
    /// The row's values after the change, one per logged field (nil: absent or NULL).
    public var newValues: [Value?]

    /// A change of `type` with record id `recordID` and its old and new values.
    public init(type: ChangeType, recordID: Int32, status: ChangeStatus = .pending, message: ByteString = .empty,
                oldValues: [Value?], newValues: [Value?]) {
        self.type = type
        self.recordID = recordID
        self.status = status
        self.message = message
        self.oldValues = oldValues
        self.newValues = newValues
    }
}

/// A delta element: pending changes of the table with the same name.
public struct Delta: Hashable, Sendable {
    /// The delta's name: the name of its table.
    public var name: ByteString
    /// The fields whose old and new values each change carries, in order.
    public var loggedFields: [LoggedField]
    /// The names of the table's key fields, as stored.
    public var keyFields: [ByteString]
    /// The reduced-delta byte as stored (.NET briefcases write 1, the JS client 0 or 1).
    public var reducedDeltaFlag: UInt8
    /// The pending changes, in order.
    public var changes: Changes
    /// How the element was laid out. `.full` always for non-empty deltas.
    public var layout: DeltaLayout

    /// A delta of `name` with these logged fields, key fields and changes.
    public init(name: ByteString, loggedFields: [LoggedField], keyFields: [ByteString] = [], reducedDeltaFlag: UInt8 = 1,
                changes: Changes = [], layout: DeltaLayout = .full) {
        self.name = name
        self.loggedFields = loggedFields
        self.keyFields = keyFields
        self.reducedDeltaFlag = reducedDeltaFlag
        self.changes = changes
        self.layout = layout
    }

    /// A delta of `name` with these logged fields, key fields and changes.
    public init(name: ByteString, loggedFields: [LoggedField], keyFields: [ByteString] = [], reducedDeltaFlag: UInt8 = 1,
                changes: [DeltaChange], layout: DeltaLayout = .full) {
        self.init(name: name, loggedFields: loggedFields, keyFields: keyFields, reducedDeltaFlag: reducedDeltaFlag,
                  changes: Changes(changes), layout: layout)
    }

    /// True when the reduced-delta byte is set (changes may carry only changed values).
    public var isReduced: Bool { reducedDeltaFlag != 0 }
}

/// How a delta element is laid out in the stream.
public enum DeltaLayout: Hashable, Sendable {
    /// Header, both change counts, changes (what every known writer produces).
    case full
    /// Only the Int32 change count 0 (the JS reader stops there; accepted, and written back so).
    case countOnly
    /// Full layout whose first change count differs from the second (the number of changes);
    /// the first is kept here so the bytes round-trip.
    case mismatchedCounts(firstCount: Int32)
}
