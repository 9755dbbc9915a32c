import JSONCore
import BriefcaseKit

/// Writes a table's rows kept as bytes (`Rows.visitStored`) as the document's row lines, each
/// value from where it lies in the bytes: the text `JSONValueEmitter.writeValues` writes for the
/// decoded row (the same `put…` functions), without the row of `Value`s made and let go again.
///
/// Not generic over the output (see `JSONValueEmitter`): it writes a batch of rows into `rows`,
/// a buffer of its own, which the encoder hands to its writer's sink in one piece
/// (`JSONDocumentEncoder.encodeStoredRows`) — a row is not copied again on its way.
struct JSONRowVisitor: RowVisitor {
    let emitter: JSONValueEmitter
    /// The rows written so far, `written` bytes at its start.
    let rows: JSONValueEmitter.Scratch
    /// The position of the next row in its table (the first row's separator differs).
    var rowIndex: Int
    private var d: UnsafeMutablePointer<UInt8>
    private var o = 0
    private var column = 0

    init(emitter: JSONValueEmitter, rows: JSONValueEmitter.Scratch, firstRow: Int) {
        self.emitter = emitter
        self.rows = rows
        rowIndex = firstRow
        d = rows.pointer
    }

    /// The rows written since the last `clear()`.
    var written: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: d, count: o) }

    /// Starts the next batch at the start of the buffer.
    mutating func clear() { o = 0 }

    /// Room for `count` more bytes.
    @inline(__always)
    private mutating func ensure(_ count: Int) {
        if o &+ count > rows.capacity { d = rows.grow(keeping: o, to: o &+ count) }
    }

    /// Room for a value of at most `count` bytes, after its separator (written).
    @inline(__always)
    private mutating func room(_ count: Int) {
        ensure(count &+ 2)
        if column > 0 { d[o] = UInt8(ascii: ","); d[o &+ 1] = UInt8(ascii: " "); o &+= 2 }
        column &+= 1
    }

    @inline(__always)
    mutating func beginRow(at position: Int, fieldCount: Int) {
        ensure(fieldCount &* 8 &+ 16)
        column = 0
        JSONValueEmitter.put(rowIndex == 0 ? "\n      [" : ",\n      [", d, &o)
    }

    @inline(__always)
    mutating func null(_ row: inout Void) {
        room(4)
        JSONValueEmitter.put("null", d, &o)
    }

    @inline(__always)
    mutating func bytes(_ storage: ValueStorage, _ source: ByteSource, start: Int, count: Int, base: UnsafePointer<UInt8>,
                        _ row: inout Void) {
        let value = UnsafeBufferPointer(start: base + start, count: count)
        switch storage {
        case .ansiString where emitter.isUTF8:
            room(JSONValueEmitter.textBound(count))
            if !JSONValueEmitter.putUTF8Text(value, d, &o) { emitter.noteInvalidUTF8() }
        case .ansiString:
            // Decoded through the code page, whose UTF-8 size is not known before.
            var text: [UInt8] = []
            emitter.writeAnsi(source.byteString(start ..< start &+ count), to: &text)
            room(text.count)
            text.withUnsafeBufferPointer { (d + o).update(from: $0.baseAddress!, count: $0.count) }
            o &+= text.count
        case .wideString:
            room(JSONValueEmitter.textBound(count))
            JSONValueEmitter.putWideText(value, d, &o)
        case .guid:
            room(JSONValueEmitter.textBound(count))
            JSONValueEmitter.putGUID(value, d, &o)
        default:
            room(JSONValueEmitter.base64Length(count) &+ 2)
            JSONValueEmitter.putBase64String(value, d, &o)
        }
    }

    @inline(__always)
    mutating func scalar(_ value: Value, _ row: inout Void) {
        room(64)
        JSONValueEmitter.put(value, d, &o)
    }

    @inline(__always)
    mutating func decimal(low: UInt32, mid: UInt32, high: UInt32, flags: UInt32, _ row: inout Void) {
        room(300)
        JSONValueEmitter.putDecimalValue(Decimal96(low: low, mid: mid, high: high, flags: flags), d, &o)
    }

    @inline(__always)
    mutating func endRow(_ row: consuming Void) {
        ensure(1)
        d[o] = UInt8(ascii: "]")
        o &+= 1
        rowIndex &+= 1
    }

    /// Never called: `Rows.visitStored` hands over plain rows only, value by value.
    func checkedRow(_ values: [Value?], at position: Int) {
        preconditionFailure("JSONRowVisitor: stored rows are read value by value")
    }
}
