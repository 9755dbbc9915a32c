/// The code page chosen for a file's 8-bit strings, and why (one sentence, for reports).
import JSONCore

/// A detected code page and why it was chosen.
public struct CodePageDetection: Sendable {
    /// The code page chosen.
    public let codePage: CodePage
    /// Why, in words (for a note to the user).
    public let reason: String
    /// When the choice is a guess, what might be better (e.g. "looks like GBK; try --encoding gbk").
    public let hint: String?

    /// A detection of `codePage` for `reason`, with an optional hint for when it is wrong.
    public init(codePage: CodePage, reason: String, hint: String? = nil) {
        self.codePage = codePage
        self.reason = reason
        self.hint = hint
    }
}

extension CodePage {
    /// Candidate legacy code pages tried in order.
    public static let detectionCandidates: [CodePage] = [
        "gbk", "big5", "shift_jis", "euc-kr", "windows-1251", "windows-1250", "windows-1253", "windows-1254",
        "windows-1255", "windows-1256", "windows-1257", "windows-1258", "windows-1252",
    ].map(CodePage.init(known:))

    /// The code page of the file's 8-bit strings (see `detect(in:properties:)`).
    public static func detect(in file: BriefcaseFile) -> CodePageDetection {
        detect(in: file.stream, properties: file.properties)
    }

    /// The code page of the 8-bit strings of `stream` and `properties`:
    ///
    /// 1. UTF-8 when every 8-bit string is valid UTF-8.
    /// 2. Otherwise what the file reveals: schema `Name` property values are UTF-8 while the row
    ///    descriptors carry the same names (field i ↔ descriptor i) in the writer's code page. The
    ///    first candidate (`detectionCandidates`) under which every pair with a non-ASCII descriptor
    ///    name agrees (at least one such pair) and which decodes every 8-bit string of the file wins.
    /// 3. Otherwise windows-1252.
    public static func detect(in stream: Bin2Stream, properties: [BriefcaseProperty] = []) -> CodePageDetection {
        func walk(_ body: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
            forEachEightBitString(in: stream, properties: properties, body)
        }

        var sawNonASCII = false
        let allUTF8 = walk { buffer in
            if ASCII.isASCII(buffer) { return true }
            sawNonASCII = true
            return UTF8Validation.isValid(buffer)
        }
        if allUTF8 {
            return CodePageDetection(codePage: .utf8, reason: sawNonASCII
                ? "all 8-bit strings are valid UTF-8"
                : "all 8-bit strings are ASCII (valid UTF-8)")
        }

        let pairs = revealingNamePairs(in: stream)
        if !pairs.isEmpty {
            for candidate in detectionCandidates {
                guard pairs.allSatisfy({ candidate.decode($0.descriptor) == $0.name }) else { continue }
                guard candidate.withDecodabilityTest(walk) else { continue }
                let checked = pairs.count == 1 ? "1 non-ASCII name checked" : "\(pairs.count) non-ASCII names checked"
                return CodePageDetection(codePage: candidate, reason:
                    "column names in the row descriptors match the schema's UTF-8 Name properties when decoded as \(candidate.name) (\(checked))")
            }
            return CodePageDetection(codePage: .windows1252, reason:
                "not UTF-8, and no candidate code page both turns the row descriptors' column names into the schema's UTF-8 Name properties and decodes every 8-bit string; assuming windows-1252",
                hint: multiByteHint(walk))
        }
        return CodePageDetection(codePage: .windows1252, reason:
            "not UTF-8 and nothing in the file reveals the code page; assuming windows-1252",
            hint: multiByteHint(walk))
    }

    /// The multi-byte candidates are strict (most random bytes are invalid in them), so one that
    /// decodes every 8-bit string of the file is a good guess to suggest.
    private static func multiByteHint(_ walk: ((UnsafeBufferPointer<UInt8>) -> Bool) -> Bool) -> String? {
        for candidate in detectionCandidates.prefix(4) where candidate.withDecodabilityTest(walk) {
            return "the 8-bit strings look like \(candidate.name.uppercased()); try --encoding \(candidate.name)"
        }
        return nil
    }

    /// (descriptor name bytes, schema Name text) for every table field whose descriptor name is
    /// not ASCII and whose schema field (same position) has a UTF-8 `Name` property.
    static func revealingNamePairs(in stream: Bin2Stream) -> [(descriptor: ByteString, name: String)] {
        let nameKey = ByteString(utf8: "Name")
        var pairs: [(descriptor: ByteString, name: String)] = []
        for table in stream.tables {
            guard let schema = table.schema else { continue }
            for (descriptor, properties) in zip(table.fields, schema.fields) where !descriptor.name.isASCII {
                guard let property = properties.first(where: { namesMatch($0.name, nameKey) }),
                      let name = property.value?.utf8String else { continue }
                pairs.append((descriptor.name, name))
            }
        }
        return pairs
    }

