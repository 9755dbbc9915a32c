import BriefcaseKit

/// The differences within one table present in A and B: its fields, its rows, its pending
/// changes (Spec/diff.md §3).
struct TableComparison {
    let old: TableAndDelta
    let new: TableAndDelta
    /// Name keys (`nameKey`) of the fields not compared.
    let ignored: Set<[UInt8]>
    let options: DiffOptions

    init(old: TableAndDelta, new: TableAndDelta, ignored: Set<[UInt8]>, options: DiffOptions) {
        self.old = old
        self.new = new
        self.ignored = ignored
        self.options = options
    }

    func differences() -> [BriefcaseDifference] {
        var differences = fieldDifferences()
        if let a = old.table, let b = new.table { differences += rowDifferences(a, b) }
        if !options.current { differences += changeDifferences() }
        return differences
    }

    // MARK: fields

    /// Places of fields of A and B paired by name (ASCII letters without case), the k-th of a
    /// name with the k-th of that name: A's in A's order, then B's alone (Spec/diff.md §2).
    static func pairedByName(_ a: [ByteString], _ b: [ByteString]) -> [(old: Int?, new: Int?)] {
        let keysA = a.map(nameKey), keysB = b.map(nameKey)
        var pairs: [(old: Int?, new: Int?)] = []
        BriefcaseComparison.forEachPair(a.count, b.count, keyA: { keysA[$0] }, keyB: { keysB[$0] }) { pairs.append(($0, $1)) }
        return pairs
    }

    func fieldDifferences() -> [BriefcaseDifference] {
        let fieldsA = old.table?.fields ?? [], fieldsB = new.table?.fields ?? []
        let keysA = old.keyFlags, keysB = new.keyFlags
        var differences: [BriefcaseDifference] = []
        for pair in Self.pairedByName(fieldsA.map(\.name), fieldsB.map(\.name)) {
            let a = pair.old.map { fieldsA[$0] }, b = pair.new.map { fieldsB[$0] }
            let keyInOld = pair.old.map { keysA[$0] } ?? false, keyInNew = pair.new.map { keysB[$0] } ?? false
            let kind: BriefcaseDifference.Kind
            switch (a, b) {
            case (let a?, let b?):
                guard a.type != b.type || a.size != b.size || keyInOld != keyInNew else { continue }
                kind = .changed
            case (_?, nil): kind = .removed
            default: kind = .added
            }
            differences.append(.field(FieldDifference(table: (old.table ?? new.table)!.name, name: (a ?? b)!.name, kind: kind,
                                                      old: a, new: b, keyInOld: keyInOld, keyInNew: keyInNew)))
        }
        return differences
    }

    // MARK: rows

    func rowDifferences(_ a: Table, _ b: Table) -> [BriefcaseDifference] {
        if !options.current, a.fields == b.fields, Self.sameRows(a, b) { return [] }
        // Each field of A with B's of that name (`pairedByName`), in A's order; those compared
        // leave out the ignored ones.
        let paired = Self.pairedByName(a.fields.map(\.name), b.fields.map(\.name)).compactMap { pair in
            pair.old.flatMap { old in pair.new.map { ColumnPair(old: old, new: $0) } }
        }
        let columns = paired.filter { !ignored.contains(nameKey(a.fields[$0.old].name)) }
        let keyFlagsA = old.keyFlags, keyFlagsB = new.keyFlags
        // The key: A's key fields that B has and keys too.
        let keyColumns = columns.filter { $0.old < keyFlagsA.count && keyFlagsA[$0.old] && $0.new < keyFlagsB.count && keyFlagsB[$0.new] }
        // A row's value in a column (nil past its end: a table built in memory may hold rows
        // shorter than its fields).
        func cell(_ column: Int) -> (Row) -> Value? { { column < $0.count ? $0[column] : nil } }
        func difference(_ kind: BriefcaseDifference.Kind, _ rowA: Row?, _ rowB: Row?, position: Int? = nil,
                        changed: [ColumnPair] = []) -> BriefcaseDifference {
            let key: [Value?] = keyColumns.map { rowA.map(cell($0.old)) ?? cell($0.new)(rowB!) }
            return .row(RowDifference(table: a.name, tablePosition: old.position, kind: kind, keyColumns: keyColumns, key: key,
                                      position: position, oldFields: a.fields, newFields: b.fields, old: rowA, new: rowB,
                                      pairedColumns: paired, changedColumns: changed))
        }
        var differences: [BriefcaseDifference] = []
        /// A row of A, of B, or a pair (`position`: by position), as a difference when it is one.
        func take(_ rowA: Row?, _ rowB: Row?, position: Int? = nil) {
            switch (rowA, rowB) {
            case (let rowA?, let rowB?):
                let changed = columns.filter { cell($0.old)(rowA) != cell($0.new)(rowB) }
                if !changed.isEmpty { differences.append(difference(.changed, rowA, rowB, position: position, changed: changed)) }
            case (let rowA?, nil): differences.append(difference(.removed, rowA, nil, position: position))
            case (nil, let rowB?): differences.append(difference(.added, nil, rowB, position: position))
            default: break
            }
        }
        if !options.current, !keyColumns.isEmpty, let viewA = a.rows.storedView, let viewB = b.rows.storedView {
            let integerKey = keyColumns.count == 1
                && Self.holdsIntegersOnly(a.fields[keyColumns[0].old]) && Self.holdsIntegersOnly(b.fields[keyColumns[0].new])
            Self.pairStoredRows(viewA, viewB, keyColumns: keyColumns, sameLayout: a.fields == b.fields, integerKey: integerKey) { take($0, $1) }
            return differences
        }
        let rowsA = options.current ? old.delta.map { a.applying($0).rows } ?? Array(a.rows) : Array(a.rows)
        let rowsB = options.current ? new.delta.map { b.applying($0).rows } ?? Array(b.rows) : Array(b.rows)
        if keyColumns.isEmpty && options.byPosition {
            for i in 0 ..< max(rowsA.count, rowsB.count) {
                take(i < rowsA.count ? rowsA[i] : nil, i < rowsB.count ? rowsB[i] : nil, position: i)
            }
            return differences
        }
        // By key, or (no key) as a multiset of whole rows over the columns compared.
        let pairingColumns = keyColumns.isEmpty ? columns : keyColumns
        BriefcaseComparison.forEachPair(rowsA.count, rowsB.count, keyA: { i in pairingColumns.map { cell($0.old)(rowsA[i]) } },
                                        keyB: { j in pairingColumns.map { cell($0.new)(rowsB[j]) } }) { i, j in
            take(i.map { rowsA[$0] }, j.map { rowsB[$0] })
        }
        return differences
    }

