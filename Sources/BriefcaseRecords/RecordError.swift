import BriefcaseKit

/// Why the records API could not do what it was asked, with where: the table, the row (its
/// position in the rows read) and the field, when the problem is about them.
///
/// `description` is one line: `Orders: row 3, field 'Amount': datCurrency cannot be read as Bool`.
public struct RecordError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem it is.
    public enum Kind: Sendable, Equatable {
        /// No table of that name in the briefcase.
        case unknownTable
        /// No field of that name in the table (or a coding key that names none).
        case unknownField
        /// A value asked for as a Swift type its data type does not convert to exactly.
        case typeMismatch
        /// NULL where a non-optional value was asked for.
        case null
        /// A Swift value the field cannot store as given (out of range, not in the code page…).
        case cannotStore
        /// A Swift value with no field mapping (a nested container, an array, an unsupported type).
        case unsupportedValue
        /// No row at that position, or a key that finds no row or several.
        case noSuchRow
        /// An edit the pending delta cannot record (`ChangeTrackingError`, in `message`).
        case changeTracking(ChangeTrackingError.Kind)
        /// Reading or writing the briefcase failed (`BriefcaseError`, in `message`).
        case briefcase(BriefcaseError.Kind)
    }

    /// What kind of problem it is.
    public var kind: Kind
    /// What is wrong, in one line (without the table, row and field).
    public var message: String
    /// The table, when known.
    public var table: String?
    /// The row's position (in the current or stored rows read), when the problem is about one.
    public var row: Int?
    /// The field, when the problem is about one.
    public var field: String?

    /// An error of `kind` saying `message`, located where known.
    public init(_ kind: Kind, _ message: String, table: String? = nil, row: Int? = nil, field: String? = nil) {
        self.kind = kind
        self.message = message
        self.table = table
        self.row = row
        self.field = field
    }

    /// The codec's error as a records error (its file, element and offset stay in the message).
    public init(_ error: BriefcaseError, table: String? = nil) {
        self.init(.briefcase(error.kind), error.description, table: table)
    }

    /// The change tracker's error, located in `table` (its row and column as field name).
    init(_ error: ChangeTrackingError, table: String, field: String?) {
        self.init(.changeTracking(error.kind), error.message, table: table, row: error.row, field: field)
    }

    /// `table: row N, field 'F': message`, leaving out what is not known.
    public var description: String {
        var places: [String] = []
        if let row { places.append("row \(row)") }
        if let field { places.append("field '\(field)'") }
        let place = places.joined(separator: ", ")
        let prefix = [table.map { $0 + ":" }, place.isEmpty ? nil : place + ":"].compactMap { $0 }.joined(separator: " ")
        return prefix.isEmpty ? message : prefix + " " + message
    }

    /// The same error, with the table and row filled in where not yet known.
    func located(table: String? = nil, row: Int? = nil) -> RecordError {
        var copy = self
        if copy.table == nil { copy.table = table }
        if copy.row == nil { copy.row = row }
        return copy
    }
}
