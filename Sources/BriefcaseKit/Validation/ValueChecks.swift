import JSONCore

/// An element of a binary briefcase as `validate` reads it, in the decoder's one pass: a table's
/// head and only the rows whose values a check may find wrong (not the model of every row), or a
/// delta; and what its 8-bit values say about the code page.
struct CheckedElement: Sendable {
    enum Body: Sendable {
        /// The table without rows, and its rows that need a look, in row order.
        case table(Table, flagged: [FlaggedRow])
        /// The delta without changes, how many it has, and those that need a look, in order.
        case delta(Delta, changeCount: Int, flagged: [FlaggedChange])
    }

    /// A change whose codes and values `ValidationRun.checkChange` looks at: one with a code
    /// outside 0–2, a value the checks may find wrong, or values the checking reader read.
    struct FlaggedChange: Sendable {
        var index: Int
        /// The file offset of its first byte.
        var start: Int
        var change: DeltaChange
    }

    /// A row whose values `ValidationRun.checkRow` looks at: one with a value that the checks may
    /// find wrong, or one the checking reader read (set padding bits).
    struct FlaggedRow: Sendable {
        var index: Int
        /// The file offset of its first byte.
        var start: Int
        var values: Row
    }

    var body: Body
    /// Whether every 8-bit string among the values (rows, changes) is valid UTF-8.
    var valuesValidUTF8: Bool
    /// The first of them that is not ASCII.
    var nonASCII: ByteString?
}

/// `validate`'s reading of an element (`ElementReading`): the rows go through the decoder's row
/// reader into `ValueChecks`, which keeps nothing of a row whose values are plainly fine.
struct CheckedReading: ElementReading {
    /// Heads are detached; only flagged rows (rare) share the bytes, and copy-on-write keeps
    /// those safe when the worker reads its next element into the same memory.
    static var productSharesBytes: Bool { false }
    func read(_ decoder: inout Bin2Decoder, _ entry: ElementIndex.Entry, positionBase: Int) throws(BriefcaseError) -> CheckedElement {
        try decoder.readElement(entry) { (decoder: inout Bin2Decoder, reader: inout ByteReader) throws(BriefcaseError) -> CheckedElement in
            switch entry.kind {
            case .table:
                let head = try decoder.decodeTableHead(&reader, name: entry.name, positionBase: positionBase)
                var checks = ValueChecks()
                try decoder.decodeRows(&reader, head: head, into: &checks)
                var flagged: [CheckedElement.FlaggedRow] = []
                flagged.reserveCapacity(checks.flagged.count)
                for row in checks.flagged {
                    // A row read straight from the buffer: its values, read again (it read cleanly).
                    let values: Row
                    if let checked = row.values {
                        values = checked
                    } else {
                        var again = ByteReader(source: decoder.source, base: decoder.base, readerIndex: row.position + decoder.base,
                                               endIndex: reader.endIndex)
                        var scratch = Bin2Decoder(source: decoder.source, base: decoder.base)
                        values = try scratch.decodeValues(&again, head.fields, setBitIsValue: false, mask: "NULL mask", element: entry.name)
                    }
                    flagged.append(CheckedElement.FlaggedRow(index: row.index, start: row.position + decoder.base, values: values))
                }
                return CheckedElement(body: .table(head.table.detachedHead, flagged: flagged), valuesValidUTF8: checks.strings.valid,
                                      nonASCII: checks.strings.nonASCII?.detached)
            case .delta:
                let (delta, changeCount) = try decoder.decodeDeltaHead(&reader, name: entry.name)
                let fields = delta.loggedFields, storages = fields.map(\.type.storage)
                var checks = ValueChecks()
                var flagged: [CheckedElement.FlaggedChange] = []
                try decoder.decodeChanges(&reader, count: changeCount) {
                    (decoder: inout Bin2Decoder, reader: inout ByteReader, index: Int) throws(BriefcaseError) in
                    let start = reader.readerIndex
                    let head = try decoder.decodeChangeHead(&reader)
                    checks.note(head.message)
                    try decoder.readChangeValues(&reader, fields, storages: storages, mask: "old-value mask", element: entry.name, into: &checks)
                    try decoder.readChangeValues(&reader, fields, storages: storages, mask: "new-value mask", element: entry.name, into: &checks)
                    guard checks.takeFlagged() || !head.type.isKnown || !head.status.isKnown else { return }
                    // The change again, into the model (it read cleanly).
                    var again = ByteReader(source: decoder.source, base: decoder.base, readerIndex: start, endIndex: reader.endIndex)
                    var scratch = Bin2Decoder(source: decoder.source, base: decoder.base)
                    let change = try scratch.decodeChange(&again, loggedFields: fields, storages: storages, element: entry.name)
                    flagged.append(CheckedElement.FlaggedChange(index: index, start: start, change: change))
                }
                return CheckedElement(body: .delta(delta.detachedHead, changeCount: changeCount, flagged: flagged),
                                      valuesValidUTF8: checks.strings.valid, nonASCII: checks.strings.nonASCII?.detached)
            }
        }
    }
}

/// What the 8-bit strings of values say about the code page (`CodePage.detect`'s first step):
/// all valid UTF-8 or not, and one that is not ASCII.
struct EightBitValues {
    var valid = true
    var nonASCII: ByteString?

