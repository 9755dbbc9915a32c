// Streaming JSON writer into a byte sink, plus JSONValue serialization.
//
// The writer only emits tokens; structure (`[`, `,`, `:` …) is written with the raw
// appends, so huge documents can be produced row by row with bounded memory.
// Strings are escaped: `\"` `\\` `\n` `\r` `\t` `\b` `\f`, other control characters and DEL
// as `\u00xx` (lowercase hex), and — so that JSON Lines shown on a terminal cannot drive it —
// the C1 controls (U+0080…U+009F) and the bidirectional controls (U+202A…U+202E,
// U+2066…U+2069) as `\u0085`, `\u202e`; everything else (including `/` and all other
// non-ASCII) as raw UTF-8.

/// Destination of written bytes.
public protocol ByteSink {
    /// Takes the next bytes of the output.
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws
}

/// Collects everything in memory (tests and small documents).
public struct ArraySink: ByteSink, Hashable, Sendable {
    /// The bytes received.
    public var bytes: [UInt8]

    /// A sink holding `bytes` at first.
    public init(bytes: [UInt8] = []) { self.bytes = bytes }

    /// Appends the bytes.
    public mutating func write(_ bytes: UnsafeRawBufferPointer) {
        self.bytes.append(contentsOf: bytes)
    }
}

/// A sink that can forget everything it took, so that what writes to it can start over.
public protocol ResettableByteSink: ByteSink {
    /// Forgets everything received, to start over.
    mutating func reset() throws
}

extension ArraySink: ResettableByteSink {
    /// Removes every byte.
    public mutating func reset() { bytes.removeAll() }
}

/// Buffered streaming writer of JSON tokens.
///
/// Writing never throws: every `write…` call appends to an internal buffer, which is handed
/// to `sink.write` whenever it holds `bufferSize` bytes or more (a single value larger than
/// the buffer is buffered whole, then written in one call). Call `flush()` at the end — and
/// before inspecting `sink` — to write the rest and learn about failures.
///
/// Sink errors are sticky, like `ferror`: the first error thrown by `sink.write` is kept in
/// `sinkError`, everything written afterwards is discarded (memory stays bounded), and every
/// later `flush()` throws that error. Long-running producers can poll `sinkError` to stop early
/// (e.g. on a closed pipe).
///
/// `writeDouble`/`writeFloat` require finite values (precondition): JSON has no NaN/Infinity,
/// so callers must encode those themselves before calling.
public struct JSONWriter<Sink: ByteSink> {
    /// The bytes written but not yet handed to the sink. Encoders of their own forms may append
    /// to it directly (with `JSONEmit`, `Base64Codec`) and then call `drainIfFull()`.
    public var buffer: [UInt8]
    /// How many bytes are gathered before they go to the sink.
    public let bufferSize: Int
    /// The destination. Call `flush()` before reading from it.
    public var sink: Sink
    /// The first error thrown by the sink; once set, further output is discarded.
    public private(set) var sinkError: (any Error)?

    /// A writer into `sink`, handing it `bufferSize` bytes at a time.
    public init(sink: Sink, bufferSize: Int = 1 << 16) {
        self.sink = sink
        self.bufferSize = max(1, bufferSize)
        buffer = []
        buffer.reserveCapacity(self.bufferSize)
    }

    /// Number of bytes written but not yet handed to the sink.
    public var bufferedCount: Int { buffer.count }

    /// Hands all buffered bytes to the sink; throws the sink's first error (now or from an
    /// earlier automatic write), and keeps throwing it on every later call.
    public mutating func flush() throws {
        drain()
        if let sinkError { throw sinkError }
    }

    /// Writes `bytes` as they are, straight to the sink after what is buffered (no copy into the
    /// buffer: for large pieces made elsewhere, such as an element encoded on another thread).
    public mutating func writeThrough(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { writeThrough($0) }
    }

    /// Writes `bytes` as they are, straight to the sink after what is buffered (no copy into the
    /// buffer: for text written elsewhere in pieces larger than the buffer).
    public mutating func writeThrough(_ bytes: UnsafeRawBufferPointer) {
        drain()
        hand(bytes)
    }

    /// Hands `bytes` to the sink, unless it failed before; its first error is kept (sticky).
    private mutating func hand(_ bytes: UnsafeRawBufferPointer) {
        guard sinkError == nil, !bytes.isEmpty else { return }
        do {
            try sink.write(bytes)
        } catch {
            sinkError = error
        }
    }

    /// Writes the buffer to the sink (or drops it after a sink error) and empties it.
    @usableFromInline
    mutating func drain() {
        var pending: [UInt8] = []
        swap(&pending, &buffer)  // (moved out and back: `hand` changes self, and no copy is made)
        pending.withUnsafeBytes { hand($0) }
        swap(&pending, &buffer)
        if buffer.capacity > 4 * bufferSize {
            buffer = []  // one huge value grew the buffer; don't keep that memory
            buffer.reserveCapacity(bufferSize)
        } else {
            buffer.removeAll(keepingCapacity: true)
        }
    }

    /// Hands the buffer to the sink once it holds `bufferSize` bytes or more.
    @inlinable @inline(__always)
    public mutating func drainIfFull() {
        if buffer.count >= bufferSize { drain() }
    }

