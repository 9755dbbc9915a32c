// Streaming JSON writer into a byte sink, plus JSONValue serialization.
//
// The writer only emits tokens; structure (`[`, `,`, `:` …) is written with the raw
// appends, so huge documents can be produced row by row with bounded memory.
// Strings are escaped minimally: `\"` `\\` `\n` `\r` `\t` `\b` `\f`, other control
// characters as `\u00xx` (lowercase hex), everything else (including `/`, DEL and all
// non-ASCII) as raw UTF-8.

/// Destination of written bytes.
public protocol ByteSink {
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws
}

/// Collects everything in memory (tests and small documents).
public struct ArraySink: ByteSink, Hashable, Sendable {
    public var bytes: [UInt8]

    public init(bytes: [UInt8] = []) { self.bytes = bytes }

    public mutating func write(_ bytes: UnsafeRawBufferPointer) {
        self.bytes.append(contentsOf: bytes)
    }
}

/// A sink that can forget everything it took, so that what writes to it can start over.
public protocol ResettableByteSink: ByteSink {
    mutating func reset() throws
}

extension ArraySink: ResettableByteSink {
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
    public let bufferSize: Int
    /// The destination. Call `flush()` before reading from it.
    public var sink: Sink
    /// The first error thrown by the sink; once set, further output is discarded.
    public private(set) var sinkError: (any Error)?

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

    /// Writes the buffer to the sink (or drops it after a sink error) and empties it.
    @usableFromInline
    mutating func drain() {
        if sinkError == nil && !buffer.isEmpty {
            do {
                try buffer.withUnsafeBytes { try sink.write($0) }
            } catch {
                sinkError = error
            }
        }
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

    // MARK: raw appends (no escaping, no validation)

    @inlinable
    public mutating func writeRaw(_ s: StaticString) {
        if s.hasPointerRepresentation {
            buffer.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
        } else {
            JSONEmit.appendRaw(s.description, to: &buffer)
        }
        drainIfFull()
    }

    @inlinable
    public mutating func writeRaw(_ s: String) {
        JSONEmit.appendRaw(s, to: &buffer)
        drainIfFull()
    }

    @inlinable
    public mutating func writeRaw(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: bytes)
        drainIfFull()
    }

    @inlinable
    public mutating func writeRaw(_ bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        drainIfFull()
    }

    @inlinable
    public mutating func writeByte(_ b: UInt8) {
        buffer.append(b)
        drainIfFull()
    }

    // MARK: values

    /// A JSON string literal with escaping (see file header).
    @inlinable
    public mutating func writeString(_ s: String) {
        JSONEmit.appendString(s, to: &buffer)
        drainIfFull()
    }

    @inlinable
    public mutating func writeInt(_ v: Int64) {
        JSONEmit.appendInt64(v, to: &buffer)
        drainIfFull()
    }

    @inlinable
    public mutating func writeUInt(_ v: UInt64) {
        JSONEmit.appendUInt64(v, to: &buffer)
        drainIfFull()
    }

    /// Swift's shortest round-trip text (`v.description`: "0.1", "1e+300", "5e-324",
    /// "-0.0", "1.0"), which `Double(text)` reads back to the same bit pattern.
    /// Precondition: `v.isFinite` (JSON has no NaN/Infinity; encode those before calling).
    @inlinable
    public mutating func writeDouble(_ v: Double) {
        precondition(v.isFinite, "JSONWriter.writeDouble: JSON cannot represent \(v)")
        JSONEmit.appendRaw(v.description, to: &buffer)
        drainIfFull()
    }

    /// Float's shortest round-trip text (`Float(0.1)` -> "0.1"); read it back with
    /// `Float(text)` / `JSONValue.floatValue`. Precondition: `v.isFinite`.
    @inlinable
    public mutating func writeFloat(_ v: Float) {
        precondition(v.isFinite, "JSONWriter.writeFloat: JSON cannot represent \(v)")
        JSONEmit.appendRaw(v.description, to: &buffer)
        drainIfFull()
    }

