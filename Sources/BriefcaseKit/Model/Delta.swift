/// `insert` (0), `update` (1), `delete` (2); other codes are kept as read so a reader can report them.
public struct ChangeType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let insert = ChangeType(rawValue: 0)
    public static let update = ChangeType(rawValue: 1)
    public static let delete = ChangeType(rawValue: 2)

    public static let names = ["insert", "update", "delete"]
    public var isKnown: Bool { (0...2).contains(rawValue) }
    public var description: String { isKnown ? Self.names[Int(rawValue)] : String(rawValue) }
}

/// `pending` (0), `resolved` (1), `failed` (2); other codes are kept as read.
public struct ChangeStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let pending = ChangeStatus(rawValue: 0)
    public static let resolved = ChangeStatus(rawValue: 1)
    public static let failed = ChangeStatus(rawValue: 2)

    public static let names = ["pending", "resolved", "failed"]
    public var isKnown: Bool { (0...2).contains(rawValue) }
    public var description: String { isKnown ? Self.names[Int(rawValue)] : String(rawValue) }
}

/// A field logged in a delta (delta headers carry no size).
public struct LoggedField: Hashable, Sendable {
    public var name: ByteString
    public var type: DataType
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
    public var type: ChangeType
    /// The client's change id (.NET numbers them 1100, 1101, …); not a row index.
    public var recordID: Int32
    public var status: ChangeStatus
    /// 8-bit text; error text of failed changes.
    public var message: ByteString
    public var oldValues: [Value?]
    public var newValues: [Value?]

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
    public var name: ByteString
    public var loggedFields: [LoggedField]
    public var keyFields: [ByteString]
    /// The reduced-delta byte as stored (.NET briefcases write 1, the JS client 0 or 1).
    public var reducedDeltaFlag: UInt8
    public var changes: [DeltaChange]
    /// How the element was laid out. `.full` always for non-empty deltas.
    public var layout: DeltaLayout

    public init(name: ByteString, loggedFields: [LoggedField], keyFields: [ByteString] = [], reducedDeltaFlag: UInt8 = 1,
                changes: [DeltaChange] = [], layout: DeltaLayout = .full) {
        self.name = name
        self.loggedFields = loggedFields
        self.keyFields = keyFields
        self.reducedDeltaFlag = reducedDeltaFlag
        self.changes = changes
        self.layout = layout
    }

    public var isReduced: Bool { reducedDeltaFlag != 0 }
}

public enum DeltaLayout: Hashable, Sendable {
    /// Header, both change counts, changes (what every known writer produces).
    case full
    /// Only the Int32 change count 0 (the JS reader stops there; accepted, and written back so).
    case countOnly
    /// Full layout whose first change count differs from the second (the number of changes);
    /// the first is kept here so the bytes round-trip.
    case mismatchedCounts(firstCount: Int32)
}
