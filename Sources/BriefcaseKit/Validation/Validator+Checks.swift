/// The checks on decoded elements. Offsets are recomputed from the model: a decoded element
/// re-encodes to the same number of bytes (`bin2.md` §9), so the position of every descriptor,
/// logged field, change and value follows from the element's start and the sizes before it.
/// Without bytes (a JSON document) the offsets are nil.
extension ValidationRun {
    // MARK: names

    /// Two tables (or two deltas) whose names match ASCII case-insensitively: Data Abstract keys
    /// elements by lower-cased name (`t#orders`), so one of them would be lost.
    mutating func checkDuplicateNames() {
        // The first element of each kind and name (`nameKey`: no comparison of every pair).
        var seen: [ElementKind: [[UInt8]: Listed]] = [:]
        for item in listed {
            let key = nameKey(item.name)
            if let first = seen[item.kind]?[key] {
                let kind = item.kind.label
                let where_ = first.entryOffset.map { " (index entry at offset \($0)\(first.file.map { " of \($0)" } ?? ""))" }
                    ?? first.file.map { " (in \($0))" } ?? ""
                add(.error, .duplicateName, { codePage in
                    "a second \(kind) named '\(codePage.decodeForDisplay(item.name))': '\(codePage.decodeForDisplay(first.name))'\(where_) has the same name ignoring case, and Data Abstract keeps only one \(kind) per name"
                }, offset: item.entryOffset, element: item.name, file: item.file)
            } else {
                seen[item.kind, default: [:]][key] = item
            }
        }
    }

    // MARK: tables

    /// Where a table's parts start (nil without bytes).
    struct TableLayout {
        var schemaFieldStarts: [Int?] = []
        var fieldCountOffset: Int?
        var descriptorStarts: [Int?] = []
        var rowsStart: Int?
    }

    static func layout(of table: Table, at item: Located) -> TableLayout {
        var layout = TableLayout()
        // Offsets: flag, schema end, schema, row count, field count, descriptors, rows.
        var offset = item.start.map { $0 + 5 }
        if let schema = table.schema {
            offset = offset.map { $0 + 8 }
            for list in schema.fields {
                layout.schemaFieldStarts.append(offset)
                offset = offset.map { $0 + Self.size(of: list) }
            }
            offset = offset.map { $0 + 8 }
            for list in schema.parameters { offset = offset.map { $0 + Self.size(of: list) } }
        }
        layout.fieldCountOffset = offset.map { $0 + 4 }
        offset = offset.map { $0 + 8 }
        for field in table.fields {
            layout.descriptorStarts.append(offset)
            offset = offset.map { $0 + 9 + field.name.count }
        }
        layout.rowsStart = offset
        return layout
    }

    /// The checks on a table's head: its row descriptors against its schema.
    mutating func checkTableHead(_ table: Table, at item: Located) {
        guard let schema = table.schema else { return }
        let layout = Self.layout(of: table, at: item)
        checkDescriptors(table, schema: schema, fieldCountOffset: layout.fieldCountOffset, descriptorStarts: layout.descriptorStarts,
                         schemaFieldStarts: layout.schemaFieldStarts, file: item.file)
    }

    /// The checks on the values of a table's rows, in the model.
    mutating func checkRows(_ table: Table, at item: Located) {
        var offset = Self.layout(of: table, at: item).rowsStart
        let names = table.fields.map(\.name), storages = table.fields.map(\.type.storage)
        for (rowIndex, row) in table.rows.enumerated() {
            checkRow(row, index: rowIndex, names: names, storages: storages, offset: &offset, element: table.name, file: item.file)
        }
    }

    /// The checks on the values of row `index`, which starts at `offset` (ends after it).
    mutating func checkRow(_ row: Row, index rowIndex: Int, names: [ByteString], storages: [ValueStorage?], offset: inout Int?,
                           element: ByteString, file: String?) {
        checkRecord(row, names: names, storages: storages, offset: &offset, element: element, file: file) { fieldName in
            { codePage in "row \(rowIndex), field '\(codePage.decodeForDisplay(fieldName))'" }
        }
    }

