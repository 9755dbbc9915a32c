#if canImport(Glibc)
import Glibc
#endif
import JSONCore
import BriefcaseKit
import Foundation

/// A deterministic synthetic briefcase of about `targetSize` bytes: 30 tables (ten large ones
/// sharing the size by weight, twenty small lookup tables of fixed size), every data type,
/// about 10 % NULLs, ASCII and CJK text in 8-bit (UTF-8) and wide (UTF-16LE) columns, blobs from
/// a few bytes to 512 KB, and pending deltas on six tables. Same seed and size, same bytes.
///
/// Tables are built one at a time and appended to the file as they are encoded, so generating
/// 1 GB needs the memory of the largest table, not of the whole briefcase.
struct Generator {
    let targetSize: Int
    let seed: UInt64
    var profile = Profile.standard

    /// `standard`: about one pending change per 200 rows. `deltaHeavy`: every row of the six
    /// tables with a delta has a pending change (an update with old and new values, or a delete),
    /// and a quarter as many rows are inserted: the data of apps that sync rarely.
    enum Profile: String, Codable {
        case standard = "default"
        case deltaHeavy = "delta-heavy"
    }

    /// The small table that the "open and read one table" measurement reads.
    static let smallTableName = "Settings"

    // MARK: column and table specs

    enum Gen {
        case sequence
        case reference(Int)
        case words(ClosedRange<Int>)
        /// ASCII words, one value in three mostly CJK.
        case mixed(ClosedRange<Int>)
        case cjk(ClosedRange<Int>)
        case code(Int)
        case email
        case date
        case money
        case decimal
        case float
        case single
        case bool
        case int(ClosedRange<Int64>)
        case uint64
        case guid
        case xml
        case blob(ClosedRange<Int>)
    }

    struct Column {
        var name: String
        var type: DataType
        var size: Int32 = 0
        var gen: Gen
        var nullRate: Double = 0.1
        var key = false
        var label: String? = nil
    }

    struct TableSpec {
        var name: String
        var columns: [Column]
        /// Share of the target size (large tables), or nil for a fixed row count.
        var weight: Double?
        var fixedRows: Int = 0
        var hasDelta = false
    }

    static func key(_ type: DataType = .autoInc) -> Column {
        Column(name: "ID", type: type, gen: .sequence, nullRate: 0, key: true)
    }