    /// Calls `body` with every 8-bit string: property names and values, element names, row
    /// descriptor names, schema property names (fields and parameters), `.ansiString` row values,
    /// logged field names, key field names, change messages, `.ansiString` old and new values.
    /// Stops as soon as `body` returns false, and returns false then. Each string's bytes are
    /// lent where they lie (no string copied out of a mapped file).
    static func forEachEightBitString(in stream: Bin2Stream, properties: [BriefcaseProperty],
                                      _ bytes: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        func body(_ string: ByteString) -> Bool { string.bytes.withUnsafeBufferPointer(bytes) }
        func values(_ list: [Value?]) -> Bool {
            for case .ansiString(let string)? in list where !body(string) { return false }
            return true
        }
        for property in properties {
            guard body(property.name), body(property.value) else { return false }
        }
        for element in stream.elements {
            switch element {
            case .table(let table):
                guard body(table.name) else { return false }
                for field in table.fields where !body(field.name) { return false }
                if let schema = table.schema {
                    for list in schema.fields + schema.parameters {
                        for property in list where !body(property.name) { return false }
                    }
                }
                guard forEachEightBitString(inRowsOf: table, table.rows.indices, bytes) else { return false }
            case .delta(let delta):
                guard body(delta.name) else { return false }
                for field in delta.loggedFields where !body(field.name) { return false }
                for key in delta.keyFields where !body(key) { return false }
                // Changes kept as bytes: their 8-bit strings read where they lie, no change decoded.
                let stored = withoutActuallyEscaping(bytes) { bytes in
                    delta.changes.forEachStoredEightBitString(storages: delta.loggedFields.map(\.type.storage), bytes)
                }
                if let stored {
                    guard stored else { return false }
                } else {
                    for change in delta.changes {
                        guard body(change.message), values(change.oldValues), values(change.newValues) else { return false }
                    }
                }
            }
        }
        return true
    }
}

extension CodePage {
    /// `forEachEightBitString` over the `.ansiString` values of `table`'s rows in `range` only.
    static func forEachEightBitString(inRowsOf table: Table, _ range: Range<Int>, _ bytes: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        // Rows kept as bytes: their 8-bit strings read where they lie, no row decoded.
        let allTrue = withoutActuallyEscaping(bytes) { bytes in
            var strings = EightBitStrings(body: bytes)
            return table.rows.visitStored(range, storages: table.fields.map(\.type.storage), into: &strings) ? !strings.stopped : nil
        }
        if let allTrue { return allTrue }
        for row in table.rows[range] {
            for case .ansiString(let string)? in row where !string.bytes.withUnsafeBufferPointer(bytes) { return false }
        }
        return true
    }
}

extension Changes {
    /// With changes kept as bytes read as `storages` say: hands each one's message and 8-bit
    /// values to `body` until it returns false, and returns whether it never did; else nil.
    func forEachStoredEightBitString(storages: [ValueStorage?], _ body: @escaping (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool? {
        guard case .stored(let stored, _) = storage, stored.storages == storages else { return nil }
        var strings = EightBitStrings(body: body)
        for i in 0 ..< stored.count {
            var p = stored.start(i)
            guard stored.changeHead(at: &p).message.bytes.withUnsafeBufferPointer(body) else { return false }
            stored.read(at: &p, setBitIsValue: true, into: &strings)  // old values
            stored.read(at: &p, setBitIsValue: true, into: &strings)  // new values
            if strings.stopped { return false }
        }
        return true
    }
}

/// Hands each 8-bit string of rows kept as bytes to `body`, until it returns false.
private struct EightBitStrings: RowVisitor {
    let body: (UnsafeBufferPointer<UInt8>) -> Bool
    private(set) var stopped = false

    init(body: @escaping (UnsafeBufferPointer<UInt8>) -> Bool) { self.body = body }

    func beginRow(at position: Int, fieldCount: Int) {}
    func null(_ row: inout Void) {}
    mutating func bytes(_ storage: ValueStorage, _ source: ByteSource, start: Int, count: Int, base: UnsafePointer<UInt8>, _ row: inout Void) {
        guard storage == .ansiString, !stopped else { return }
        stopped = !body(UnsafeBufferPointer(start: base + start, count: count))
    }
    func scalar(_ value: Value, _ row: inout Void) {}
    func decimal(low: UInt32, mid: UInt32, high: UInt32, flags: UInt32, _ row: inout Void) {}
    func endRow(_ row: consuming Void) {}
    func checkedRow(_ values: [Value?], at position: Int) {}
}