    /// Row descriptors against the schema fields, by position: the count, `Name` (decoded, since
    /// descriptors are 8-bit and schema values UTF-8) and `DataType`.
    private mutating func checkDescriptors(_ table: Table, schema: Schema, fieldCountOffset: Int?, descriptorStarts: [Int?],
                                           schemaFieldStarts: [Int?], file: String?) {
        let name = table.name
        if schema.fields.count != table.fields.count {
            let rows = table.fields.count, fields = schema.fields.count
            add(.error, .rowDescriptors,
                "the rows have \(rows) field descriptors but the schema describes \(fields) fields",
                offset: fieldCountOffset, element: name, file: file)
        }
        let nameKey = ByteString(utf8: "Name"), typeKey = ByteString(utf8: "DataType")
        for (i, (descriptor, properties)) in zip(table.fields, schema.fields).enumerated() {
            let descriptorOffset = descriptorStarts[i]
            if let stored = properties.first(where: { namesMatch($0.name, nameKey) })?.value {
                let schemaName = stored.utf8String
                let decoded = codePage.decode(descriptor.name)
                let descriptorBytes = descriptor.name
                if let schemaName, let decoded, decoded != schemaName {
                    let severity: Severity = decoded.lowercased() == schemaName.lowercased() ? .warning : .error
                    add(severity, .rowDescriptors, { codePage in
                        "row descriptor \(i) is named '\(decoded)' (in \(codePage.name)) but schema field \(i) is named '\(schemaName)'"
                            + (severity == .warning ? " (they differ only in letter case)" : "")
                    }, offset: descriptorOffset, element: name, file: file)
                } else if schemaName == nil || decoded == nil, stored != descriptorBytes {
                    // Not comparable as text: compare the bytes.
                    add(.error, .rowDescriptors, { codePage in
                        "row descriptor \(i) is named '\(codePage.decodeForDisplay(descriptorBytes))' but schema field \(i) is named '\(String(decoding: stored.bytes, as: UTF8.self))' (not decodable as \(schemaName == nil ? "UTF-8" : codePage.name))"
                    }, offset: descriptorOffset, element: name, file: file)
                }
            }
            if let stored = properties.first(where: { namesMatch($0.name, typeKey) })?.value {
                let typeOffset = descriptorOffset.map { $0 + 4 + descriptor.name.count }
                let text = String(decoding: stored.bytes, as: UTF8.self)
                let trimmed = text.trimmingASCIIWhitespace()
                let declared = DataType(name: trimmed) ?? UInt8(trimmed).map { DataType(rawValue: $0) }
                let descriptorName = descriptor.name
                if let declared {
                    if declared != descriptor.type {
                        let code = descriptor.type
                        add(.error, .rowDescriptors, { codePage in
                            "row descriptor \(i) '\(codePage.decodeForDisplay(descriptorName))' has type \(code.name) (\(code.rawValue)) but the schema's DataType is \(declared.name)"
                        }, offset: typeOffset, element: name, file: file)
                    }
                } else {
                    add(.error, .rowDescriptors, { codePage in
                        "schema field \(i) ('\(codePage.decodeForDisplay(descriptorName))') has DataType '\(text)', which is not a Data Abstract type name"
                    }, offset: schemaFieldStarts[i], element: name, file: file)
                }
            }
        }
    }

    // MARK: deltas

    /// Where a delta's logged fields and its changes start (nil without bytes).
    static func layout(of delta: Delta, at item: Located) -> (loggedStarts: [Int?], changesStart: Int?) {
        var offset = item.start.map { $0 + 8 }
        var loggedStarts: [Int?] = []
        for field in delta.loggedFields {
            loggedStarts.append(offset)
            offset = offset.map { $0 + 5 + field.name.count }
        }
        offset = offset.map { $0 + 4 }
        for key in delta.keyFields { offset = offset.map { $0 + 4 + key.count } }
        offset = offset.map { $0 + 5 }
        return (loggedStarts, offset)
    }

