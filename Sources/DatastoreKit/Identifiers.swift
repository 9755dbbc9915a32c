// Identifier grammar of the Datastore API.
//
// Table ids, record ids and field names share one grammar:
//   ordinary   [-._+/=a-zA-Z0-9]{1,64}
//   reserved   :[-._+/=a-zA-Z0-9]{1,63}      (a leading ':' marks ids kept for the system)
// Both forms are valid on the wire for all three kinds (the API's own tables `:info` and
// `:acl` use the reserved form); `isReserved` lets a higher layer keep user data out of them.
//
// Datastore ids:
//   private    [-_a-z0-9]([-_a-z0-9.]{0,62}[-_a-z0-9])?     (lower case, no leading/trailing '.')
//   shareable  \.[-_a-zA-Z0-9]{1,63}                         ('.' then dbase64 characters)

import JSONCore

/// Validation of table ids, record ids and field names.
public enum DatastoreIdentifier {
    /// What an identifier names (for messages).
    public enum Kind: String, Sendable {
        /// A table id.
        case table = "table id"
        /// A record id.
        case record = "record id"
        /// A field name.
        case field = "field name"
    }

    /// Maximum length in characters (all allowed characters are ASCII), the `:` included.
    public static let maxLength = 64

    /// The metadata table, its single record and that record's fields.
    public static let infoTable = ":info"
    /// The single record of the metadata table.
    public static let infoRecord = "info"
    /// The metadata field of the last modification time.
    public static let infoModifiedTimeField = "mtime"
    /// The metadata field of the datastore's title.
    public static let infoTitleField = "title"
    /// The sharing table of shareable datastores (records `team`, `public`, `u<uid>`; field `role`).
    public static let aclTable = ":acl"

    /// True for the characters allowed after the optional leading `:`: `-._+/=`, letters, digits.
    @inline(__always)
    public static func isAllowedCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "+"), UInt8(ascii: "/"),
            UInt8(ascii: "="):
            true
        default:
            false
        }
    }

    /// True if `id` is a valid table id, record id or field name, ordinary or reserved.
    public static func isValid(_ id: String) -> Bool {
        problem(id) == nil
    }

    /// True if `id` is valid and reserved (starts with `:`).
    public static func isReserved(_ id: String) -> Bool {
        id.utf8.first == UInt8(ascii: ":") && isValid(id)
    }

    /// Throws `invalidIdentifier` at `path` if `id` is not valid.
    /// (The path is made only for the error: validation runs on every change written.)
    public static func validate(_ id: String, as kind: Kind, at path: @autoclosure () -> JSONPath = .root) throws(DatastoreError) {
        if let problem = problem(id) {
            throw DatastoreError(.invalidIdentifier, "\(JSONPath.quoted(id)) is not a valid \(kind.rawValue): \(problem)",
                at: path())
        }
    }

    /// Why `id` is invalid, or nil.
    static func problem(_ id: String) -> String? {
        // The common case, a valid id in contiguous UTF-8, in one pass over its bytes.
        let valid = id.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            let start = bytes.first == UInt8(ascii: ":") ? 1 : 0
            guard bytes.count > start, bytes.count <= maxLength else { return false }
            for index in start..<bytes.count where !isAllowedCharacter(bytes[index]) { return false }
            return true
        }
        if valid == true { return nil }
        var utf8 = id.utf8[...]
        let reserved = utf8.first == UInt8(ascii: ":")
        if reserved { utf8 = utf8.dropFirst() }
        if utf8.isEmpty { return reserved ? "nothing follows the ':'" : "it is empty" }
        if id.utf8.count > maxLength { return "it has \(id.unicodeScalars.count) characters; at most \(maxLength) are allowed" }
        if let bad = utf8.first(where: { !isAllowedCharacter($0) }) {
            if bad == UInt8(ascii: ":") { return "':' is only allowed as the first character (reserved ids)" }
            return "only letters, digits and - . _ + / = are allowed"
        }
        return nil
    }
}

/// A validated datastore id.
public struct DatastoreID: Hashable, Sendable, CustomStringConvertible {
    /// Private or shareable.
    public enum Kind: Sendable {
        /// Private to one user: 1–64 of `[-_a-z0-9.]`, not starting or ending with `.`.
        case `private`
        /// Shareable: `.` followed by 1–63 of `[-_a-zA-Z0-9]`.
        case shareable
    }

    /// The id's text.
    public let rawValue: String
    /// Private or shareable.
    public let kind: Kind

    /// The id of the default private datastore.
    public static let `default` = DatastoreID(checked: "default", kind: .private)

    private init(checked: String, kind: Kind) {
        rawValue = checked
        self.kind = kind
    }

    /// Validates `text`; throws `invalidIdentifier` at `path`.
    public init(_ text: String, at path: JSONPath = .root) throws(DatastoreError) {
        guard let kind = DatastoreID.kind(of: text) else {
            throw DatastoreError(.invalidIdentifier,
                "\(JSONPath.quoted(text)) is not a valid datastore id: a private id is 1–64 of a-z 0-9 - _ . "
                    + "(not starting or ending with '.'), a shareable id is '.' followed by 1–63 of a-z A-Z 0-9 - _",
                at: path)
        }
        self.init(checked: text, kind: kind)
    }

    /// The kind of datastore id `text` is, or nil if it is neither.
    public static func kind(of text: String) -> Kind? {
        let utf8 = Array(text.utf8)
        guard let first = utf8.first, utf8.count <= 64 else { return nil }
        func lowerOrDigit(_ b: UInt8) -> Bool {
            (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9"))
                || b == UInt8(ascii: "-") || b == UInt8(ascii: "_")
        }
        if first == UInt8(ascii: ".") {
            guard utf8.count >= 2 else { return nil }
            return utf8.dropFirst().allSatisfy { URLSafeBase64.isInAlphabet($0) } ? .shareable : nil
        }
        guard lowerOrDigit(first), lowerOrDigit(utf8[utf8.count - 1]) else { return nil }
        return utf8.allSatisfy { lowerOrDigit($0) || $0 == UInt8(ascii: ".") } ? .private : nil
    }

    /// The id's text.
    public var description: String { rawValue }
}
