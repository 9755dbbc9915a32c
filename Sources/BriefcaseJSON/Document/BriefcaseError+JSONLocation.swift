import JSONCore
import BriefcaseKit

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

    public func locatedInJSON(_ document: UnsafeRawBufferPointer) -> BriefcaseError {
        locatedInJSON(document.assumingMemoryBound(to: UInt8.self))
    }

    public func locatedInJSON(_ document: [UInt8]) -> BriefcaseError {
        document.withUnsafeBufferPointer { locatedInJSON($0) }
    }
}

extension JSONParseError {
    /// The parse failure as the readers of documents report it.
    public var briefcaseError: BriefcaseError {
        BriefcaseError(.invalidData, "not valid JSON: \(message)", offset: offset)
    }
}
