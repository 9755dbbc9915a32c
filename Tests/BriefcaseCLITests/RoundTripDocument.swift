import JSONCore
import BriefcaseJSON
import BriefcaseKit
import BriefcaseTestSupport

/// Seeded random briefcase documents for the round-trip property (RoundTripPropertyTests), with
/// the edge shapes a writer and a reader can disagree on: tables with no rows, tables without
/// fields (0, a few, exactly 65 536 or 70 000 rows), tables without schema (both schema-end
/// markers), schemas with parameters, nil and non-UTF-8 schema values, columns of every data type
/// with the edge values of `RandomBriefcase.value`, columns of unknown type codes (all NULL),
/// deltas of every layout (full, bare count, mismatched counts) with unknown change and status
/// codes, orphan deltas, deltas before or after their table, both containers, properties and
/// header padding, 8-bit strings in UTF-8 or GBK.
struct RoundTripDocument {
    var document: BriefcaseDocument
    var codePage: CodePage
    /// Why every Bin2 writer (any binary output) must refuse the document: a part of each message it may give.
    var bin2Refusals: [String] = []
    /// Why a bare Bin2 stream must refuse it besides.
    var bareStreamRefusal: String?
    /// Why a folder must refuse it besides.
    var folderRefusal: String?
    /// The names of the tables, as the folder writer shows them (its file names are these).
    var displayNames: [ByteString: String]

    /// The document for `seed`: the same one on every run.
    static func make(seed: UInt64) -> RoundTripDocument {
        var random = SplitMix(seed: seed &* 7919)
        let codePage: CodePage = seed % 4 == 3 ? .gbk : .utf8
        var made = RoundTripDocument(document: BriefcaseDocument(container: random.chance(75) ? .dabriefcase : .bin2, file: BriefcaseFile()),
                                     codePage: codePage, displayNames: [:])
        if made.document.container == .dabriefcase {
            for i in 0..<random.below(4) {
                let values: [ByteString] = ["1", ByteString(utf8: "中文 \"q\""), ByteString([0xff, 0x00, 0x41]), "", ByteString(utf8: "<a>&amp;"),
                                            ByteString(utf8: "v\u{2}\r\n")]
                // Names repeat now and then; some hold a control character, which a folder cannot store.
                let name = random.chance(8) ? "P0" : random.chance(15) ? "P\u{1}\(i)" : "P\(i)"
                if name.contains("\u{1}") { made.folderRefusal = "which XML cannot carry" }
                made.document.file.properties.append(BriefcaseProperty(name: ByteString(utf8: name), value: values[random.below(values.count)]))
            }
            if random.chance(20) { made.document.file.headerPadding = ByteString([0, 1, 2, 0xff]) }
        }
        var elements: [Element] = []
        // Names unique ignoring case and needing no escape in a file name.
        let pool: [(String, ByteString?)] = [("Orders", nil), ("客户", ByteString([0xbf, 0xcd, 0xbb, 0xa7])), ("a b", nil), ("Items", nil), ("x", nil)]
        func name(_ t: Int) -> ByteString {
            let (text, gbk) = pool[random.below(pool.count)]
            let display = text + (t == 0 ? "" : "\(t)")
            let bytes = codePage == .gbk && gbk != nil ? ByteString(gbk!.array + Array((t == 0 ? "" : "\(t)").utf8)) : ByteString(utf8: display)
            made.displayNames[bytes] = display
            return bytes
        }
        for t in 0..<(1 + random.below(4)) {
            let tableName = name(t)
            var table: Table
            switch random.below(6) {
            case 0: table = fieldless(tableName, rows: [0, 1, 3][random.below(3)], &random)
            case 1: table = typed(tableName, rows: 0, &random)
            default: table = typed(tableName, rows: random.below(12), &random)
            }
            var parts: [Element] = random.chance(90) ? [.table(table)] : []
            if random.chance(50) {
                var delta = self.delta(for: table, &random)
                if random.chance(15) {
                    delta.name = ByteString(utf8: "Gone\(t)")
                    made.displayNames[delta.name] = "Gone\(t)"
                }
                if random.chance(40) { parts.insert(.delta(delta), at: 0) } else { parts.append(.delta(delta)) }
            }
            elements += parts
        }
        // At and beyond the reader's cap for a table without fields (Spec/bin2.md §8.8).
        if seed % 12 == 5 || seed % 12 == 11 {
            let rows = seed % 12 == 5 ? 70_000 : Bin2Stream.maximumRowsWithoutFields
            elements.insert(.table(fieldless("NoFields", rows: rows, &random)), at: random.below(elements.count + 1))
            made.displayNames["NoFields"] = "NoFields"
            if rows > Bin2Stream.maximumRowsWithoutFields { made.bin2Refusals.append("a table without fields has \(rows) rows") }
        }
        made.document.file.stream = Bin2Stream(elements: elements)
        if made.document.container == .dabriefcase, !made.document.file.properties.isEmpty || !made.document.file.headerPadding.isEmpty {
            made.bareStreamRefusal = "a bare Bin2 stream cannot hold"
        }
        return made
    }