    static let largeTables: [TableSpec] = [
        TableSpec(name: "Customers", columns: [
            key(),
            Column(name: "Code", type: .fixedChar, size: 8, gen: .code(8), nullRate: 0),
            Column(name: "Name", type: .string, size: 100, gen: .mixed(8...40), nullRate: 0.02),
            Column(name: "Address", type: .string, size: 200, gen: .mixed(15...60)),
            Column(name: "City", type: .wideString, size: 50, gen: .mixed(4...16)),
            Column(name: "Email", type: .string, size: 80, gen: .email),
            Column(name: "Phone", type: .string, size: 20, gen: .code(12)),
            Column(name: "CreatedAt", type: .dateTime, gen: .date, nullRate: 0.02),
            Column(name: "Balance", type: .currency, gen: .money),
            Column(name: "CreditLimit", type: .decimal, gen: .decimal),
            Column(name: "Active", type: .boolean, gen: .bool, nullRate: 0.05),
            Column(name: "Notes", type: .memo, gen: .mixed(20...600), nullRate: 0.35),
            Column(name: "RowGuid", type: .guid, gen: .guid, nullRate: 0.03),
        ], weight: 0.08, hasDelta: true),
        TableSpec(name: "Orders", columns: [
            key(),
            Column(name: "CustomerID", type: .integer, gen: .reference(50_000), nullRate: 0.01),
            Column(name: "OrderDate", type: .dateTime, gen: .date, nullRate: 0.01),
            Column(name: "ShipDate", type: .dateTime, gen: .date, nullRate: 0.25),
            Column(name: "Total", type: .currency, gen: .money, nullRate: 0.02),
            Column(name: "Discount", type: .decimal, gen: .decimal, nullRate: 0.2),
            Column(name: "Status", type: .smallInt, gen: .int(0...6), nullRate: 0.1),
            Column(name: "Comment", type: .wideString, size: 400, gen: .mixed(10...120), nullRate: 0.3),
            Column(name: "Weight", type: .float, gen: .float, nullRate: 0.1),
            Column(name: "RowGuid", type: .guid, gen: .guid, nullRate: 0.03),
        ], weight: 0.12, hasDelta: true),
        TableSpec(name: "OrderLines", columns: [
            key(.largeAutoInc),
            Column(name: "OrderID", type: .integer, gen: .reference(200_000), nullRate: 0),
            Column(name: "ProductID", type: .integer, gen: .reference(20_000), nullRate: 0.05),
            Column(name: "Quantity", type: .smallInt, gen: .int(1...500), nullRate: 0.05),
            Column(name: "UnitPrice", type: .currency, gen: .money, nullRate: 0.1),
            Column(name: "Ratio", type: .singleFloat, gen: .single, nullRate: 0.15),
            Column(name: "Flags", type: .byte, gen: .int(0...255), nullRate: 0.25),
            Column(name: "Line", type: .word, gen: .int(1...999), nullRate: 0.15),
            Column(name: "Description", type: .string, size: 200, gen: .words(5...60), nullRate: 0.3),
        ], weight: 0.16),
        TableSpec(name: "Products", columns: [
            key(),
            Column(name: "SKU", type: .fixedWideChar, size: 12, gen: .code(12), nullRate: 0),
            Column(name: "Name", type: .wideString, size: 100, gen: .mixed(6...50), nullRate: 0.01),
            Column(name: "Description", type: .wideMemo, gen: .mixed(50...1500), nullRate: 0.2),
            Column(name: "Price", type: .decimal, gen: .decimal, nullRate: 0.05),
            Column(name: "Stock", type: .cardinal, gen: .int(0...4_000_000_000), nullRate: 0.1),
            Column(name: "Picture", type: .blob, gen: .blob(16...65_536), nullRate: 0.3),
            Column(name: "Attributes", type: .xml, gen: .xml, nullRate: 0.4),
        ], weight: 0.10, hasDelta: true),
        TableSpec(name: "Attachments", columns: [
            key(.largeAutoInc),
            Column(name: "FileName", type: .wideString, size: 255, gen: .mixed(8...40), nullRate: 0),
            Column(name: "MimeType", type: .string, size: 50, gen: .words(8...20), nullRate: 0.05),
            Column(name: "Length", type: .largeInt, gen: .int(0...1 << 40), nullRate: 0.05),
            Column(name: "Hash", type: .largeUInt, gen: .uint64, nullRate: 0.05),
            Column(name: "Uploaded", type: .dateTime, gen: .date, nullRate: 0.05),
            Column(name: "Content", type: .blob, gen: .blob(100...524_288), nullRate: 0.1),
        ], weight: 0.20),
        TableSpec(name: "EventLog", columns: [
            key(.largeAutoInc),
            Column(name: "At", type: .dateTime, gen: .date, nullRate: 0),
            Column(name: "Level", type: .shortInt, gen: .int(-3...5), nullRate: 0.1),
            Column(name: "Source", type: .string, size: 60, gen: .words(6...30), nullRate: 0.1),
            Column(name: "Message", type: .memo, gen: .words(20...400), nullRate: 0.05),
            Column(name: "Data", type: .cursor, gen: .blob(0...2_000), nullRate: 0.6),
            Column(name: "Counter", type: .word, gen: .int(0...65_535), nullRate: 0.2),
            Column(name: "Elapsed", type: .float, gen: .float, nullRate: 0.2),
        ], weight: 0.14),
        TableSpec(name: "AllTypes", columns: DataType.allKnown.dropFirst().map { type in
            Column(name: type.name.replacingOccurrences(of: "dat", with: ""), type: type,
                   size: [DataType.string, .wideString, .fixedChar, .fixedWideChar].contains(type) ? 40 : 0,
                   gen: generic(type), nullRate: 0.1, key: type == .autoInc)
        }, weight: 0.06),
        TableSpec(name: "客户资料", columns: [
            Column(name: "编号", type: .autoInc, gen: .sequence, nullRate: 0, key: true, label: "编号"),
            Column(name: "姓名", type: .string, size: 50, gen: .cjk(6...18), nullRate: 0.02, label: "姓名"),
            Column(name: "地址", type: .wideString, size: 200, gen: .cjk(20...90), label: "地址"),
            Column(name: "电话", type: .string, size: 20, gen: .code(11), label: "电话"),
            Column(name: "备注", type: .wideMemo, gen: .cjk(30...900), nullRate: 0.3, label: "备注"),
            Column(name: "余额", type: .currency, gen: .money, label: "余额"),
            Column(name: "注册日期", type: .dateTime, gen: .date, label: "注册日期"),
        ], weight: 0.06, hasDelta: true),
        TableSpec(name: "Inventory", columns: [
            key(),
            Column(name: "ProductID", type: .integer, gen: .reference(20_000), nullRate: 0),
            Column(name: "Warehouse", type: .fixedChar, size: 4, gen: .code(4), nullRate: 0),
            Column(name: "OnHand", type: .integer, gen: .int(-100...100_000)),
            Column(name: "Reserved", type: .integer, gen: .int(0...10_000)),
            Column(name: "CountedAt", type: .dateTime, gen: .date),
            Column(name: "Cost", type: .currency, gen: .money),
            Column(name: "Shelf", type: .string, size: 10, gen: .code(6)),
        ], weight: 0.05, hasDelta: true),
        TableSpec(name: "Invoices", columns: [
            key(),
            Column(name: "Number", type: .string, size: 20, gen: .code(10), nullRate: 0),
            Column(name: "CustomerID", type: .integer, gen: .reference(50_000), nullRate: 0),
            Column(name: "Issued", type: .dateTime, gen: .date, nullRate: 0),
            Column(name: "Due", type: .dateTime, gen: .date),
            Column(name: "Net", type: .decimal, gen: .decimal),
            Column(name: "Tax", type: .decimal, gen: .decimal),
            Column(name: "Paid", type: .boolean, gen: .bool),
            Column(name: "Document", type: .blob, gen: .blob(2_000...120_000), nullRate: 0.5),
            Column(name: "Remarks", type: .wideMemo, gen: .mixed(10...400), nullRate: 0.5),
        ], weight: 0.03),
    ]