    /// The checks on a delta's head: its two change counts (`changeCount` changes follow), its
    /// logged fields against its table's columns.
    mutating func checkDeltaHead(_ delta: Delta, changeCount: Int, at item: Located) {
        let name = delta.name, file = item.file
        guard delta.layout != .countOnly else { return }
        if case .mismatchedCounts(let first) = delta.layout {
            let second = changeCount
            let secondOffset = item.start.map { start in
                start + 8 + delta.loggedFields.reduce(0) { $0 + 5 + $1.name.count } + 4
                    + delta.keyFields.reduce(0) { $0 + 4 + $1.count } + 1
            }
            add(.warning, .changeCounts,
                "the first change count is \(first) but \(second) changes follow (second count\(secondOffset.map { " at offset \($0)" } ?? "")); the second one is used",
                offset: item.start, element: name, file: file)
        }
        checkLoggedFields(delta, loggedStarts: Self.layout(of: delta, at: item).loggedStarts, file: file)
    }

    /// The checks on a delta's changes: their codes and values.
    mutating func checkChanges(_ delta: Delta, at item: Located) {
        let name = delta.name, file = item.file
        guard delta.layout != .countOnly else { return }
        var offset = Self.layout(of: delta, at: item).changesStart
        let names = delta.loggedFields.map(\.name), storages = delta.loggedFields.map(\.type.storage)
        for (changeIndex, change) in delta.changes.enumerated() {
            checkChange(change, index: changeIndex, names: names, storages: storages, offset: &offset, element: name, file: file)
        }
    }

    /// The checks on change `changeIndex`, which starts at `offset` (ends after it): its codes
    /// and values.
    mutating func checkChange(_ change: DeltaChange, index changeIndex: Int, names: [ByteString], storages: [ValueStorage?],
                              offset: inout Int?, element name: ByteString, file: String?) {
        if !change.type.isKnown {
            let code = change.type.rawValue
            add(.error, .changeCodes, "change \(changeIndex) has change type \(code) (0 insert, 1 update, 2 delete)",
                offset: offset, element: name, file: file)
        }
        if !change.status.isKnown {
            let code = change.status.rawValue
            add(.error, .changeCodes, "change \(changeIndex) has status \(code) (0 pending, 1 resolved, 2 failed)",
                offset: offset.map { $0 + 8 }, element: name, file: file)
        }
        offset = offset.map { $0 + 16 + change.message.count }
        for sideIndex in 0 ..< 2 {  // (no array of the values per change)
            let old = sideIndex == 0, side = old ? "old" : "new"
            checkRecord(old ? change.oldValues : change.newValues, names: names, storages: storages, offset: &offset,
                        element: name, file: file) { fieldName in
                { codePage in "change \(changeIndex), \(side) value of '\(codePage.decodeForDisplay(fieldName))'" }
            }
        }
    }

    /// Every logged field is a column of the delta's table (when the briefcase has it), with the
    /// same type code.
    private mutating func checkLoggedFields(_ delta: Delta, loggedStarts: [Int?], file: String?) {
        // Tables by name, built once: not a scan of every element per delta (Spec/robustness.md).
        if tablesByName == nil {
            var index: [[UInt8]: [(Table, String?)]] = [:]
            for item in located {
                if case .table(let t) = item.element { index[nameKey(t.name), default: []].append((t, item.file)) }
            }
            tablesByName = index
        }
        let tables = tablesByName?[nameKey(delta.name)] ?? []
        // The table in the same file first (folders keep a table and its delta together).
        guard let table = (tables.first { $0.1 == file } ?? tables.first)?.0 else { return }
        let name = delta.name
        var columnByName: [[UInt8]: FieldDescriptor] = [:]
        for field in table.fields where columnByName[nameKey(field.name)] == nil { columnByName[nameKey(field.name)] = field }
        for (i, field) in delta.loggedFields.enumerated() {
            let fieldName = field.name
            guard let column = columnByName[nameKey(field.name)] else {
                add(.error, .loggedFields, { codePage in
                    "logged field \(i) '\(codePage.decodeForDisplay(fieldName))' is not a column of table '\(codePage.decodeForDisplay(table.name))'"
                }, offset: loggedStarts[i], element: name, file: file)
                continue
            }
            if column.type != field.type {
                let logged = field.type, actual = column.type
                add(.error, .loggedFields, { codePage in
                    "logged field \(i) '\(codePage.decodeForDisplay(fieldName))' is \(logged.name) (\(logged.rawValue)) but the table's column is \(actual.name) (\(actual.rawValue))"
                }, offset: loggedStarts[i].map { $0 + 4 + field.name.count }, element: name, file: file)
            }
        }
    }

