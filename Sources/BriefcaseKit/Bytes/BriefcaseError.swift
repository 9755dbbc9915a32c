/// A problem with input data or a request, with where it happened.
///
/// `description` is one line: `file: element 'Orders': offset 1234: what is wrong`, safe to print
/// on a terminal (`TerminalText`): a name or value from a file that holds control characters
/// cannot recolour, clear or reorder the screen, nor break the line.
public struct BriefcaseError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What kind of failure an error is (the CLI's exit status follows from it).
    public enum Kind: Sendable, Equatable {
        /// The input ends before a value it announces.
        case truncated
        /// The input is not what the format allows (bad magic, impossible count, bad offset…).
        case invalidData
        /// Something the format allows that this library cannot represent (e.g. `datUnknown` values).
        case unsupported
        /// A model that cannot be written (e.g. a value that does not fit its column type).
        case invalidModel
        /// A file could not be opened, read or written.
        case io
    }

    /// What kind of failure.
    public var kind: Kind
    /// What is wrong, in one line (expected versus found).
    public var message: String
    /// Byte offset in the file (for reading) where the problem was found.
    public var offset: Int?
    /// The table or delta the problem belongs to.
    public var element: String?
    /// The file, when known.
    public var file: String?
    /// Which rule of the format was broken, where a reader tells problems apart that `validate`
    /// reports under different checks (Spec/validation.md); nil for the others.
    public var reason: Reason?

    /// Rules of the format whose breaking readers tell apart: the `reason` of an error or of a
    /// `DecodingWarning`.
    public enum Reason: Sendable, Equatable {
        /// A file or stream does not start with its signature (`DABRC600`, `DABIN200`).
        case signature
        /// A `DABRC600` header's data offset does not lie between its properties and the file's end.
        case dataOffset
        /// An element's data ends before the next element starts: bytes left over in between.
        case bytesAfterElement
        /// A table's schema-end position is not where its schema ends (a warning).
        case schemaEnd
        /// Padding bits after the last field of a mask are set (a warning).
        case maskPadding
    }

    /// An error of `kind` with `message`, located where known.
    public init(_ kind: Kind, _ message: String, offset: Int? = nil, element: String? = nil, file: String? = nil,
                reason: Reason? = nil) {
        self.kind = kind
        self.message = message
        self.offset = offset
        self.element = element
        self.file = file
        self.reason = reason
    }

    /// `file: element 'NAME': offset N: message`, with the parts that are known, escaped for a
    /// terminal (`TerminalText.escaped(_:keepingLineBreaks:)`: control characters, DEL, C1 and
    /// bidirectional controls as `\x1B`, `\u{202E}`…; unchanged when there are none).
    public var description: String {
        TerminalText.escaped(unescapedDescription)
    }

    /// The same line as `description`, not escaped: for a caller that puts it into a longer line
    /// and escapes that line once.
    package var unescapedDescription: String {
        Self.describe(message, file: file, element: element, offset: offset)
    }

    /// `file: element 'Orders': offset 1234: message`, leaving out what is nil: the one-line form
    /// of every problem report (errors, warnings, validation findings). Not escaped: the text as
    /// it is, for a caller that escapes the line it makes (`TerminalText`) or writes it where
    /// escaping has its own rules (JSON).
    public static func describe(_ message: String, file: String?, element: String?, offset: Int?) -> String {
        var parts: [String] = []
        if let file { parts.append(file) }
        if let element { parts.append("element '\(element)'") }
        if let offset { parts.append("offset \(offset)") }
        parts.append(message)
        return parts.joined(separator: ": ")
    }

    /// The same error, naming `element` unless it already names one.
    public func inElement(_ name: String) -> BriefcaseError {
        var copy = self
        if copy.element == nil { copy.element = name }
        return copy
    }

    /// The same error, naming `file`.
    public func inFile(_ path: String) -> BriefcaseError {
        var copy = self
        copy.file = path
        return copy
    }
}