    static func generic(_ type: DataType) -> Gen {
        switch type.storage! {
        case .ansiString, .wideString: return type == .xml ? .xml : .mixed(type == .memo || type == .wideMemo ? 20...400 : 4...40)
        case .dateTime: return .date
        case .float64: return .float
        case .float32: return .single
        case .currency: return .money
        case .int8: return .int(-128...127)
        case .int16: return .int(-32_768...32_767)
        case .int32: return type == .autoInc ? .sequence : .int(Int64(Int32.min)...Int64(Int32.max))
        case .int64: return .int(Int64.min / 2...Int64.max / 2)
        case .uint8: return .int(0...255)
        case .uint16: return .int(0...65_535)
        case .uint32: return .int(0...Int64(UInt32.max))
        case .uint64: return .uint64
        case .boolean: return .bool
        case .blob: return .blob(0...4_096)
        case .guid: return .guid
        case .decimal: return .decimal
        }
    }

    /// Twenty small tables of fixed size (independent of the target size), spread between the
    /// large ones; `Settings` (with a pending delta) is the one read alone.
    static let smallTables: [TableSpec] = {
        var tables = [
            TableSpec(name: smallTableName, columns: [
                key(),
                Column(name: "Name", type: .string, size: 50, gen: .words(5...30), nullRate: 0),
                Column(name: "Value", type: .wideString, size: 200, gen: .mixed(2...80)),
                Column(name: "Changed", type: .dateTime, gen: .date),
            ], fixedRows: 40, hasDelta: true),
            TableSpec(name: "Countries", columns: [
                key(),
                Column(name: "Code", type: .fixedChar, size: 2, gen: .code(2), nullRate: 0),
                Column(name: "Name", type: .wideString, size: 60, gen: .mixed(4...30), nullRate: 0),
                Column(name: "Population", type: .largeInt, gen: .int(1_000...1_500_000_000)),
            ], fixedRows: 250),
            TableSpec(name: "Currencies", columns: [
                key(),
                Column(name: "Code", type: .fixedChar, size: 3, gen: .code(3), nullRate: 0),
                Column(name: "Rate", type: .float, gen: .float),
            ], fixedRows: 30),
        ]
        for i in 1...17 {
            tables.append(TableSpec(name: "Lookup\(i < 10 ? "0" : "")\(i)", columns: [
                key(),
                Column(name: "Code", type: .string, size: 10, gen: .code(6), nullRate: 0),
                Column(name: "Text", type: .wideString, size: 100, gen: .mixed(5...60)),
                Column(name: "Sort", type: .smallInt, gen: .int(0...1000)),
                Column(name: "Hidden", type: .boolean, gen: .bool),
            ], fixedRows: 20 + 37 * i))
        }
        return tables
    }()

