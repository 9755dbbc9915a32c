// The rows of a snapshot document this tool wrote, read straight from its bytes
// (Spec/datastore-mapping.md §6, "Reading a document this tool wrote").
//
// The export writes the rows of each table element in the order the `briefcase` member lists
// them. When a document still has them so, each table's rows are read from the bytes as its
// element comes — no tree of the rows, no records, no lookup by id — with the same mapping
// (`ValueMapping.reverse`) and exact forms (`Restorer.apply`) as the reading of the whole
// document. Whatever the rows hold beyond that (another order, a field no column takes, a value
// its column cannot hold, a list, an escape in a key), the document is read whole instead: that
// reading gives the answer, or the error, so both ways give the same briefcase.

import JSONCore
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit

extension SnapshotImport {
    /// The import of a document whose rows can be read from its bytes; nil for any other
    /// (`init(parsing:)` then reads it whole).
    package static func readingRowsFromBytes(_ bytes: [UInt8]) -> SnapshotImport? {
        bytes.withUnsafeBufferPointer { readingRowsFromBytes($0) }
    }

    /// The same, of bytes that stay valid meanwhile (a mapped file).
    static func readingRowsFromBytes(_ buf: UnsafeBufferPointer<UInt8>) -> SnapshotImport? {
        guard var restorer = RowBytes.restorer(buf) else { return nil }
        guard let document = try? restorer.restore() else { return nil }
        return SnapshotImport(document: document, codePage: restorer.codePage, restored: true, warnings: restorer.warnings)
    }
}

extension RowBytes {
    /// A restorer of the `briefcase` member that reads the rows from the bytes; nil when the
    /// document is not one this tool wrote (a plain snapshot), or its structure is not plain.
    static func restorer(_ buf: UnsafeBufferPointer<UInt8>, scanned: ((Range<Int>) -> Void)? = nil,
                         read: ((Int) -> Void)? = nil) -> Restorer?
    {
        guard let (snapshot, rows) = aroundRows(buf, scanned: scanned), snapshot.snapshot.rev > 0,
              case .object(let meta)? = snapshot.extras[SnapshotExport.memberName],
              meta["format"] == .string(SnapshotExport.formatName)
        else { return nil }
        var restorer = Restorer(snapshot: snapshot, meta: meta)
        restorer.rowBytes = RowBytes(reader: SnapshotRowReader(buf, rows: rows), read: read)
        return restorer
    }
}

/// Reads each table element's rows from the document's `rows`, in order (`SnapshotRowReader`).
/// Throws `declined` for anything it does not take.
struct RowBytes {
    var reader: SnapshotRowReader
    /// The table ids read so far: a second element with one of them is declined (its rows would
    /// need the record ids of both to tell them apart).
    private var tableIDs = Set<String>()

    static let declined = BriefcaseError(.invalidData, "internal: the rows are not as the export writes them")

    /// Hears the offset up to which the document's rows have been read, after each table.
    private let read: ((Int) -> Void)?

    init(reader: SnapshotRowReader, read: ((Int) -> Void)? = nil) {
        self.reader = reader
        self.read = read
    }

    /// The document without its rows (`rows` read as `[]`, every other member parsed and
    /// checked by `SnapshotDocument(json:)`), and the bytes of the `rows` array (from its `[` to
    /// just past its `]`, found by `JSONArrayScan`, which tells `scanned` of each stretch it
    /// passed); nil when the top level is not a plain object
    /// with one `rows` array, or the rest is refused. The rows' JSON is not checked here:
    /// `SnapshotRowReader` checks every byte of it.
    static func aroundRows(_ buf: UnsafeBufferPointer<UInt8>, scanned: ((Range<Int>) -> Void)? = nil)
        -> (document: SnapshotDocument, rows: Range<Int>)?
    {
        var cursor = JSONCursor(buf)
        var members: [(key: String, value: JSONValue)] = []
        var rows: Range<Int>?
        cursor.skipWhitespace()
        guard cursor.take(UInt8(ascii: "{")) else { return nil }
        cursor.skipWhitespace()
        if !cursor.take(UInt8(ascii: "}")) {
            while true {
                guard let key = cursor.plainString() else { return nil }
                cursor.skipWhitespace()
                guard cursor.take(UInt8(ascii: ":")) else { return nil }
                cursor.skipWhitespace()
                let name = String(decoding: key, as: UTF8.self)
                if name == "rows" {
                    guard rows == nil, let (close, _) = JSONArrayScan.close(buf, array: cursor.i, scanned: scanned) else { return nil }
                    rows = cursor.i..<(close + 1)
                    cursor.i = close + 1
                    members.append((name, .array([])))
                } else {
                    guard let (value, end) = try? JSONParser.parseValue(buf, at: cursor.i, depth: 1) else { return nil }
                    members.append((name, value))
                    cursor.i = end
                }
                cursor.skipWhitespace()
                if cursor.take(UInt8(ascii: "}")) { break }
                guard cursor.take(UInt8(ascii: ",")) else { return nil }
                cursor.skipWhitespace()
            }
        }
        cursor.skipWhitespace()
        guard cursor.i == cursor.end, let rows, let document = try? SnapshotDocument(json: .object(JSONObject(members))) else {
            return nil
        }
        return (document, rows)
    }

