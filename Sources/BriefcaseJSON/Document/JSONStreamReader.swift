import JSONCore
import BriefcaseKit

/// Reads the lossless JSON document (Spec/json-format.md, "Streaming reader") from contiguous
/// bytes element by element, building each table's rows straight from the bytes: only one
/// element's model is alive at a time, and there is no `JSONValue` tree of the rows.
///
/// It accepts and refuses exactly what `JSONDocumentDecoder` does, because every part that is not
/// a plain row goes through that decoder's code: the small members (head, schema, fields,
/// changes) are parsed into `JSONValue`s and read by `ValueReader`; a row the fast path does not
/// take as is (an escape, a fallback object, an error) is parsed again as a `JSONValue` and read
/// by `ValueReader`, which gives its message; and a document whose structure surprises the reader
/// (bad JSON between elements, `elements` before the `format`…`encoding` keys, a top level that is
/// not an object) is read whole by `JSONDocumentDecoder` itself.
public struct JSONStreamReader {
    let buf: UnsafeBufferPointer<UInt8>
    let end: Int
    var i = 0
    /// Called after each element with the offset where it ends: nothing before it is read again,
    /// unless the consumer's `begin` comes a second time.
    public var consumed: ((Int) -> Void)?
    /// Elements parsed at once, on worker threads ahead of the sink (`ElementsParsedAhead`),
    /// which still takes them on the caller's thread in document order: the same calls, bytes and
    /// errors as with 1, the default (no thread: a library does not take the cores unasked).
    public var jobs = 1
    /// Called with stretches of the document read through and not needed again: a table's rows,
    /// 8 MiB at a time as they are read; with `jobs` above 1 also those the scan for the
    /// elements' starts read, before any is parsed, and each element a worker thread parsed
    /// ahead. A caller that maps the document may let those pages go (`MappedFile.release(_:)`),
    /// so that neither the scan nor a large table's rows hold them. Called from several threads.
    /// (Were such bytes read again — a restart — they would be read back from the file.)
    public var scanned: (@Sendable (Range<Int>) -> Void)?
    /// How much of a table's rows is read between two calls of `scanned`.
    static let releaseStretch = 1 << 23

    /// `bytes` must stay valid while the reader runs.
    public init(_ bytes: UnsafeRawBufferPointer) {
        buf = bytes.assumingMemoryBound(to: UInt8.self)
        end = buf.count
    }

    /// Reads the document into `sink`: its head, its elements, the end. A head that is complete
    /// only after the elements (a key after `elements`), or a structure read whole, makes the
    /// reader `abandon` what it gave and `begin` again. On an error the sink is abandoned; the
    /// error has both the JSON path and the byte offset.
    public mutating func read<S: BriefcaseSink>(into sink: inout S) throws(BriefcaseError) {
        var restarting = Restarting(sink: sink)
        do {
            if try !readStreaming(into: &restarting) {
                try readWhole(into: &restarting)
            }
            sink = restarting.sink
            try sink.finish()
        } catch {
            sink = restarting.sink
            sink.abandon()
            throw error.locatedInJSON(buf)
        }
    }

    /// A sink that is abandoned before a second `begin`.
    struct Restarting<S: BriefcaseSink> {
        var sink: S
        var begun = false

        mutating func begin(_ head: BriefcaseHead) throws(BriefcaseError) {
            if begun { sink.abandon() }
            begun = true
            try sink.begin(head)
        }

        mutating func element(_ element: Element) throws(BriefcaseError) {
            try sink.element(element)
        }
    }