    /// File order: large and small tables interleaved, so the small table read alone sits in the
    /// middle of the file.
    static var fileOrder: [TableSpec] {
        var order: [TableSpec] = []
        var small = smallTables[...]
        for (i, table) in largeTables.enumerated() {
            order.append(table)
            let share = i == largeTables.count - 1 ? small.count : 2
            order += small.prefix(share)
            small = small.dropFirst(share)
        }
        return order
    }

    // MARK: generating

    struct Summary {
        var tables = 0
        var deltas = 0
        var rows = 0
        var changes = 0
        var largestElement = 0
        var values = 0
        var nulls = 0
    }

    /// Writes the briefcase to `path`; returns what it holds.
    func write(to path: String) throws -> Summary {
        let properties = [
            BriefcaseProperty(name: "Generator", value: ByteString(utf8: "briefcase-bench seed \(seed) size \(sizeLabel(targetSize))")),
            BriefcaseProperty(name: "LastSync", value: "2026-05-01T12:00:00"),
            BriefcaseProperty(name: "Owner", value: ByteString(utf8: "张伟 (Zhang Wei)")),
            BriefcaseProperty(name: "ClientVersion", value: "10.0.0.1555"),
        ]
        // Element by element, so that memory holds one table: the library's stream writer.
        var writer = try BriefcaseStreamWriter(output: FileSink(path: path), container: .dabriefcase, properties: properties)
        func add(_ element: Element) throws -> Int {
            let start = writer.count
            try writer.write(element)
            return writer.count - start
        }
        var summary = Summary()
        // Small tables are the same at every size; the large ones share what is left.
        let smallBytes = Self.smallTables.count * 12_000
        let largeBudget = max(0, targetSize - smallBytes - 8_192)
        let root = SplitMix64(seed: seed)
        for (tableIndex, spec) in Self.fileOrder.enumerated() {
            var random = root.fork(UInt64(tableIndex + 1))
            let budget = spec.weight.map { Int($0 * Double(largeBudget)) }
            let (table, stats) = makeTable(spec, budget: budget, random: &random)
            summary.rows += table.rows.count
            summary.values += stats.values
            summary.nulls += stats.nulls
            if spec.hasDelta {
                let delta = makeDelta(spec, table: table, random: &random)
                summary.changes += delta.changes.count
                summary.deltas += 1
                summary.largestElement = max(summary.largestElement, try add(.delta(delta)))
            }
            summary.tables += 1
            summary.largestElement = max(summary.largestElement, try add(.table(table)))
        }
        try writer.finish()
        writer.output.close()
        return summary
    }

    struct TableStats {
        var values = 0
        var nulls = 0
    }

    func makeTable(_ spec: TableSpec, budget: Int?, random: inout SplitMix64) -> (Table, TableStats) {
        let fields = spec.columns.map { FieldDescriptor(name: ByteString(utf8: $0.name), type: $0.type, size: $0.size) }
        var rows: [Row] = []
        var stats = TableStats()
        var bytes = 0
        let maskSize = (spec.columns.count + 7) / 8
        var rowIndex = 0
        while budget.map({ bytes < $0 }) ?? (rowIndex < spec.fixedRows) {
            var row: Row = []
            row.reserveCapacity(spec.columns.count)
            bytes += maskSize
            for column in spec.columns {
                if !column.key, column.nullRate > 0, random.chance(column.nullRate) {
                    row.append(nil)
                    stats.nulls += 1
                } else {
                    let value = makeValue(column, row: rowIndex, random: &random)
                    bytes += Self.encodedSize(value, column.type)
                    row.append(value)
                }
                stats.values += 1
            }
            rows.append(row)
            rowIndex += 1
        }
        let schema = Schema(fieldPropertyCount: 10, fields: spec.columns.map(Self.schemaProperties), parameterPropertyCount: 12, parameters: [])
        return (Table(name: ByteString(utf8: spec.name), schema: schema, fields: fields, rows: rows), stats)
    }