    @inlinable
    public mutating func writeBool(_ v: Bool) {
        JSONEmit.appendBool(v, to: &buffer)
        drainIfFull()
    }

    @inlinable
    public mutating func writeNull() {
        JSONEmit.appendNull(to: &buffer)
        drainIfFull()
    }

    /// A whole JSONValue (numbers written as their stored text), compact or pretty as
    /// `JSONValue.serialized(pretty:)`.
    @inlinable
    public mutating func writeValue(_ value: JSONValue, pretty: Bool = false) {
        JSONEmit.appendValue(value, pretty: pretty, indent: 0, to: &buffer)
        drainIfFull()
    }

    /// A JSON string holding the standard (padded) base64 of `bytes`, without building a String.
    @inlinable
    public mutating func writeBase64String<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        buffer.append(UInt8(ascii: "\""))
        Base64.encode(bytes, into: &buffer)
        buffer.append(UInt8(ascii: "\""))
        drainIfFull()
    }

    /// A JSON string holding the URL-safe (unpadded) base64 of `bytes`.
    @inlinable
    public mutating func writeURLSafeBase64String<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        buffer.append(UInt8(ascii: "\""))
        URLSafeBase64.encode(bytes, into: &buffer)
        buffer.append(UInt8(ascii: "\""))
        drainIfFull()
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

// MARK: - Emitters (non-generic, shared by the writer and the serializer)

/// The byte forms of JSON text (escaping, integers, literals), appended to a buffer: the one
/// definition that the writer, the serializer and the value emitters use.
public enum JSONEmit {
    public static func appendRaw(_ s: String, to out: inout [UInt8]) {
        var s = s
        s.withUTF8 { out.append(contentsOf: $0) }
    }

    public static func appendNull(to out: inout [UInt8]) {
        let text: StaticString = "null"
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    public static func appendBool(_ v: Bool, to out: inout [UInt8]) {
        let text: StaticString = v ? "true" : "false"
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    public static func appendUInt64(_ v: UInt64, to out: inout [UInt8]) {
        if v < 10 {
            out.append(UInt8(truncatingIfNeeded: v) &+ UInt8(ascii: "0"))
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            let count = writeDigits(v, to: digits.baseAddress!)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[..<count]))
        }
    }

    /// The decimal digits of `v` (at most 20), written at `destination`; returns how many. The
    /// one definition of integer text, for writers that store through a pointer.
    public static func writeDigits(_ v: UInt64, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        var count = 1, rest = v
        while rest >= 10 { rest /= 10; count &+= 1 }
        var position = count
        rest = v
        repeat {
            let (quotient, remainder) = rest.quotientAndRemainder(dividingBy: 10)
            position &-= 1
            destination[position] = UInt8(truncatingIfNeeded: remainder) &+ UInt8(ascii: "0")
            rest = quotient
        } while rest != 0
        return count
    }

    public static func appendInt64(_ v: Int64, to out: inout [UInt8]) {
        if v < 0 { out.append(UInt8(ascii: "-")) }
        appendUInt64(v.magnitude, to: &out)
    }

