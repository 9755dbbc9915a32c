import JSONCore
import BriefcaseKit

/// Prints rows for people and pipelines (`briefcase cat`): JSON Lines or RFC 4180 CSV, with the
/// value mapping of the CLI contract (text as text, dates as `YYYY-MM-DDTHH:MM:SS.sss`, Currency
/// and Decimal as decimal strings, blobs as base64, NULL as `null` / an empty CSV field).
///
/// Unlike the lossless document this is a view: undecodable text is shown with U+FFFD.
///
/// CSV is data: cells are written as they are, as sqlite3 and csvkit write them, whatever a
/// spreadsheet would make of them. `formulaSafe` guards the cells a spreadsheet would run as a
/// formula, for files meant to be opened in one (Spec/robustness.md §9.2).
public struct RowPrinter<Sink: ByteSink> {
    /// The output form: JSON Lines or CSV.
    public enum Format: String, Sendable, CaseIterable {
        /// JSON Lines: one JSON object per row.
        case jsonl
        /// RFC 4180 CSV (`writeHeader()` writes the column names).
        case csv
    }

    /// The writer of the output (its sink is the output).
    public var writer: JSONWriter<Sink>
    /// The output form.
    public let format: Format
    @usableFromInline let columns: [FieldDescriptor]
    let columnNames: [String]
    /// What goes before each column's value in a JSON line: `, ` (but first), the name as a JSON
    /// string, `: ` — made once, not escaped again for every value.
    @usableFromInline let jsonKeys: [[UInt8]]
    @usableFromInline let codePage: CodePage
    /// CSV only: a cell that a spreadsheet would take as a formula — one beginning with `=`,
    /// `+`, `-`, `@`, a tab or a carriage return — is written with `'` before it (OWASP's advice
    /// against CSV injection), and so is such a column name. A number's cell (integer, float,
    /// currency, decimal) is written as it is: `-5` stays the number. Off by default.
    public var formulaSafe = false

    /// A printer of rows with `columns` into `sink`, 8-bit text decoded with `codePage`.
    public init(sink: Sink, columns: [FieldDescriptor], codePage: CodePage, format: Format) {
        self.writer = JSONWriter(sink: sink)
        self.format = format
        self.columns = columns
        self.codePage = codePage
        self.columnNames = columns.map { codePage.decodeForDisplay($0.name) }
        self.jsonKeys = columnNames.enumerated().map { i, name in
            var key: [UInt8] = i > 0 ? Array(", ".utf8) : []
            JSONEmit.appendString(name, to: &key)
            key += ": ".utf8
            return key
        }
    }

    /// The CSV header row (nothing for JSON Lines).
    public mutating func writeHeader() {
        guard format == .csv else { return }
        for (i, name) in columnNames.enumerated() {
            if i > 0 { writer.writeByte(UInt8(ascii: ",")) }
            writeCSVField(name, guarded: formulaSafe)
        }
        writer.writeRaw("\r\n")
    }

    /// Writes one row (one line). Inlinable: specialized for the caller's sink (a generic printer
    /// looked its writer's type up again for every value).
    @inlinable
    public mutating func write(_ row: Row) {
        switch format {
        case .jsonl:
            writer.writeByte(UInt8(ascii: "{"))
            for (i, value) in row.enumerated() where i < columns.count {
                writer.writeRaw(jsonKeys[i])
                writeJSONValue(value, type: columns[i].type)
            }
            writer.writeRaw("}\n" as StaticString)
        case .csv:
            for (i, value) in row.enumerated() where i < columns.count {
                if i > 0 { writer.writeByte(UInt8(ascii: ",")) }
                if let value { writeCSVField(plainText(value), guarded: formulaSafe && !Self.isNumber(value)) }
            }
            writer.writeRaw("\r\n")
        }
    }

    /// Flushes what is buffered to the sink.
    public mutating func finish() throws { try writer.flush() }

