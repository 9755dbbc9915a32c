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

    func fieldDifferences() -> [BriefcaseDifference] {
        let fieldsA = old.table?.fields ?? [], fieldsB = new.table?.fields ?? []
        let keysA = old.keyFlags, keysB = new.keyFlags
        let indexed = { (fields: [FieldDescriptor]) in fields.indices.map { (index: $0, field: fields[$0]) } }
        var differences: [BriefcaseDifference] = []
        for pair in BriefcaseComparison.paired(indexed(fieldsA), indexed(fieldsB), key: { nameKey($0.field.name) }) {
            let keyInOld = pair.old.map { $0.index < keysA.count && keysA[$0.index] } ?? false
            let keyInNew = pair.new.map { $0.index < keysB.count && keysB[$0.index] } ?? false
            let kind: BriefcaseDifference.Kind
            switch (pair.old, pair.new) {
            case (let a?, let b?):
                guard a.field.type != b.field.type || a.field.size != b.field.size || keyInOld != keyInNew else { continue }
                kind = .changed
            case (_?, nil): kind = .removed
            default: kind = .added
            }
            let name = (pair.old ?? pair.new)!.field.name
            differences.append(.field(FieldDifference(table: (old.table ?? new.table)!.name, name: name, kind: kind,
                                                      old: pair.old?.field, new: pair.new?.field,
                                                      keyInOld: keyInOld, keyInNew: keyInNew)))
        }
        return differences
    }

    // MARK: rows

    /// The columns compared: each field of A that B has too (the k-th of a name with the k-th
    /// of that name) and that is not ignored, with its place in B; in A's order.
    func comparedColumns(_ a: Table, _ b: Table) -> [ColumnPair] {
        Self.pairedColumns(a, b).filter { !ignored.contains(nameKey(a.fields[$0.old].name)) }
    }

    /// Each field of A with B's field of that name (the k-th of a name with the k-th), in A's order.
    static func pairedColumns(_ a: Table, _ b: Table) -> [ColumnPair] {
        let keyed = { (table: Table) in table.fields.enumerated().map { (place: $0.offset, key: nameKey($0.element.name)) } }
        return BriefcaseComparison.paired(keyed(a), keyed(b)) { $0.key }.compactMap { pair in
            guard let old = pair.old, let new = pair.new else { return nil }
            return ColumnPair(old: old.place, new: new.place)
        }
    }

    func rowDifferences(_ a: Table, _ b: Table) -> [BriefcaseDifference] {
        if !options.current, a.fields == b.fields,
           Self.sameStoredBytes(a, b) || (a.rows.storedView == nil || b.rows.storedView == nil) && a.rows == b.rows { return [] }
        let columns = comparedColumns(a, b), paired = Self.pairedColumns(a, b)
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
        func changedFields(_ rowA: Row, _ rowB: Row) -> [ColumnPair] {
            columns.filter { cell($0.old)(rowA) != cell($0.new)(rowB) }
        }
        if !options.current, !keyColumns.isEmpty, let viewA = a.rows.storedView, let viewB = b.rows.storedView {
            return keyedStoredRowDifferences(viewA, viewB, keyColumns: keyColumns, sameLayout: a.fields == b.fields,
                                             changedFields: changedFields, difference: difference)
        }
        let rowsA = options.current ? a.applying(old.delta ?? Self.noChanges(a)).rows : Array(a.rows)
        let rowsB = options.current ? b.applying(new.delta ?? Self.noChanges(b)).rows : Array(b.rows)
        var differences: [BriefcaseDifference] = []
        if keyColumns.isEmpty && options.byPosition {
            for i in 0 ..< max(rowsA.count, rowsB.count) {
                switch (i < rowsA.count ? rowsA[i] : nil, i < rowsB.count ? rowsB[i] : nil) {
                case (let rowA?, let rowB?):
                    let changed = changedFields(rowA, rowB)
                    if !changed.isEmpty { differences.append(difference(.changed, rowA, rowB, position: i, changed: changed)) }
                case (let rowA?, nil): differences.append(difference(.removed, rowA, nil, position: i))
                case (nil, let rowB?): differences.append(difference(.added, nil, rowB, position: i))
                default: break
                }
            }
            return differences
        }
        // By key, or (no key) as a multiset of whole rows over the columns compared.
        let pairingColumns = keyColumns.isEmpty ? columns : keyColumns
        let pairs = BriefcaseComparison.paired(rowsA.map { ($0, true) }, rowsB.map { ($0, false) }) { item in
            pairingColumns.map { cell(item.1 ? $0.old : $0.new)(item.0) }
        }
        for pair in pairs {
            switch (pair.old?.0, pair.new?.0) {
            case (let rowA?, let rowB?):
                let changed = changedFields(rowA, rowB)
                if !changed.isEmpty { differences.append(difference(.changed, rowA, rowB, changed: changed)) }
            case (let rowA?, nil): differences.append(difference(.removed, rowA, nil))
            case (nil, let rowB?): differences.append(difference(.added, nil, rowB))
            default: break
            }
        }
        return differences
    }

    /// Whether both tables keep their rows as the same bytes (then they hold the same values, and
    /// none is made: an unchanged table costs a comparison of its bytes).
    static func sameStoredBytes(_ a: Table, _ b: Table) -> Bool {
        guard let x = a.rows.storedView, let y = b.rows.storedView, x.storages == y.storages else { return false }
        return x.sameBytes(as: y)
    }

    /// Rows kept as bytes, paired by key as `rowDifferences` pairs them, giving the same
    /// differences: only the key columns of each row are made into values, and a pair whose
    /// bytes are the same (fields alike: the same values) is passed without decoding it.
    func keyedStoredRowDifferences(_ viewA: StoredRowsView, _ viewB: StoredRowsView, keyColumns: [ColumnPair], sameLayout: Bool,
                                   changedFields: (Row, Row) -> [ColumnPair],
                                   difference: (BriefcaseDifference.Kind, Row?, Row?, Int?, [ColumnPair]) -> BriefcaseDifference) -> [BriefcaseDifference] {
        let readerA = viewA.columns(keyColumns.map(\.old)), readerB = viewB.columns(keyColumns.map(\.new))
        var differences: [BriefcaseDifference] = []
        func pair(_ i: Int?, _ j: Int?) {
            switch (i, j) {
            case (let i?, let j?):
                if sameLayout && viewA.sameBytes(i, as: viewB, j) { return }
                let rowA = viewA.row(i), rowB = viewB.row(j)
                let changed = changedFields(rowA, rowB)
                if !changed.isEmpty { differences.append(difference(.changed, rowA, rowB, nil, changed)) }
            case (let i?, nil): differences.append(difference(.removed, viewA.row(i), nil, nil, []))
            case (nil, let j?): differences.append(difference(.added, nil, viewB.row(j), nil, []))
            default: break
            }
        }
        // A one-column key (most keys) is its value, not an array of one.
        if keyColumns.count == 1 {
            BriefcaseComparison.forEachPair(viewA.count, viewB.count, keyA: readerA.value(row:), keyB: readerB.value(row:), pair)
        } else {
            BriefcaseComparison.forEachPair(viewA.count, viewB.count, keyA: readerA.values(row:), keyB: readerB.values(row:), pair)
        }
        return differences
    }

    static func noChanges(_ table: Table) -> Delta {
        Delta(name: table.name, loggedFields: [], reducedDeltaFlag: 0)
    }

    // MARK: pending changes

    func changeDifferences() -> [BriefcaseDifference] {
        let fieldsA = old.delta?.loggedFields ?? [], fieldsB = new.delta?.loggedFields ?? []
        let changesA = old.delta.map { Array($0.changes) } ?? [], changesB = new.delta.map { Array($0.changes) } ?? []
        guard !(fieldsA == fieldsB && changesA == changesB) else { return [] }
        // Logged fields paired by name (the k-th with the k-th), the ignored ones left out; a
        // field on one side only is compared with "absent".
        let keyed = { (fields: [LoggedField]) in fields.enumerated().map { (place: $0.offset, key: nameKey($0.element.name)) } }
        let columns: [(old: Int?, new: Int?)] = BriefcaseComparison.paired(keyed(fieldsA), keyed(fieldsB)) { $0.key }
            .filter { !ignored.contains(($0.old ?? $0.new)!.key) }
            .map { ($0.old?.place, $0.new?.place) }
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
