import JSONCore

import DatastoreKit
import Testing

/// The error `body` throws, or nil (then the test fails with `comment`).
func datastoreError<T>(_ body: () throws(DatastoreError) -> T, sourceLocation: SourceLocation = #_sourceLocation)
    -> DatastoreError?
{
    do {
        _ = try body()
        Issue.record("expected a DatastoreError", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

func json(_ text: String) -> JSONValue {
    try! JSONParser.parse(text)
}

/// Decodes one field value from JSON text.
func value(_ text: String) throws(DatastoreError) -> DatastoreValue {
    try DatastoreValue(wire: json(text))
}

/// The error of decoding `text` as a field value.
func valueError(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> DatastoreError? {
    datastoreError({ () throws(DatastoreError) in try value(text) }, sourceLocation: sourceLocation)
}

/// Compact text of what `body` writes.
func written(_ body: (inout JSONWriter<ArraySink>) throws(DatastoreError) -> Void) throws -> String {
    var writer = JSONWriter(sink: ArraySink())
    try body(&writer)
    try writer.flush()
    return String(decoding: writer.sink.bytes, as: UTF8.self)
}

func text(_ value: DatastoreValue) -> String {
    var writer = JSONWriter(sink: ArraySink())
    value.write(to: &writer)
    try! writer.flush()
    return String(decoding: writer.sink.bytes, as: UTF8.self)
}
