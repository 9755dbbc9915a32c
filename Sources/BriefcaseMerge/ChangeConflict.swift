import BriefcaseKit

/// A pending change that does not fit the rows it is applied to, classed as SQLite's session
/// extension classes a changeset's conflicts (Spec/fold.md §2).
public struct ChangeConflict: Sendable, Equatable, CustomStringConvertible {
    /// Which way the change does not fit.
    public enum Kind: String, Sendable, CaseIterable {
        /// An update or delete whose row, found by its key, holds other values than the change's
        /// old ones where the change changes them (SQLite's `SQLITE_CHANGESET_DATA`).
        case data = "DATA"
        /// An update or delete that finds no single row to apply to — none; several, in a table
        /// without a key; nothing to find one by — a change of unknown type, or a change of a
        /// delta without a table (`SQLITE_CHANGESET_NOTFOUND`).
        case notFound = "NOTFOUND"
        /// An insert whose key a row holds already (`SQLITE_CHANGESET_CONFLICT`).
        case conflict = "CONFLICT"
    }

    /// Which way it does not fit.
    public var kind: Kind
    /// The table (or the delta without one) the change belongs to.
    public var table: ByteString
    /// The change's place in its delta, from 0.
    public var changeIndex: Int
    /// The change itself.
    public var change: DeltaChange
    /// The row it met: for DATA the row its key found, for CONFLICT the row holding its key.
    public var row: Row?
    /// What does not fit, in words.
    public var message: String

    /// `table 'Orders': change 3 (record id 1102, update): DATA: …`, names read as UTF-8.
    public var description: String { line(tableName: String(decoding: table.bytes, as: UTF8.self)) }

    /// The same with the table's name as given (decoded in the briefcase's code page).
    public func line(tableName: String) -> String {
        "table '\(tableName)': change \(changeIndex) (record id \(change.recordID), \(change.type)): \(kind.rawValue): \(message)"
    }
}

/// What is done with a conflict (`--on-conflict`, Spec/fold.md §3).
public enum ConflictResolution: String, Sendable, CaseIterable {
    /// Nothing is written: every conflict is listed and the command fails.
    case abort
    /// The change is left out.
    case omit
    /// DATA: the change is applied anyway; CONFLICT: the row holding the key is removed and the
    /// insert applied; NOTFOUND: there is nothing to replace, so the change is left out.
    case replace
}