    /// False when the structure is not what the streaming path handles (the caller then reads
    /// the document whole, which gives the error, if there is one).
    private mutating func readStreaming<S: BriefcaseSink>(into consumer: inout Restarting<S>) throws(BriefcaseError) -> Bool {
        i = 0
        skipWhitespace()
        var members: [(key: String, value: JSONValue)] = []
        var elementsOffset: Int?
        var begun: JSONDocumentHead?
        let streamed = try forEachMember(depth: 1) { (this, key) throws(BriefcaseError) -> Bool in
            if key == "elements" {
                elementsOffset = this.i
                if let head = try this.partialHead(members) {
                    try consumer.begin(head)
                    begun = head
                    return try this.streamElements(head, into: &consumer)
                }
                this.i = try this.parseValue(depth: 1).end
            } else {
                let (value, next) = try this.parseValue(depth: 1)
                members.append((key, value))
                this.i = next
            }
            return true
        }
        guard streamed else { return false }
        skipWhitespace()
        guard i == end, let elementsOffset else { return false }
        let head = try JSONDocumentDecoder.head(ObjectNode(object: JSONObject(members), path: "$"))
        if begun != head {
            // The head was not complete before `elements` (a key came after it): start over.
            try consumer.begin(head)
            i = elementsOffset
            guard try streamElements(head, into: &consumer) else { return false }
        }
        try head.checkContainer()
        return true
    }

    /// The head, when the members before `elements` hold the four keys it needs.
    private func partialHead(_ members: [(key: String, value: JSONValue)]) throws(BriefcaseError) -> JSONDocumentHead? {
        for key in ["format", "version", "container", "encoding"] where !members.contains(where: { $0.key == key }) {
            return nil
        }
        return try JSONDocumentDecoder.head(ObjectNode(object: JSONObject(members), path: "$"))
    }

    /// The whole document as a `JSONValue` tree, read by `ValueReader` (the same code as the
    /// streaming path's small parts, so the same checks and messages).
    private mutating func readWhole<S: BriefcaseSink>(into consumer: inout Restarting<S>) throws(BriefcaseError) {
        let root: JSONValue
        do {
            root = try JSONParser.parse(UnsafeRawBufferPointer(buf))
        } catch {
            throw error.briefcaseError
        }
        let top = try Node(root, "$").object()
        let head = try JSONDocumentDecoder.head(top)
        let elements = try top.member("elements").array()
        try consumer.begin(head)
        let reader = ValueReader(codePage: head.codePage)
        for element in elements {
            try consumer.element(try reader.element(element))
        }
        try head.checkContainer()
        consumed?(end)
    }

    // MARK: elements

    /// `elements` at `i`; false on a structure to be read whole.
    private mutating func streamElements<S: BriefcaseSink>(_ head: JSONDocumentHead, into consumer: inout Restarting<S>) throws(BriefcaseError) -> Bool {
        let reader = ValueReader(codePage: head.codePage)
        // With workers, they also do the sink's own work on each element (a binary writer's encoding).
        let ahead = jobs > 1 ? ElementsParsedAhead(buf, array: i, reader: reader, jobs: jobs, preparation: consumer.sink.elementPreparation(),
                                                   scanned: scanned) : nil
        defer { ahead?.stop() }
        return try forEachItem { (this, index) throws(BriefcaseError) in
            if let parsed = try ahead?.take(index, at: this.i) {
                if let prepared = parsed.prepared {
                    try consumer.sink.element(parsed.element, prepared: prepared, at: index)
                } else {
                    try consumer.element(parsed.element)
                }
                this.i = parsed.end
            } else {
                try consumer.element(try this.element(index, reader))
            }
            this.consumed?(this.i)
        }
    }