    /// Whether the two tables hold the same rows: the same bytes when both keep theirs as bytes
    /// (then no value is made: an unchanged table costs one comparison of its bytes), else the
    /// same values.
    static func sameRows(_ a: Table, _ b: Table) -> Bool {
        guard let x = a.rows.storedView, let y = b.rows.storedView else { return a.rows == b.rows }
        return x.sameBytes(as: y)
    }

    /// Rows kept as bytes, paired by key as `rowDifferences` pairs them: only the key columns of
    /// each row are made into values; a pair whose bytes are the same (fields alike: the same
    /// values) is passed over; `take` gets the other pairs and lone rows, decoded.
    static func pairStoredRows(_ viewA: StoredRowsView, _ viewB: StoredRowsView, keyColumns: [ColumnPair], sameLayout: Bool,
                               integerKey: Bool = false, take: (Row?, Row?) -> Void) {
        let readerA = viewA.columns(keyColumns.map(\.old)), readerB = viewB.columns(keyColumns.map(\.new))
        func pair(_ i: Int?, _ j: Int?) {
            if let i, let j, sameLayout && viewA.sameBytes(i, as: viewB, j) { return }
            take(i.map(viewA.row), j.map(viewB.row))
        }
        // A one-column key (most keys) is its value, not an array of one; an integer one (most
        // of those) is hashed as the integer it is: its values are `.integer` or NULL only, so
        // the integers pair the rows the values pair.
        if integerKey {
            func integer(_ value: Value?) -> Int64? { if case .integer(let i)? = value { i } else { nil } }
            BriefcaseComparison.forEachPair(viewA.count, viewB.count, keyA: { integer(readerA.value(row: $0)) },
                                            keyB: { integer(readerB.value(row: $0)) }, pair)
        } else if keyColumns.count == 1 {
            BriefcaseComparison.forEachPair(viewA.count, viewB.count, keyA: readerA.value(row:), keyB: readerB.value(row:), pair)
        } else {
            BriefcaseComparison.forEachPair(viewA.count, viewB.count, keyA: readerA.values(row:), keyB: readerB.values(row:), pair)
        }
    }

    /// Whether every value of `field` is an integer (`Value.integer`) or NULL.
    static func holdsIntegersOnly(_ field: FieldDescriptor) -> Bool {
        switch field.type.storage {
        case .int8?, .int16?, .int32?, .int64?, .uint8?, .uint16?, .uint32?: true
        default: false
        }
    }

    // MARK: pending changes

    func changeDifferences() -> [BriefcaseDifference] {
        let fieldsA = old.delta?.loggedFields ?? [], fieldsB = new.delta?.loggedFields ?? []
        let changesA = old.delta.map { Array($0.changes) } ?? [], changesB = new.delta.map { Array($0.changes) } ?? []
        guard !(fieldsA == fieldsB && changesA == changesB) else { return [] }
        // Logged fields paired by name (`pairedByName`), the ignored ones left out; a field on
        // one side only is compared with "absent".
        let columns = Self.pairedByName(fieldsA.map(\.name), fieldsB.map(\.name)).filter { pair in
            !ignored.contains(nameKey(pair.old.map { fieldsA[$0].name } ?? fieldsB[pair.new!].name))
        }
        func value(_ values: [Value?], _ i: Int?) -> Value? { i.flatMap { $0 < values.count ? values[$0] : nil } }
        func same(_ x: DeltaChange, _ y: DeltaChange) -> Bool {
            guard x.type == y.type, x.status == y.status, x.message == y.message else { return false }
            for column in columns {
                if value(x.oldValues, column.old) != value(y.oldValues, column.new) { return false }
                if value(x.newValues, column.old) != value(y.newValues, column.new) { return false }
            }
            return true
        }
        let name = (old.table ?? new.table)?.name ?? old.name
        var differences: [BriefcaseDifference] = []
        for pair in BriefcaseComparison.paired(changesA, changesB, key: { $0.recordID }) {
            let kind: BriefcaseDifference.Kind
            switch (pair.old, pair.new) {
            case (let x?, let y?):
                guard !same(x, y) else { continue }
                kind = .changed
            case (_?, nil): kind = .removed
            default: kind = .added
            }
            differences.append(.change(ChangeDifference(table: name, kind: kind, recordID: (pair.old ?? pair.new)!.recordID,
                                                        oldFields: fieldsA, newFields: fieldsB, old: pair.old, new: pair.new)))
        }
        return differences
    }
}