    @inlinable
    mutating func writeJSONValue(_ value: Value?, type: DataType) {
        guard let value else { writer.writeNull(); return }
        switch value {
        case .integer(let i): writer.writeInt(i)
        case .largeUInt(let u): writer.writeUInt(u)
        case .boolean(let b): writer.writeBool(b != 0)
        case .float(let f):
            if f.isFinite { writer.writeDouble(f) } else { writer.writeString(Self.special(f)) }
        case .singleFloat(let f):
            if f.isFinite { writer.writeFloat(f) } else { writer.writeString(Self.special(Double(f))) }
        case .ansiString(let s) where codePage.isUTF8:
            // Valid UTF-8 is its own display text: escaped from the bytes, no String made.
            let written = s.withUnsafeBufferPointer { bytes -> Bool in
                guard UTF8Validation.isValid(bytes) else { return false }
                JSONEmit.appendEscaped(bytes, to: &writer.buffer)
                return true
            }
            if written { writer.drainIfFull() } else { writer.writeString(plainText(value)) }
        case .wideString, .currency, .decimal: writeFromBytes(value)
        case .dateTime(let d):
            // ISO text is plain ASCII: written as it is made, between quotes.
            let written = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: OLEDateTime.isoTextLength + 2) { room -> Bool in
                guard d.writeISOText(to: room.baseAddress! + 1) else { return false }
                room[0] = UInt8(ascii: "\"")
                room[OLEDateTime.isoTextLength + 1] = UInt8(ascii: "\"")
                writer.writeRaw(UnsafeRawBufferPointer(room))
                return true
            }
            if !written { writer.writeString(plainText(value)) }
        default: writer.writeString(plainText(value))
        }
    }

    /// UTF-16 text, Currency and Decimal written from their bytes, no String made: well-formed
    /// UTF-16 made UTF-8 and escaped (as `WideText.decode` makes it; other text through its
    /// display text); a decimal's digits, '-' and '.' (its `description`) between quotes.
    /// (Not inlinable: `WideText` is the package's.)
    @usableFromInline
    mutating func writeFromBytes(_ value: Value) {
        switch value {
        case .wideString(let s):
            let written = s.withUnsafeBufferPointer { utf16 -> Bool in
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: utf16.count / 2 * 3 + 1) { room -> Bool in
                    guard let count = WideText.utf8(fromUTF16LE: utf16, to: room.baseAddress!) else { return false }
                    JSONEmit.appendEscaped(UnsafeBufferPointer(start: room.baseAddress!, count: count), to: &writer.buffer)
                    return true
                }
            }
            if written { writer.drainIfFull() } else { writer.writeString(plainText(value)) }
        default:
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: DecimalText.longest + 2) { room in
                room[0] = UInt8(ascii: "\"")
                guard let count = DecimalText.write(value, to: room.baseAddress! + 1) else {
                    return writer.writeString(plainText(value))
                }
                room[count + 1] = UInt8(ascii: "\"")
                writer.writeRaw(UnsafeRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(room)[..<(count + 2)]))
            }
        }
    }

    /// The value as the text the contract prescribes.
    public func plainText(_ value: Value) -> String { Self.plainText(value, codePage: codePage) }

    /// The value as the text the contract prescribes, 8-bit text read in `codePage`.
    public static func plainText(_ value: Value, codePage: CodePage) -> String {
        switch value {
        case .ansiString(let s): return codePage.decodeForDisplay(s)
        case .wideString(let s): return WideText.decode(s) ?? WideText.decodeForDisplay(s)
        case .guid(let s): return String(decoding: s.bytes, as: UTF8.self)
        case .blob(let s): return Base64.encode(s.bytes)
        case .integer(let i): return String(i)
        case .largeUInt(let u): return String(u)
        case .boolean(let b): return b != 0 ? "true" : "false"
        case .currency(let c): return c.description
        case .decimal(let d): return d.description
        case .float(let f): return f.isFinite ? Self.shortest(f) : Self.special(f)
        case .singleFloat(let f): return f.isFinite ? f.description : Self.special(Double(f))
        case .dateTime(let d): return d.isoText ?? (d.value.isFinite ? Self.shortest(d.value) : Self.special(d.value))
        }
    }

    @usableFromInline
    static func special(_ value: Double) -> String {
        value.isNaN ? "NaN" : (value < 0 ? "-Infinity" : "Infinity")
    }

    static func shortest(_ value: Double) -> String {
        var sink = ArraySink()
        var w = JSONWriter(sink: sink)
        w.writeDouble(value)
        try? w.flush()
        sink = w.sink
        return String(decoding: sink.bytes, as: UTF8.self)
    }

    /// True for a value written as a number (a finite one: `-Infinity` is text to a spreadsheet).
    @usableFromInline
    static func isNumber(_ value: Value) -> Bool {
        switch value {
        case .integer, .largeUInt, .currency, .decimal: return true
        case .float(let f): return f.isFinite
        case .singleFloat(let f): return f.isFinite
        default: return false
        }
    }

    /// `text` as one CSV field (RFC 4180: quoted when it holds a comma, a quote or a line break);
    /// `guarded`: with `'` first when it begins as a formula does (`formulaSafe`).
    @usableFromInline
    mutating func writeCSVField(_ text: String, guarded: Bool = false) {
        if guarded, let first = text.utf8.first, Self.formulaStarts.contains(first) {
            return writeCSVField("'" + text)
        }
        let needsQuotes = text.utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 10 || $0 == 13 }
        if needsQuotes {
            writer.writeRaw("\"" + text.replacingAll("\"", with: "\"\"") + "\"")
        } else {
            writer.writeRaw(text)
        }
    }
}