    /// The document as the library's JSON encoder writes it.
    static func json(_ document: BriefcaseDocument, codePage: CodePage) throws -> [UInt8] {
        var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: codePage)
        try encoder.encode(document)
        return encoder.writer.sink.bytes
    }

    static func fieldless(_ name: ByteString, rows: Int, _ random: inout SplitMix) -> Table {
        Table(name: name, schema: random.chance(50) ? Schema(fields: []) : nil, fields: [], rows: Array(repeating: [], count: rows),
              schemaEndWhenAbsent: random.chance(50) ? .zero : .position)
    }

    /// A table with a column of each of a few random types (every type over the seeds), an
    /// all-NULL column of an unknown type code now and then, and an optional schema: three
    /// properties a column (a nil and a non-UTF-8 value among them), parameters sometimes.
    static func typed(_ name: ByteString, rows: Int, _ random: inout SplitMix) -> Table {
        var fields: [FieldDescriptor] = []
        for c in 0..<(1 + random.below(6)) {
            let type = RandomBriefcase.types[random.below(RandomBriefcase.types.count)]
            fields.append(FieldDescriptor(name: ByteString(utf8: random.chance(10) ? "F0" : "F\(c)"), type: type,
                                          size: type.storage == .wideString ? 65536 : Int32(random.below(3) * 100)))
        }
        if random.chance(15) { fields.append(FieldDescriptor(name: "Odd", type: DataType([0, 27, 200][random.below(3)]), size: 0)) }
        var schema: Schema?
        if random.chance(75) {
            let lists = fields.map { field -> [SchemaProperty] in
                let attribute: ByteString? = [nil, "", ByteString([0xc3, 0x28]), "Datastore.JSON", "Datastore.RecordID"][random.below(5)]
                return [SchemaProperty(name: "Name", value: field.name), SchemaProperty("DataType", field.type.name),
                        SchemaProperty(name: "CustomAttributes", value: attribute)]
            }
            let parameters = random.chance(30) ? [[SchemaProperty("Name", "P"), SchemaProperty("Value", nil)]] : []
            schema = Schema(fieldPropertyCount: 3, fields: lists,
                            parameterPropertyCount: parameters.isEmpty ? [0, 12][random.below(2)] : 2, parameters: parameters)
        }
        var table = Table(name: name, schema: schema, fields: fields, schemaEndWhenAbsent: random.chance(50) ? .zero : .position)
        for _ in 0..<rows {
            table.rows.append(fields.map { field in
                field.type.storage == nil || random.chance(15) ? nil : RandomBriefcase.value(field.type, &random)
            })
        }
        return table
    }

    /// A delta over `table`'s fields: a bare count, mismatched counts or the full layout; change
    /// and status codes beyond 0–2 now and then, messages, key fields, reduced flags 0, 1 and 2.
    static func delta(for table: Table, _ random: inout SplitMix) -> Delta {
        if random.chance(15) { return Delta(name: table.name, loggedFields: [], reducedDeltaFlag: 0, changes: [], layout: .countOnly) }
        let logged = table.fields.map { LoggedField(name: $0.name, type: $0.type) }
        var changes: [DeltaChange] = []
        for k in 0..<random.below(5) {
            let type = [ChangeType.insert, .update, .delete, ChangeType(rawValue: 7)][random.below(random.chance(90) ? 3 : 4)]
            let status = [ChangeStatus.pending, .resolved, .failed, ChangeStatus(rawValue: -3)][random.below(random.chance(90) ? 3 : 4)]
            func values(_ percent: Int) -> [Value?] {
                logged.map { field in field.type.storage != nil && random.chance(percent) ? RandomBriefcase.value(field.type, &random) : nil }
            }
            changes.append(DeltaChange(type: type, recordID: Int32(1100 + k), status: status,
                                       message: status == .failed ? ByteString(utf8: "failed: \"x\" 中") : .empty,
                                       oldValues: type == .insert ? values(0) : values(50), newValues: type == .delete ? values(0) : values(60)))
        }
        let layout: DeltaLayout = random.chance(20) ? .mismatchedCounts(firstCount: Int32(changes.count + 1 + random.below(3))) : .full
        return Delta(name: table.name, loggedFields: logged, keyFields: random.chance(50) && !logged.isEmpty ? [logged[0].name] : [],
                     reducedDeltaFlag: UInt8(random.below(3)), changes: changes, layout: layout)
    }
}