    /// The rows of the table element `tid` listing record ids `ids`, as `Restorer` makes them
    /// from records: each field reversed into its column, exact forms applied over them.
    mutating func rows(tid: String, ids: [JSONValue], roles: [ColumnRole], types: [DataType], exact: JSONObject,
                       path: String, parts: JSONDocumentParts, mapping: ValueMapping) throws(BriefcaseError) -> Rows
    {
        guard DatastoreIdentifier.isValid(tid), tableIDs.insert(tid).inserted else { throw Self.declined }
        var table = try TableRows(roles: roles, types: types, exact: exact, path: path, parts: parts, mapping: mapping)
        var unique = UniqueIDs()
        for (r, idJSON) in ids.enumerated() {
            guard case .string(let id) = idJSON, let (rowTID, rowID) = reader.nextRow(),
                  Self.same(rowTID, tid), Self.same(rowID, id), unique.insert(id, at: r, of: ids)
            else { throw Self.declined }
            try table.read(id, from: &reader)
        }
        read?(reader.offset)
        return table.rows.rows()
    }

    /// Whether `bytes` are the UTF-8 of `text`.
    private static func same(_ bytes: UnsafeBufferPointer<UInt8>, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { same($0, bytes) }
    }

    /// Byte for byte (ids: at most 64 bytes).
    static func same(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        for k in 0..<a.count where a[k] != b[k] { return false }
        return true
    }

    /// True when every row of the document was read.
    mutating func readAll() -> Bool { reader.atEnd() }

    /// The columns a row's fields go to: each field id once, each a valid id, none a JSON text
    /// column (those read lists, which this reader does not). The names lie in one buffer, so
    /// that the reader compares the one it expects where it lies.
    final class Columns {
        private let bytes: UnsafeMutableBufferPointer<UInt8>
        /// Each column's name in `bytes`; empty: the column holds no field.
        private let ranges: [Range<Int>]
        /// The first column at or after each column (and the end) that holds a field.
        private let fields: [Int]
        let recordIDs: [Int]

        init(_ roles: [ColumnRole]) throws(BriefcaseError) {
            var distinct = Set<String>()
            var all: [UInt8] = []
            var ranges: [Range<Int>] = []
            var recordIDs: [Int] = []
            for (column, role) in roles.enumerated() {
                switch role {
                case .field(let id, let json):
                    guard !json, DatastoreIdentifier.isValid(id), distinct.insert(id).inserted else { throw RowBytes.declined }
                    ranges.append(all.count..<(all.count + id.utf8.count))
                    all += id.utf8
                case .recordID:
                    ranges.append(all.count..<all.count)
                    recordIDs.append(column)
                case .none:
                    ranges.append(all.count..<all.count)
                }
            }
            bytes = .allocate(capacity: max(1, all.count))
            _ = bytes.initialize(from: all)
            var fields = [Int](repeating: roles.count, count: roles.count + 1)
            for column in roles.indices.reversed() { fields[column] = ranges[column].isEmpty ? fields[column + 1] : column }
            self.ranges = ranges
            self.fields = fields
            self.recordIDs = recordIDs
        }

        deinit { bytes.deallocate() }

        /// The first column at or after `column` that holds a field (the column count if none).
        func field(from column: Int) -> Int { fields[column] }

        /// The name of column `column` (empty past the last).
        func name(_ column: Int) -> UnsafeBufferPointer<UInt8> {
            column < ranges.count ? UnsafeBufferPointer(rebasing: bytes[ranges[column]]) : UnsafeBufferPointer(start: nil, count: 0)
        }

        /// The column of the field `name`, looked for from `start` on (fields mostly come in
        /// column order), then from the first.
        func column(named name: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
            for column in start..<ranges.count where !ranges[column].isEmpty && RowBytes.same(self.name(column), name) { return column }
            for column in 0..<min(start, ranges.count) where !ranges[column].isEmpty && RowBytes.same(self.name(column), name) {
                return column
            }
            return nil
        }
    }

    /// Whether a table's record ids are distinct: ids that are ascending decimal numbers are;
    /// from the first that is not, a set of them tells.
    struct UniqueIDs {
        private var last: UInt64?
        private var ascending = true
        private var seen = Set<String>()

        mutating func insert(_ id: String, at position: Int, of ids: [JSONValue]) -> Bool {
            if ascending {
                if let value = Self.decimal(id), last.map({ value > $0 }) ?? true {
                    last = value
                    return true
                }
                ascending = false
                for case .string(let earlier) in ids[..<position] { seen.insert(earlier) }
            }
            return seen.insert(id).inserted
        }

        /// Up to 18 decimal digits as a number; nil for anything else.
        private static func decimal(_ id: String) -> UInt64? {
            var value: UInt64 = 0
            var count = 0
            for byte in id.utf8 {
                let digit = byte &- UInt8(ascii: "0")
                guard digit < 10, count < 18 else { return nil }
                value = value &* 10 &+ UInt64(digit)
                count += 1
            }
            return count > 0 ? value : nil
        }
    }
}