extension RowPrinter {
    /// The first bytes of a cell that spreadsheets run as a formula: `=`, `+`, `-`, `@`, tab, CR.
    @usableFromInline
    static var formulaStarts: [UInt8] { [0x3D, 0x2B, 0x2D, 0x40, 0x09, 0x0D] }
}

extension RowPrinter where Sink == ArraySink {
    /// One row as the text of its line, without the line end (`write(_:)` into memory, then
    /// emptied): what the SQLite mapping stores for a change's values. Compiled here for
    /// `ArraySink`, so that a caller in another module does not run the generic printer, which
    /// looked its types up again for every value (a fifth of → sqlite on delta-heavy data).
    public mutating func line(_ row: Row) -> String {
        withLine(row) { String(decoding: $0, as: UTF8.self) }
    }

    /// `line(_:)` without making a string of it: `body` gets the line's bytes, which are the
    /// printer's until it returns.
    public mutating func withLine<R, E: Error>(_ row: Row, _ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        write(row)
        try? finish()
        defer { writer.sink.bytes.removeAll(keepingCapacity: true) }
        let count = writer.sink.bytes.count
        let end = count > 0 && writer.sink.bytes[count - 1] == 10 ? count - 1 : count
        return try writer.sink.bytes.withUnsafeBufferPointer { (bytes) throws(E) -> R in try body(UnsafeBufferPointer(rebasing: bytes[..<end])) }
    }
}

extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        result.reserveCapacity(utf8.count)
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}

/// UTF-16LE text shown to people.
extension WideText {
    /// Lossy decoding for display (unpaired surrogates and a trailing odd byte become U+FFFD).
    public static func decodeForDisplay(_ string: ByteString) -> String {
        var units: [UInt16] = []
        var i = string.bytes.startIndex
        while i + 1 < string.bytes.endIndex {
            units.append(UInt16(string.bytes[i]) | UInt16(string.bytes[i + 1]) << 8)
            i += 2
        }
        var text = String(decoding: units, as: UTF16.self)
        if string.count % 2 == 1 { text.append("\u{FFFD}") }
        return text
    }
}
