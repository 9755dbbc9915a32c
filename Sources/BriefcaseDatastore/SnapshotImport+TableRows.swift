// One table's rows read from a snapshot document's bytes into the bytes a Bin2 table stores
// (Spec/datastore-mapping.md §6.1). A row whose fields come in column order and that has no
// exact form is written value by value as it is read; any other is made a row of values first
// (exact forms applied over them), then written — the same bytes either way.

import JSONCore
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit

/// The rows of one table element, read one by one (`RowBytes.rows`).
struct TableRows {
    let columns: RowBytes.Columns
    let types: [DataType]
    let storages: [ValueStorage?]
    let exactByID: [String: JSONValue]
    let path: String
    let parts: JSONDocumentParts
    let mapping: ValueMapping
    /// A string without escapes goes to an 8-bit text column as its bytes.
    let textIsUTF8: Bool
    /// Kept as the bytes a Bin2 table stores (a table's values would take several times its bytes).
    let rows: StoredRowsBuilder
    private var row: Row
    private var seen: [Bool]
    private var unreadable: [Int] = []

    init(roles: [ColumnRole], types: [DataType], exact: JSONObject, path: String, parts: JSONDocumentParts,
         mapping: ValueMapping) throws(BriefcaseError)
    {
        columns = try RowBytes.Columns(roles)
        self.types = types
        storages = types.map(\.storage)
        exactByID = exact.dictionary()
        self.path = path
        self.parts = parts
        self.mapping = mapping
        textIsUTF8 = mapping.codePage.isUTF8
        rows = StoredRowsBuilder(storages: storages)
        row = Row(repeating: nil, count: roles.count)
        seen = [Bool](repeating: false, count: roles.count)
    }

    /// The row of record `id`, the reader on its first field.
    mutating func read(_ id: String, from reader: inout SnapshotRowReader) throws(BriefcaseError) {
        if exactByID[id] == nil, columns.recordIDs.isEmpty {
            let start = reader.offset
            if try readBytes(&reader) { return }
            reader.rewind(to: start)
        }
        try readValues(id, &reader)
    }

    /// The row written value by value as its fields come; false (nothing kept, the reader to be
    /// rewound) when a field comes out of column order or a value would not be kept as bytes.
    private mutating func readBytes(_ reader: inout SnapshotRowReader) throws(BriefcaseError) -> Bool {
        rows.beginRow()
        var filled = 0
        var next = columns.field(from: 0)
        while true {
            guard let column = try nextColumn(&reader, expecting: next) else {
                for c in filled..<storages.count { rows.null(c) }
                rows.endRow()
                return true
            }
            guard column >= filled, let storage = storages[column], let given = reader.value() else {
                rows.cancelRow()
                return false
            }
            for c in filled..<column { rows.null(c) }
            filled = column + 1
            next = columns.field(from: filled)
            switch given {
            case .plainText(let text) where textIsUTF8 && storage == .ansiString:
                guard rows.lengthPrefixed(text) else { rows.cancelRow(); return false }
            case .plainText(let text) where storage == .wideString:
                guard rows.lengthPrefixed(maximum: text.count &* 2, { WideText.writeUTF16LE(ofUTF8: text, to: $0) }) else {
                    rows.cancelRow()
                    return false
                }
            case .plainText(let text):
                guard let value = mapping.reverse(utf8: text, type: types[column]) else { throw RowBytes.declined }
                guard Self.put(value, storage, into: rows) else { rows.cancelRow(); return false }
            case .atom(let atom):
                // A value its column cannot hold, and no exact form: the whole reading refuses it.
                guard let value = mapping.reverse(.atom(atom), type: types[column]) else { throw RowBytes.declined }
                guard Self.put(value, storage, into: rows) else { rows.cancelRow(); return false }
            }
        }
    }

    /// The column of the row's next field (`next` the one expected); nil at the row's end.
    private func nextColumn(_ reader: inout SnapshotRowReader, expecting next: Int) throws(BriefcaseError) -> Int? {
        switch reader.nextField(expecting: columns.name(next)) {
        case .expected?: return next
        case .named(let name)?:
            guard let column = columns.column(named: name, from: next) else { throw RowBytes.declined }
            return column
        case .end?: return nil
        case nil: throw RowBytes.declined
        }
    }

    /// `value` as the next value of the row begun, as `Bin2Encoder.writeRow` writes it; false
    /// when it does not fit `storage` or is a string of 2 GiB or more (the row is then made of
    /// values, which the builder keeps as such).
    private static func put(_ value: Value, _ storage: ValueStorage, into rows: StoredRowsBuilder) -> Bool {
        guard value.fits(storage) else { return false }
        switch value {
        case .ansiString(let s), .wideString(let s), .blob(let s): return s.withUnsafeBufferPointer { rows.lengthPrefixed($0) }
        case .guid(let s): s.withUnsafeBufferPointer { rows.raw($0) }
        case .dateTime(let x): rows.scalar(x.value.bitPattern)
        case .float(let x): rows.scalar(x.bitPattern)
        case .singleFloat(let x): rows.scalar(x.bitPattern)
        case .currency(let x): rows.scalar(x.scaled)
        case .largeUInt(let x): rows.scalar(x)
        case .boolean(let x): rows.scalar(x)
        case .decimal(let x):
            rows.scalar(x.low); rows.scalar(x.mid); rows.scalar(x.high); rows.scalar(x.flags)
        case .integer(let x): rows.integer(x, storage)
        }
        return true
    }

    /// The row made of values as `Restorer` makes a record's (any field order, exact forms
    /// applied), then written.
    private mutating func readValues(_ id: String, _ reader: inout SnapshotRowReader) throws(BriefcaseError) {
        for column in row.indices { row[column] = nil }
        for column in columns.recordIDs { row[column] = mapping.reverse(.string(id), type: types[column]) }
        for column in seen.indices { seen[column] = false }
        unreadable.removeAll(keepingCapacity: true)
        var next = columns.field(from: 0)
        while let column = try nextColumn(&reader, expecting: next) {
            guard !seen[column], let given = reader.value() else { throw RowBytes.declined }
            seen[column] = true
            next = columns.field(from: column + 1)
            let value: Value? = switch given {
            case .plainText(let text): mapping.reverse(utf8: text, type: types[column])
            case .atom(let atom): mapping.reverse(.atom(atom), type: types[column])
            }
            if let value {
                row[column] = value
            } else {
                unreadable.append(column)
            }
        }
        var overridden = Set<Int>()
        if let overrides = exactByID[id] {
            overridden = try Restorer.apply(overrides, to: &row, types: types, parts: parts, path: "\(path).exact[\"\(id)\"]")
        }
        // A field its column cannot hold, with no exact form: the whole reading refuses it.
        for column in unreadable where !overridden.contains(column) { throw RowBytes.declined }
        rows.append(row)
    }
}
