import JSONCore
import BriefcaseKit

/// Errors of JSON readers, located by both JSON path and byte offset.
extension BriefcaseError {
    /// The error with its place in the JSON `document` complete: the byte offset of the path its
    /// message starts with (`$.elements[2].name: …`), or the path of the offset it has (a syntax
    /// error, a duplicate key). Readers of JSON documents call it once, where they report an
    /// error, so that every error carries both.
    public func locatedInJSON(_ document: UnsafeBufferPointer<UInt8>) -> BriefcaseError {
        var located = self
        if let (path, rest) = JSONPath.prefix(of: message[...]), rest.hasPrefix(": ") {
            if located.offset == nil { located.offset = path.offset(in: document) }
        } else if let offset, offset <= document.count {
            let path = JSONPath.containing(offset: offset, in: document)
            if !path.isRoot { located.message = "\(path): \(message)" }
        }
        return located
    }

    /// The error located in the JSON `document` (see the buffer-pointer form).
    public func locatedInJSON(_ document: UnsafeRawBufferPointer) -> BriefcaseError {
        locatedInJSON(document.assumingMemoryBound(to: UInt8.self))
    }

    /// The error located in the JSON `document` (see the buffer-pointer form).
    public func locatedInJSON(_ document: [UInt8]) -> BriefcaseError {
        document.withUnsafeBufferPointer { locatedInJSON($0) }
    }
}

/// JSON syntax errors as the readers of briefcase documents report them.
extension JSONParseError {
    /// The parse failure as the readers of documents report it.
    public var briefcaseError: BriefcaseError {
        BriefcaseError(.invalidData, "not valid JSON: \(message)", offset: offset)
    }
}
