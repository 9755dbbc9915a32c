/// The checks `Validator` runs (Spec/validation.md lists each one, and whether it is an error or
/// a warning). The raw value is the name reports show (`"check"` in `validate --json`).
public enum ValidationCheck: String, Sendable, CaseIterable {
    /// `DABRC600` magic and version, the property block.
    case header
    /// The data offset against the end of the property block (bytes in between: warning).
    case dataOffset = "data-offset"
    /// `DABIN200`, the index position, the index entries, element positions (inside the element
    /// area, distinct, the first right after the stream header).
    case index
    /// Where one element's data ends against where the next one starts: overlaps and gaps.
    case elementBounds = "element-bounds"
    /// A value, count or length the decoder could not read (the first fatal problem of an element).
    case decoding
    /// The schema-end field against the position after the schema (warning).
    case schemaEnd = "schema-end"
    /// Set padding bits after the last field of a NULL or presence mask (warning).
    case maskPadding = "mask-padding"
    /// Row descriptors against the schema's fields: count, `Name` and `DataType` by position.
    case rowDescriptors = "row-descriptors"
    /// A delta's logged fields against its table's columns: present, same type.
    case loggedFields = "logged-fields"
    /// Change type and status codes (0–2).
    case changeCodes = "change-codes"
    /// A delta's two change counts (warning).
    case changeCounts = "change-counts"
    /// UTF-16LE text of wide values: even byte length, no unpaired surrogate.
    case wideText = "wide-text"
    /// `datDecimal`: scale ≤ 28, no flag bits besides scale and sign.
    case decimal
    /// `datGuid`: `8-4-4-4-12` hexadecimal text.
    case guidText = "guid-text"
    /// `datDateTime`: a finite number.
    case dateTime = "date-time"
    /// Two tables (or two deltas) with the same name, ASCII case-insensitively.
    case duplicateName = "duplicate-name"
    /// The JSON document's syntax and structure.
    case jsonDocument = "json-document"
    /// Folder briefcases: the table files and `Properties.plist`.
    case folder
    /// Datastore snapshot documents: JSON, ids, value encodings, the delta sequence, the deltas
    /// applying, and the briefcase they map to (Spec/datastore-mapping.md).
    case snapshot
    /// Datastore snapshot documents: record, delta and datastore size and record count limits.
    case datastoreLimits = "datastore-limits"
    /// Bytes after the element index, which ends the briefcase (a warning: readers skip them).
    case trailingBytes = "trailing-bytes"
    /// The input could not be read at all (missing file, unknown format).
    case input
}

/// One problem found by `Validator`: what, where (byte offset, element, file of a folder), which check.
public struct Finding: Sendable, Equatable, CustomStringConvertible {
    /// What is wrong (or unusual), in one line.
    public var message: String
    /// Byte offset in the file (in the JSON text for JSON syntax errors); nil when it does not apply.
    public var offset: Int?
    /// The table or delta, as text in the briefcase's code page.
    public var element: String?
    /// Folder briefcases: the file inside the folder (`Orders.daBriefcase`, `Properties.plist`).
    public var file: String?
    /// The check that found it.
    public var check: ValidationCheck

    /// A finding of `check`, located where known.
    public init(_ check: ValidationCheck, _ message: String, offset: Int? = nil, element: String? = nil, file: String? = nil) {
        self.check = check
        self.message = message
        self.offset = offset
        self.element = element
        self.file = file
    }

    /// `element 'Orders': offset 1234: message` (the file, when set, comes first), escaped for a
    /// terminal as `BriefcaseError.description` is.
    public var description: String {
        TerminalText.escaped(BriefcaseError.describe(message, file: file, element: element, offset: offset))
    }
}

/// The result of validating one path.
public struct ValidationReport: Sendable {
    /// The path validated.
    public var path: String
    /// `dabriefcase`, `folder`, `bin2` or `json`.
    public var format: String
    /// The code page 8-bit strings were read with (names in messages, name comparisons).
    public var encoding: String?
    /// Why that code page was chosen, when it was detected and is not UTF-8 (for a note).
    public var encodingReason: String?
    /// What makes the briefcase invalid.
    public var errors: [Finding]
    /// What is unusual but readable.
    public var warnings: [Finding]

    /// A report of these findings.
    public init(path: String, format: String, encoding: String? = nil, encodingReason: String? = nil,
                errors: [Finding] = [], warnings: [Finding] = []) {
        self.path = path
        self.format = format
        self.encoding = encoding
        self.encodingReason = encodingReason
        self.errors = errors
        self.warnings = warnings
    }

    /// True when there is no error (warnings allowed).
    public var valid: Bool { errors.isEmpty }

    /// The report with every warning counted as an error (`validate --strict`), in offset order.
    public func strict() -> ValidationReport {
        var copy = self
        copy.errors = Validator.ordered(errors + warnings)
        copy.warnings = []
        return copy
    }

    /// A report for an input that could not be read or decoded at all.
    public static func failure(path: String, format: String, check: ValidationCheck, error: BriefcaseError) -> ValidationReport {
        ValidationReport(path: path, format: format,
                         errors: [Finding(check, error.message, offset: error.offset, element: error.element)])
    }
}