    /// Element `index`, at `i`. Its rows (or changes) are read as they come when `kind` and the
    /// fields (or logged fields) come before them, as the writer puts them; otherwise the element
    /// is parsed as a `JSONValue` and read by `ValueReader`.
    mutating func element(_ index: Int, _ reader: ValueReader) throws(BriefcaseError) -> Element {
        let start = i
        let path = "$.elements[\(index)]"
        var members: [(key: String, value: JSONValue)] = []
        var rows: Rows?
        var changes: [DeltaChange]?
        func first(_ key: String) -> JSONValue? { members.first { $0.key == key }?.value }
        let streamed = try forEachMember(depth: 3) { (this, key) throws(BriefcaseError) -> Bool in
            let kind = first("kind")?.stringValue
            if key == "rows" && kind == "table" {
                guard let fields = first("fields") else { return false }
                let types = try reader.fieldDescriptors(Node(fields, path + ".fields")).map(\.type)
                rows = try this.rows(types, path + ".rows", reader)
                return rows != nil
            } else if key == "changes" && kind == "delta" {
                guard let logged = first("loggedFields") else { return false }
                let types = try reader.loggedFields(Node(logged, path + ".loggedFields")).map(\.type)
                changes = try this.changes(types, path + ".changes", reader)
                return changes != nil
            } else if (key == "rows" || key == "changes") && kind == nil {
                return false
            }
            let (value, next) = try this.parseValue(depth: 3)
            members.append((key, value))
            this.i = next
            return true
        }
        guard streamed else { return try wholeElement(start, path, reader) }
        if let rows {
            var head = JSONObject(members.filter { $0.key != "rows" })
            head.append(key: "rows", value: .array([]))
            var table = try reader.table(ObjectNode(object: head, path: path))
            table.rows = rows
            return .table(table)
        }
        if let changes {
            var head = JSONObject(members.filter { $0.key != "changes" })
            head.append(key: "changes", value: .array([]))
            var delta = try reader.deltaHead(ObjectNode(object: head, path: path))
            if delta.layout == .countOnly, !changes.isEmpty {
                throw BriefcaseError(.invalidData, "\(path).changes: a countOnly delta has no changes")
            }
            delta.changes = Changes(changes)
            return .delta(ValueReader.normalizedLayout(delta))
        }
        return try reader.element(Node(.object(JSONObject(members)), path))
    }

    /// The element at `start` parsed as a `JSONValue` and read by `ValueReader`.
    private mutating func wholeElement(_ start: Int, _ path: String, _ reader: ValueReader) throws(BriefcaseError) -> Element {
        i = start
        let (value, next) = try parseValue(depth: 2)
        i = next
        return try reader.element(Node(value, path))
    }

    /// A table's `rows` at `i`, or nil when it is not an array or its structure is off.
    /// Rows in their plain form go straight into Bin2 row bytes (`StoredRowsBuilder`: the rows
    /// a decoded table keeps), which the Bin2 writer copies; no `Value` is made of them.
    private mutating func rows(_ types: [DataType], _ path: String, _ reader: ValueReader) throws(BriefcaseError) -> Rows? {
        let row = RowReader(types: types, codePage: reader.codePage)
        let rows = StoredRowsBuilder(storages: row.storages)
        // The text of the rows read is not read again: its pages may go as the reading passes
        // (`scanned`), so that a large table's text is not held beside its rows' bytes.
        var passed = i
        let streamed = try forEachItem { (this, index) throws(BriefcaseError) in
            if this.i - passed >= Self.releaseStretch {
                this.scanned?(passed ..< this.i)
                passed = this.i
            }
            let start = this.i
            if !row.read(this.buf, &this.i, into: rows) {
                // Not the plain form: the decoder's own reading of this row (or its message).
                this.i = start
                let (value, next) = try this.parseValue(depth: 4)
                rows.append(try reader.values(Node(value, "\(path)[\(index)]"), types))
                this.i = next
            }
        }
        return streamed ? rows.rows() : nil
    }

    /// A delta's `changes` at `i`: each in its plain form straight from the bytes (`RowReader`),
    /// else parsed as a `JSONValue` and read by `ValueReader`.
    private mutating func changes(_ types: [DataType], _ path: String, _ reader: ValueReader) throws(BriefcaseError) -> [DeltaChange]? {
        var changes: [DeltaChange] = []
        let plain = RowReader(types: types, codePage: reader.codePage)
        let streamed = try forEachItem { (this, index) throws(BriefcaseError) in
            let start = this.i
            if let change = plain.change(this.buf, &this.i) {
                changes.append(change)
                return
            }
            this.i = start
            let (value, next) = try this.parseValue(depth: 4)
            changes.append(try reader.change(Node(value, "\(path)[\(index)]").object(), types: types))
            this.i = next
        }
        return streamed ? changes : nil
    }