    mutating func note(_ string: ByteString) {
        guard valid else { return }  // (the code page is then detected by a pass of its own)
        string.bytes.withUnsafeBufferPointer { buffer in note(buffer) { string } }
    }

    @inline(__always)
    mutating func note(_ buffer: UnsafeBufferPointer<UInt8>, _ string: () -> ByteString) {
        if noteKeepsString(buffer) { nonASCII = string() }
    }

    /// Notes the string in `buffer`; true when it is the first that is not ASCII, which the
    /// caller then keeps as `nonASCII`.
    @inline(__always)
    mutating func noteKeepsString(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        guard valid, !ASCII.isASCII(buffer) else { return false }
        valid = UTF8Validation.isValid(buffer)
        return nonASCII == nil
    }
}

/// The rows of a table as `validate` looks at them, straight from the decoder's row reader: each
/// value is tested for what the value checks report (`ValidationRun.checkValue`), without making
/// a `Value` of it; a row with a value that may be wrong is flagged, and only flagged rows are
/// read into the model and checked (in the order of the rows). A row the checking reader read is
/// flagged as well.
struct ValueChecks: RowVisitor {
    /// `values` nil: read straight from the buffer, at index `position` of it.
    struct Flagged {
        var index: Int
        var position: Int
        var values: Row?
    }

    private(set) var flagged: [Flagged] = []
    private(set) var strings = EightBitValues()
    private var rowIndex = 0
    /// The state of a row: where it starts, and whether a value of it may be wrong.
    struct RowState {
        var start: Int
        var suspicious = false
    }

    @inline(__always) func beginRow(at position: Int, fieldCount: Int) -> RowState { RowState(start: position) }

    @inline(__always) func null(_ row: inout RowState) {}

    @inline(__always)
    mutating func bytes(_ storage: ValueStorage, _ source: ByteSource, start: Int, count: Int, base: UnsafePointer<UInt8>,
                        _ row: inout RowState) {
        switch storage {
        case .ansiString:
            if strings.noteKeepsString(UnsafeBufferPointer(start: base + start, count: count)) {
                strings.nonASCII = source.byteString(start ..< start + count)
            }
        case .wideString:
            // (Surrogates are rare, and most are paired: only then the exact look.)
            if ValidationRun.mayHaveWideTextProblem(base + start, count: count),
               ValidationRun.wideTextProblem(UnsafeBufferPointer(start: base + start, count: count)) != nil {
                row.suspicious = true
            }
        case .guid:
            if count != 36 || !ValidationRun.isGUIDText(base + start) { row.suspicious = true }
        default:
            break
        }
    }

    @inline(__always) func scalar(_ value: Value, _ row: inout RowState) {
        if case .dateTime(let date) = value, !date.value.isFinite { row.suspicious = true }
    }

    @inline(__always) func decimal(low: UInt32, mid: UInt32, high: UInt32, flags: UInt32, _ row: inout RowState) {
        if ValidationRun.decimalHasProblem(flags: flags) { row.suspicious = true }
    }

    @inline(__always) mutating func endRow(_ row: consuming RowState) {
        if row.suspicious { flagged.append(Flagged(index: rowIndex, position: row.start, values: nil)) }
        rowIndex += 1
    }

    /// An 8-bit string besides the values (a change's message).
    mutating func note(_ string: ByteString) { strings.note(string) }

    /// Whether a row was flagged since the last call (forgetting it: the changes of a delta
    /// are read record by record).
    mutating func takeFlagged() -> Bool {
        defer { flagged.removeAll(keepingCapacity: true) }
        return !flagged.isEmpty
    }

    mutating func checkedRow(_ values: [Value?], at position: Int) {
        flagged.append(Flagged(index: rowIndex, position: position, values: values))
        for case .ansiString(let string)? in values { strings.note(string) }
        rowIndex += 1
    }
}

// What `validate` keeps of an element to the end (its head) is copied out of the buffer the
// element was read into: a slice would keep the whole buffer alive, so that memory would hold
// every element read instead of one (and the buffer could not be reused for the next).

extension ByteString {
    /// The bytes in an array of their own.
    var detached: ByteString { ByteString(Array(bytes)) }
}

extension Table {
    /// The head (no rows), detached from the buffer it was read from.
    var detachedHead: Table {
        func detach(_ lists: [[SchemaProperty]]) -> [[SchemaProperty]] {
            lists.map { $0.map { SchemaProperty(name: $0.name.detached, value: $0.value?.detached) } }
        }
        var head = self
        head.rows = []
        head.name = name.detached
        head.fields = fields.map { FieldDescriptor(name: $0.name.detached, type: $0.type, size: $0.size) }
        head.schema = schema.map { schema in
            var detached = schema
            detached.fields = detach(schema.fields)
            detached.parameters = detach(schema.parameters)
            return detached
        }
        return head
    }
}

extension Element {
    /// The head (no rows or changes), detached from the buffer it was read from.
    var detachedHead: Element {
        switch self {
        case .table(let table): return .table(table.detachedHead)
        case .delta(let delta): return .delta(delta.detachedHead)
        }
    }
}

extension Delta {
    /// The head (no changes), detached from the buffer it was read from.
    var detachedHead: Delta {
        var head = self
        head.changes = []
        head.name = name.detached
        head.loggedFields = loggedFields.map { LoggedField(name: $0.name.detached, type: $0.type) }
        head.keyFields = keyFields.map(\.detached)
        return head
    }
}