    /// True if any of the 8 bytes is `"`, `\` or < 0x20 (exact; non-ASCII bytes are fine).
    @inline(__always)
    public static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* 0x22)
        let backslashes = word ^ (ones &* 0x5C)
        let control = (word &- ones &* 0x20) & ~word
        let quote = (quotes &- ones) & ~quotes
        let backslash = (backslashes &- ones) & ~backslashes
        return (control | quote | backslash) & high != 0
    }

    public static func appendString(_ s: String, to out: inout [UInt8]) {
        var s = s
        s.withUTF8 { appendEscaped($0, to: &out) }
    }

    /// Appends `"…"` with JSON escaping of valid UTF-8 `text` (`writeEscaped`, a slice at a time
    /// through a buffer on the stack — 1 KiB, beyond which it would be allocated on the heap —
    /// so that no room for the worst case of a long text is ever made).
    public static func appendEscaped(_ text: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.reserveCapacity(out.count + text.count + 2)
        out.append(UInt8(ascii: "\""))
        let slice = 1024 / 6
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: escapedCapacity(slice)) { room in
            var start = 0
            while start < text.count {
                let end = min(start + slice, text.count)
                let count = writeEscaped(UnsafeBufferPointer(rebasing: text[start..<end]), to: room.baseAddress!)
                out.append(contentsOf: UnsafeBufferPointer(rebasing: room[..<count]))
                start = end
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// The most bytes `writeEscaped` writes for `count` bytes of text (each may become `\u00xx`).
    @inline(__always)
    public static func escapedCapacity(_ count: Int) -> Int { count &* 6 }

    /// Valid UTF-8 `text` escaped for a JSON string (see the file header), without the quotes,
    /// written at `destination`, which has room for `escapedCapacity(text.count)` bytes; returns
    /// how many were written. The one definition of JSON escaping, for writers that store
    /// through a pointer.
    public static func writeEscaped(_ text: UnsafeBufferPointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        var out = destination
        let count = text.count
        var runStart = 0
        var k = 0
        @inline(__always) func put(_ byte: UInt8) { out.pointee = byte; out += 1 }
        @inline(__always) func flush(_ end: Int) {
            guard runStart < end, let base = text.baseAddress else { return }
            out.update(from: base + runStart, count: end &- runStart)
            out += end &- runStart
        }
        while k < count {
            if let base = text.baseAddress {
                let raw = UnsafeRawPointer(base)
                while count &- k >= 8 && !needsEscape(raw.loadUnaligned(fromByteOffset: k, as: UInt64.self)) {
                    k &+= 8
                }
                if k >= count { break }
            }
            let byte = text[k]
            if byte >= 0x20 && byte != 0x22 && byte != 0x5C {
                k &+= 1
                continue
            }
            flush(k)
            put(UInt8(ascii: "\\"))
            switch byte {
            case 0x22: put(UInt8(ascii: "\""))
            case 0x5C: put(UInt8(ascii: "\\"))
            case 0x0A: put(UInt8(ascii: "n"))
            case 0x0D: put(UInt8(ascii: "r"))
            case 0x09: put(UInt8(ascii: "t"))
            case 0x08: put(UInt8(ascii: "b"))
            case 0x0C: put(UInt8(ascii: "f"))
            default:
                let hex = ("0123456789abcdef" as StaticString).utf8Start
                put(UInt8(ascii: "u")); put(UInt8(ascii: "0")); put(UInt8(ascii: "0"))
                put(hex[Int(byte >> 4)]); put(hex[Int(byte & 0x0F)])
            }
            k &+= 1
            runStart = k
        }
        flush(count)
        return out - destination
    }

    public static func appendNewline(indent: Int, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent))
    }

    public static func appendValue(_ value: JSONValue, pretty: Bool, indent: Int, to out: inout [UInt8]) {
        switch value {
        case .null:
            appendNull(to: &out)
        case .bool(let v):
            appendBool(v, to: &out)
        case .number(let text):
            appendRaw(text, to: &out)
        case .string(let s):
            appendString(s, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            if elements.isEmpty {
                out.append(UInt8(ascii: "]"))
                return
            }
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                if pretty { appendNewline(indent: indent + 2, to: &out) }
                appendValue(element, pretty: pretty, indent: indent + 2, to: &out)
            }
            if pretty { appendNewline(indent: indent, to: &out) }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            if object.members.isEmpty {
                out.append(UInt8(ascii: "}"))
                return
            }
            for (index, member) in object.members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                if pretty { appendNewline(indent: indent + 2, to: &out) }
                appendString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                if pretty { out.append(UInt8(ascii: " ")) }
                appendValue(member.value, pretty: pretty, indent: indent + 2, to: &out)
            }
            if pretty { appendNewline(indent: indent, to: &out) }
            out.append(UInt8(ascii: "}"))
        }
    }
}

extension JSONWriter where Sink: ResettableByteSink {
    /// Forgets everything written, buffered or in the sink, and any error of the sink.
    public mutating func reset() throws {
        buffer.removeAll(keepingCapacity: true)
        sinkError = nil
        try sink.reset()
    }
}