    /// Appends one form to the buffer (`append` is one of `JSONEmit`'s, or a copy of bytes) and
    /// hands the buffer on when it is full: the one path of every `write…` below.
    @inlinable @inline(__always)
    mutating func emit(_ append: (inout [UInt8]) -> Void) {
        append(&buffer)
        drainIfFull()
    }

    // MARK: raw appends (no escaping, no validation)

    /// Writes text as it is (no escaping).
    @inlinable
    public mutating func writeRaw(_ s: StaticString) {
        emit { buffer in
            if s.hasPointerRepresentation {
                buffer.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
            } else {
                JSONEmit.appendRaw(s.description, to: &buffer)
            }
        }
    }

    /// Writes text as it is (no escaping).
    @inlinable
    public mutating func writeRaw(_ s: String) { emit { JSONEmit.appendRaw(s, to: &$0) } }

    /// Writes bytes as they are.
    @inlinable
    public mutating func writeRaw(_ bytes: UnsafeRawBufferPointer) { emit { $0.append(contentsOf: bytes) } }

    /// Writes bytes as they are.
    @inlinable
    public mutating func writeRaw(_ bytes: [UInt8]) { emit { $0.append(contentsOf: bytes) } }

    /// Writes one byte as it is.
    @inlinable
    public mutating func writeByte(_ b: UInt8) { emit { $0.append(b) } }

    // MARK: values

    /// A JSON string literal with escaping (see file header).
    @inlinable
    public mutating func writeString(_ s: String) { emit { JSONEmit.appendString(s, to: &$0) } }

    /// Writes a signed integer in decimal.
    @inlinable
    public mutating func writeInt(_ v: Int64) { emit { JSONEmit.appendInt64(v, to: &$0) } }

    /// Writes an unsigned integer in decimal.
    @inlinable
    public mutating func writeUInt(_ v: UInt64) { emit { JSONEmit.appendUInt64(v, to: &$0) } }

    /// Swift's shortest round-trip text (`v.description`: "0.1", "1e+300", "5e-324",
    /// "-0.0", "1.0"), which `Double(text)` reads back to the same bit pattern.
    /// Precondition: `v.isFinite` (JSON has no NaN/Infinity; encode those before calling).
    @inlinable
    public mutating func writeDouble(_ v: Double) {
        precondition(v.isFinite, "JSONWriter.writeDouble: JSON cannot represent \(v)")
        writeRaw(v.description)
    }

    /// Float's shortest round-trip text (`Float(0.1)` -> "0.1"); read it back with
    /// `Float(text)` / `JSONValue.floatValue`. Precondition: `v.isFinite`.
    @inlinable
    public mutating func writeFloat(_ v: Float) {
        precondition(v.isFinite, "JSONWriter.writeFloat: JSON cannot represent \(v)")
        writeRaw(v.description)
    }

    /// Writes `true` or `false`.
    @inlinable
    public mutating func writeBool(_ v: Bool) { emit { JSONEmit.appendBool(v, to: &$0) } }

    /// Writes `null`.
    @inlinable
    public mutating func writeNull() { emit { JSONEmit.appendNull(to: &$0) } }

    /// A whole JSONValue (numbers written as their stored text), compact or pretty as
    /// `JSONValue.serialized(pretty:)`.
    @inlinable
    public mutating func writeValue(_ value: JSONValue, pretty: Bool = false) {
        emit { JSONEmit.appendValue(value, pretty: pretty, indent: 0, to: &$0) }
    }

    /// A JSON string holding the standard (padded) base64 of `bytes`, without building a String.
    @inlinable
    public mutating func writeBase64String<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        writeBase64String(bytes, as: Base64.self)
    }

    /// A JSON string holding the URL-safe (unpadded) base64 of `bytes`.
    @inlinable
    public mutating func writeURLSafeBase64String<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        writeBase64String(bytes, as: URLSafeBase64.self)
    }

    /// A JSON string holding the base64 of `bytes` in `variant`.
    @inlinable
    public mutating func writeBase64String<C: Collection, V: Base64Variant>(_ bytes: C, as variant: V.Type)
    where C.Element == UInt8 {
        emit { buffer in
            buffer.append(UInt8(ascii: "\""))
            V.encode(bytes, into: &buffer)
            buffer.append(UInt8(ascii: "\""))
        }
    }
}

extension JSONWriter: Sendable where Sink: Sendable {}

// MARK: - JSONValue serialization

extension JSONValue {
    /// JSON text of the value as UTF-8. Compact by default; `pretty` uses two-space
    /// indentation, one member/element per line, `"key": value`, and `[]`/`{}` for empty
    /// containers (no trailing newline). Numbers are written as their stored text, so
    /// `JSONParser.parse(v.serialized()) == v` for every parsed value.
    public func serialized(pretty: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        JSONEmit.appendValue(self, pretty: pretty, indent: 0, to: &out)
        return out
    }
}

extension JSONWriter where Sink: ResettableByteSink {
    /// Forgets everything written, buffered or in the sink, and any error of the sink. A sink
    /// that cannot forget (standard output) keeps its error: what is written after is dropped,
    /// and `flush()` throws it.
    public mutating func reset() throws {
        buffer.removeAll(keepingCapacity: true)
        sinkError = nil
        do {
            try sink.reset()
        } catch {
            sinkError = error
            throw error
        }
    }
}