    // MARK: structure

    /// The object at `i`, member by member (a key given twice is refused): `member` reads the
    /// value of `key` at `i` and leaves `i` after it, or returns false for a structure to be read
    /// whole. False also when there is no object at `i`, it is empty, or its punctuation is off.
    @inline(__always)
    private mutating func forEachMember(depth: Int,
                                        _ member: (inout JSONStreamReader, String) throws(BriefcaseError) -> Bool) throws(BriefcaseError) -> Bool {
        guard at(.openBrace) else { return false }
        i += 1
        skipWhitespace()
        guard !at(.closeBrace) else { return false }
        var keys = UniqueKeys()
        while true {
            let keyOffset = i
            guard let key = try key(depth: depth) else { return false }
            try keys.insert(key, at: keyOffset)
            skipWhitespace()
            guard try member(&self, key) else { return false }
            skipWhitespace()
            if at(.comma) { i += 1; skipWhitespace(); continue }
            guard at(.closeBrace) else { return false }
            i += 1
            return true
        }
    }

    /// The array at `i`, item by item: `item` reads item `index` at `i` and leaves `i` after it.
    /// False when there is no array at `i` or its punctuation is off.
    @inline(__always)
    private mutating func forEachItem(_ item: (inout JSONStreamReader, Int) throws(BriefcaseError) -> Void) throws(BriefcaseError) -> Bool {
        guard at(.openBracket) else { return false }
        i += 1
        skipWhitespace()
        if at(.closeBracket) { i += 1; return true }
        var index = 0
        while true {
            skipWhitespace()
            try item(&self, index)
            index += 1
            skipWhitespace()
            if at(.comma) { i += 1; continue }
            guard at(.closeBracket) else { return false }
            i += 1
            return true
        }
    }

    // MARK: tokens

    /// `"key"` and `:` at `i`; nil when there is no `:` after a string.
    private mutating func key(depth: Int) throws(BriefcaseError) -> String? {
        guard at(.quote) else { return nil }
        let (value, next) = try parseValue(depth: depth)
        guard case .string(let key) = value else { return nil }
        i = next
        skipWhitespace()
        guard at(.colon) else { return nil }
        i += 1
        return key
    }

    /// The value at `i` (inside `depth` open containers), by `JSONParser`.
    private func parseValue(depth: Int) throws(BriefcaseError) -> (value: JSONValue, end: Int) {
        do {
            return try JSONParser.parseValue(buf, at: i, depth: depth)
        } catch {
            throw error.briefcaseError
        }
    }

    @inline(__always)
    private func at(_ byte: UInt8) -> Bool { i < end && buf[i] == byte }

    @inline(__always)
    private mutating func skipWhitespace() {
        while i < end {
            switch buf[i] {
            case 0x20, 0x0A, 0x0D, 0x09: i &+= 1
            default: return
            }
        }
    }
}

/// The keys of one object as the reader goes through it: a key given twice is refused, as
/// `JSONParser` refuses it, at its second occurrence.
struct UniqueKeys {
    private var seen: Set<String> = []

    mutating func insert(_ key: String, at offset: Int) throws(BriefcaseError) {
        guard seen.insert(key).inserted else {
            throw JSONParseError.duplicateKey(key, at: offset).briefcaseError
        }
    }
}

extension UInt8 {
    static let openBrace = UInt8(ascii: "{"), closeBrace = UInt8(ascii: "}")
    static let openBracket = UInt8(ascii: "["), closeBracket = UInt8(ascii: "]")
    static let comma = UInt8(ascii: ","), colon = UInt8(ascii: ":"), quote = UInt8(ascii: "\"")
}