    /// Name, DataType, Size, Required, InPrimaryKey, LogChanges, DisplayLabel, Description,
    /// ReadOnly, Visible: a subset of the 29 properties .NET writes per field.
    static func schemaProperties(_ column: Column) -> [SchemaProperty] {
        [
            SchemaProperty("Name", column.name),
            SchemaProperty("DataType", column.type.name),
            SchemaProperty("Size", String(column.size)),
            SchemaProperty("Required", column.nullRate == 0 ? "True" : "False"),
            SchemaProperty("InPrimaryKey", column.key ? "True" : "False"),
            SchemaProperty("LogChanges", column.type == .cursor ? "False" : "True"),
            SchemaProperty("DisplayLabel", column.label ?? column.name),
            SchemaProperty("Description", column.key ? nil : ""),
            SchemaProperty("ReadOnly", column.key ? "True" : "False"),
            SchemaProperty("Visible", "True"),
        ]
    }

    /// Pending changes: about one per 200 rows (at least 3), half updates, a third inserts, the
    /// rest deletes; updates and deletes carry the stored row's old values, as .NET logs them.
    func makeDelta(_ spec: TableSpec, table: Table, random: inout SplitMix64) -> Delta {
        let logged = spec.columns.map { LoggedField(name: ByteString(utf8: $0.name), type: $0.type) }
        let keyIndex = spec.columns.firstIndex(where: \.key)!
        let count = profile == .deltaHeavy ? table.rows.count + table.rows.count / 4 : max(3, table.rows.count / 200)
        var changes: [DeltaChange] = []
        changes.reserveCapacity(count)
        var nextID = table.rows.count + 1
        for i in 0..<count {
            let recordID = Int32(1100 + i)
            var roll = random.next() % 10
            var rowIndex: Int?
            if profile == .deltaHeavy {
                // Row i gets change i (7 in 10 updates, the rest deletes); the last quarter inserts.
                if i < table.rows.count {
                    rowIndex = i
                    roll = roll < 7 ? 3 + roll % 5 : 8
                } else {
                    roll = 0
                }
            }
            var status = ChangeStatus.pending
            var message = ByteString.empty
            if random.next() % 50 == 0 {
                status = .failed
                message = ByteString(utf8: "Violation of PRIMARY KEY constraint 'PK_\(spec.name)'. Cannot insert duplicate key.")
            }
            if roll < 3 || table.rows.isEmpty {
                var new: [Value?] = spec.columns.map { column in
                    column.nullRate > 0 && random.chance(column.nullRate) ? nil : makeValue(column, row: nextID - 1, random: &random)
                }
                new[keyIndex] = .integer(Int64(nextID))
                nextID += 1
                changes.append(DeltaChange(type: .insert, recordID: recordID, status: status, message: message,
                                           oldValues: Array(repeating: nil, count: logged.count), newValues: new))
            } else {
                let row = table.rows[rowIndex ?? random.int(0...table.rows.count - 1)]
                if roll < 8 {
                    var old: [Value?] = Array(repeating: nil, count: logged.count)
                    var new = old
                    old[keyIndex] = row[keyIndex]
                    new[keyIndex] = row[keyIndex]
                    for _ in 0..<random.int(1...3) {
                        let column = random.int(0...spec.columns.count - 1)
                        guard column != keyIndex else { continue }
                        old[column] = row[column]
                        new[column] = makeValue(spec.columns[column], row: 0, random: &random)
                    }
                    changes.append(DeltaChange(type: .update, recordID: recordID, status: status, message: message, oldValues: old, newValues: new))
                } else {
                    changes.append(DeltaChange(type: .delete, recordID: recordID, status: status, message: message,
                                               oldValues: row, newValues: Array(repeating: nil, count: logged.count)))
                }
            }
        }
        return Delta(name: ByteString(utf8: spec.name), loggedFields: logged, keyFields: [ByteString(utf8: spec.columns[keyIndex].name)],
                     reducedDeltaFlag: 1, changes: changes)
    }
}
