import BriefcaseKit

/// Each row's value of one integer column, walking over the others (no value made of them).
struct KeyColumn: RowVisitor {
    let column: Int
    var keys: [Int64] = []
    /// A row whose value is not an integer SQLite holds (NULL, or a LargeUInt above 2^63 − 1).
    var failed = false

    /// Whether the keys are kept (else only whether each is an integer SQLite holds is found).
    let keeping: Bool

    init(column: Int, capacity: Int, keeping: Bool = true) {
        self.column = column
        self.keeping = keeping
        if keeping { keys.reserveCapacity(capacity) }
    }

    private mutating func keep(_ value: Value?) {
        switch value {
        case .integer(let key)?: if keeping { keys.append(key) }
        case .largeUInt(let key)? where key <= UInt64(Int64.max): if keeping { keys.append(Int64(key)) }
        default: failed = true
        }
    }

    func beginRow(at position: Int, fieldCount: Int) -> Int { 0 }
    mutating func null(_ row: inout Int) {
        if row == column { failed = true }
        row += 1
    }
    mutating func bytes(_ storage: ValueStorage, _ source: ByteSource, start: Int, count: Int, base: UnsafePointer<UInt8>, _ row: inout Int) {
        if row == column { failed = true }
        row += 1
    }
    mutating func scalar(_ value: Value, _ row: inout Int) {
        if row == column { keep(value) }
        row += 1
    }
    mutating func decimal(low: UInt32, mid: UInt32, high: UInt32, flags: UInt32, _ row: inout Int) {
        if row == column { failed = true }
        row += 1
    }
    func endRow(_ row: consuming Int) {}
    mutating func checkedRow(_ values: [Value?], at position: Int) {
        keep(column < values.count ? values[column] : nil)
    }
}

/// Binds rows kept as bytes to an INSERT of `SQLiteTableWriter` value by value from the bytes
/// (`Rows.visitStored`), as `RowBinder` binds their values: no row made an array of `Value`s.
/// Binding cannot throw inside a visitor: the first failure is kept, and nothing is bound after it.
struct StoredRowBinding: RowVisitor {
    let binder: RowBinder
    let statement: SQLiteStatement
    /// Parameters per row, and whether the first is the rowid (else the rowid is the key).
    let perRow: Int
    let bindsRowID: Bool
    /// The index among all rows of the first row of this statement, and the rowids given.
    let first: Int
    let rowIDs: [Int64]?
    /// The row of the statement being bound (set before a run of rows is visited).
    var row = 0
    private(set) var failure: BriefcaseError?
    /// Whether `failure` is set (a Bool tested per value: testing the optional error copied it).
    private var failed = false

    init(binder: RowBinder, statement: SQLiteStatement, perRow: Int, bindsRowID: Bool, first: Int, rowIDs: [Int64]?) {
        self.binder = binder
        self.statement = statement
        self.perRow = perRow
        self.bindsRowID = bindsRowID
        self.first = first
        self.rowIDs = rowIDs
    }

    /// Keeps the first failure: nothing is bound after it.
    private mutating func failing(_ error: BriefcaseError) {
        failure = error
        failed = true
    }

    // (Each binds in place, no closure: a closure per value retained and released the binder
    // and the statement it captured.)

    /// The row's first parameter (after its rowid).
    mutating func beginRow(at position: Int, fieldCount: Int) -> Int {
        var parameter = row * perRow + 1
        if bindsRowID {
            let index = first + row
            if !failed {
                do throws(BriefcaseError) { try statement.bindInteger(rowIDs?[index] ?? Int64(index) + 1, at: parameter) } catch { failing(error) }
            }
            parameter += 1
        }
        return parameter
    }
    mutating func null(_ parameter: inout Int) {
        if !failed {
            do throws(BriefcaseError) { try statement.bind(.null, at: parameter) } catch { failing(error) }
        }
        parameter += 1
    }
    mutating func bytes(_ storage: ValueStorage, _ source: ByteSource, start: Int, count: Int, base: UnsafePointer<UInt8>,
                        _ parameter: inout Int) {
        if !failed {
            do throws(BriefcaseError) {
                try binder.bind(storage, UnsafeBufferPointer(start: base + start, count: count), to: statement, at: parameter)
            } catch { failing(error) }
        }
        parameter += 1
    }
    mutating func scalar(_ value: Value, _ parameter: inout Int) {
        if !failed {
            do throws(BriefcaseError) { try binder.bind(value, to: statement, at: parameter) } catch { failing(error) }
        }
        parameter += 1
    }
    mutating func decimal(low: UInt32, mid: UInt32, high: UInt32, flags: UInt32, _ parameter: inout Int) {
        scalar(.decimal(Decimal96(low: low, mid: mid, high: high, flags: flags)), &parameter)
    }
    mutating func endRow(_ parameter: consuming Int) { row += 1 }
    mutating func checkedRow(_ values: [Value?], at position: Int) {
        var parameter = beginRow(at: position, fieldCount: values.count)
        for value in values {
            if let value { scalar(value, &parameter) } else { null(&parameter) }
        }
        row += 1
    }
}
