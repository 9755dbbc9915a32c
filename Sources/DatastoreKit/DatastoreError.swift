// The one error type of DatastoreKit: what is wrong, and where (a JSON path).

import JSONCore

/// A datastore format, identifier, application or limit error.
///
/// `path` locates the offending value in the JSON being read (or, for changes applied from a
/// model, in the JSON that model would be written as): `$.rows[3].data.price`,
/// `$.deltas[1].changes[4][3].tags`. `description` is `"<path>: <message>"` (or, for text that is
/// not JSON, `"offset N: <message>"`).
public struct DatastoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of error.
    public enum Kind: Hashable, Sendable {
        /// The text is not JSON at all (`offset` says where).
        case malformedJSON
        /// Wrong JSON shape: missing, unknown or duplicate keys, wrong types, bad revisions.
        case invalidStructure
        /// A field value the wire format forbids (null, nested list, bad wrapper, bad number).
        case invalidValue
        /// A table id, record id, field name or datastore id outside the allowed grammar.
        case invalidIdentifier
        /// A delta whose `rev` is not the revision it is applied to.
        case revisionMismatch
        /// `I` of a record that already exists.
        case recordExists
        /// `U` or `D` of a record that does not exist.
        case recordNotFound
        /// `LC` on a field that already exists.
        case fieldExists
        /// A list operation on a field that does not exist.
        case fieldNotFound
        /// A list operation on a field that holds an atom.
        case notAList
        /// A list index outside the list.
        case indexOutOfRange
        /// A size or count limit is broken.
        case limitExceeded
    }

    /// What kind of error.
    public var kind: Kind
    /// What is wrong, in one line.
    public var message: String
    /// Where, in the JSON being read.
    public var path: JSONPath
    /// The byte offset in the JSON text, for text that is not JSON (the path is then `$`).
    public var offset: Int?

    /// An error of `kind` at `path` (and byte `offset`, when known).
    public init(_ kind: Kind, _ message: String, at path: JSONPath = .root, offset: Int? = nil) {
        self.kind = kind
        self.message = message
        self.path = path
        self.offset = offset
    }

    /// The same error with its path taken as relative to `prefix`.
    public func prefixed(by prefix: JSONPath) -> DatastoreError {
        var copy = self
        copy.path = path.prefixed(by: prefix)
        return copy
    }

    func prefixed(by component: JSONPath.Component) -> DatastoreError {
        var copy = self
        copy.path.components.insert(component, at: 0)
        return copy
    }

    /// `"<path>: <message>"`, or `"offset N: <message>"` for text that is not JSON.
    public var description: String {
        if let offset, path.isRoot { return "offset \(offset): \(message)" }
        return "\(path): \(message)"
    }
}