    // MARK: values

    /// The checks on one record (a row, or the old or new values of a change) at `offset`: its mask,
    /// then the present values in the storages of the fields `names`; `offset` ends after it.
    /// `place` gives the words that place a value of a field by its name ("row 5, field 'Name'").
    private mutating func checkRecord(_ values: [Value?], names: [ByteString], storages: [ValueStorage?], offset: inout Int?,
                                      element: ByteString, file: String?, _ place: (ByteString) -> (CodePage) -> String) {
        offset = offset.map { $0 + (names.count + 7) / 8 }
        for (i, value) in values.enumerated() {
            guard let value, i < names.count else { continue }
            checkValue(value, at: offset, element: element, file: file) { place(names[i]) }
            if let storage = storages[i] { offset = offset.map { $0 + Self.size(of: value, storage: storage) } }
        }
    }

    /// The checks on one value at `offset` (the first byte of its encoding). `makeContext` gives
    /// the words that place the value ("row 5, field 'Name'"); it is only called for a finding,
    /// so that checking millions of good values allocates nothing.
    private mutating func checkValue(_ value: Value, at offset: Int?, element: ByteString, file: String?,
                                     _ makeContext: () -> (CodePage) -> String) {
        switch value {
        case .wideString(let text):
            guard let problem = Self.wideTextProblem(text) else { return }
            let context = makeContext()
            add(.error, .wideText, { "\(context($0)): \(problem.message)" },
                offset: problem.unit.flatMap { unit in offset.map { $0 + 4 + 2 * unit } } ?? offset, element: element, file: file)
        case .decimal(let decimal):
            guard Self.decimalHasProblem(flags: decimal.flags) else { return }
            let context = makeContext()
            if decimal.scale > 28 {
                add(.error, .decimal, { "\(context($0)): decimal scale \(decimal.scale) is above 28" },
                    offset: offset.map { $0 + 12 }, element: element, file: file)
            } else if decimal.flags & 0x7F00_FFFF != 0 {
                add(.error, .decimal, { "\(context($0)): decimal flags \(Self.hex32(decimal.flags)) set bits other than the scale (16–23) and the sign (31)" },
                    offset: offset.map { $0 + 12 }, element: element, file: file)
            }
        case .guid(let bytes):
            guard let bad = Self.guidProblem(bytes) else { return }
            let context = makeContext()
            add(.error, .guidText, { "\(context($0)): GUID \(Self.show(bytes)) is not 8-4-4-4-12 hexadecimal text (character \(bad))" },
                offset: offset, element: element, file: file)
        case .dateTime(let date):
            guard !date.value.isFinite else { return }
            let context = makeContext()
            add(.error, .dateTime, { "\(context($0)): DateTime value \(date.value) is not a finite number of days" },
                offset: offset, element: element, file: file)
        default:
            return
        }
    }

    /// The first problem of UTF-16LE bytes: an odd length, or an unpaired surrogate (with its
    /// code unit index).
    static func wideTextProblem(_ text: ByteString) -> (message: String, unit: Int?)? {
        text.withUnsafeBufferPointer { wideTextProblem($0) }
    }

    static func wideTextProblem(_ bytes: UnsafeBufferPointer<UInt8>) -> (message: String, unit: Int?)? {
        if bytes.count % 2 != 0 {
            return ("UTF-16 text has an odd byte length (\(bytes.count))", nil)
        }
        var i = 0, unit = 0
        var pendingHigh: (unit: Int, value: UInt16)?
        while i < bytes.count {
            let value = UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8
            switch value {
            case 0xD800...0xDBFF:
                if let high = pendingHigh { return ("unpaired high surrogate \(hex16(high.value)) at UTF-16 unit \(high.unit)", high.unit) }
                pendingHigh = (unit, value)
            case 0xDC00...0xDFFF:
                if pendingHigh == nil { return ("unpaired low surrogate \(hex16(value)) at UTF-16 unit \(unit)", unit) }
                pendingHigh = nil
            default:
                if let high = pendingHigh { return ("unpaired high surrogate \(hex16(high.value)) at UTF-16 unit \(high.unit)", high.unit) }
            }
            i += 2
            unit += 1
        }
        if let high = pendingHigh { return ("unpaired high surrogate \(hex16(high.value)) at UTF-16 unit \(high.unit)", high.unit) }
        return nil
    }

    /// The index of the first character that breaks `XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX`, or nil.
    static func guidProblem(_ bytes: ByteString) -> Int? {
        bytes.bytes.withUnsafeBufferPointer { guidProblem($0) }
    }

    @inline(__always)
    static func guidProblem(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard bytes.count == 36 else { return min(bytes.count, 36) }
        for (i, byte) in bytes.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                if byte != UInt8(ascii: "-") { return i }
            } else if !((0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)) {
                return i
            }
        }
        return nil
    }

    /// Whether 36 bytes are `8-4-4-4-12` hexadecimal text (`guidProblem` finds nothing), eight
    /// or four bytes at a time.
    @inline(__always)
    static func isGUIDText(_ base: UnsafePointer<UInt8>) -> Bool {
        let raw = UnsafeRawPointer(base), dash = UInt8(ascii: "-")
        guard base[8] == dash, base[13] == dash, base[18] == dash, base[23] == dash else { return false }
        let ones: UInt64 = 0x0101_0101_0101_0101, high: UInt64 = 0x8080_8080_8080_8080
        /// The high bit of each byte (all below 0x80) set when the byte is in `low ... high`.
        @inline(__always) func inRange(_ x: UInt64, _ low: UInt64, _ top: UInt64) -> UInt64 {
            (x &+ ones &* (0x80 &- low)) & ~(x &+ ones &* (0x7F &- top)) & high
        }
        @inline(__always) func hex(_ x: UInt64) -> Bool {
            x & high == 0 && inRange(x, 0x30, 0x39) | inRange(x | 0x2020_2020_2020_2020, 0x61, 0x66) == high
        }
        @inline(__always) func hex4(_ offset: Int) -> Bool {  // (the upper half filled with '0's)
            hex(UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))) | 0x3030_3030_0000_0000)
        }
        return hex(UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self)))
            && hex(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 28, as: UInt64.self)))
            && hex4(9) && hex4(14) && hex4(19) && hex4(24)
    }

    /// Whether a decimal's flags are what the `decimal` check reports: a scale above 28, or bits
    /// set besides the scale (16–23) and the sign (31).
    @inline(__always)
    static func decimalHasProblem(flags: UInt32) -> Bool {
        (flags >> 16) & 0xFF > 28 || flags & 0x7F00_FFFF != 0
    }

    /// False when `wideTextProblem` finds nothing in these UTF-16LE bytes for sure: an even
    /// length and no surrogate code unit (true does not mean a problem: a paired surrogate).
    @inline(__always)
    static func mayHaveWideTextProblem(_ base: UnsafePointer<UInt8>, count: Int) -> Bool {
        if count & 1 != 0 { return true }
        // Four code units at a time: a unit is a surrogate when its top five bits are 11011.
        var i = 0
        while count &- i >= 8 {
            let units = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
            let v = (units & 0xF800_F800_F800_F800) ^ 0xD800_D800_D800_D800       // a lane is 0 for a surrogate
            if (v &- 0x0001_0001_0001_0001) & ~v & 0x8000_8000_8000_8000 != 0 { return true }
            i &+= 8
        }
        while i < count {
            if base[i &+ 1] & 0xF8 == 0xD8 { return true }
            i &+= 2
        }
        return false
    }

    // MARK: sizes

    /// The bytes one schema property list takes.
    static func size(of list: [SchemaProperty]) -> Int {
        list.reduce(0) { $0 + 8 + $1.name.count + ($1.value?.count ?? 0) }
    }

    /// The bytes a value takes in `storage`.
    static func size(of value: Value, storage: ValueStorage) -> Int {
        switch value {
        case .ansiString(let s), .wideString(let s), .blob(let s): return 4 + s.count
        case .guid(let s): return s.count
        default: return storage.minimumSize
        }
    }

    static func hex16(_ value: UInt16) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: 4 - digits.count) + digits
    }

    static func hex32(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// Printable ASCII in quotes, anything else as hex bytes.
    static func show(_ bytes: ByteString) -> String {
        if bytes.bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return "'" + String(decoding: bytes.bytes, as: UTF8.self) + "'" }
        return bytes.bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined(separator: " ")
    }
}
