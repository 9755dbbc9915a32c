import JSONCore
import ArgumentParser
import BriefcaseJSON
import BriefcaseKit

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show a briefcase's properties, tables, columns and pending deltas.",
        discussion: """
        Reads only the header, the element index and each element's head: rows are not decoded, \
        so info is fast on large briefcases. An SQLite database shows the briefcase it stores \
        (each element from its bytes): no row of its tables is read, so edits made there with \
        SQL are not looked for — validate and convert find them.

        Examples:
          briefcase info Orders.daBriefcase
          briefcase info Orders.daBriefcase --json
          gunzip -c Orders.daBriefcase.gz | briefcase info - --from dabriefcase
        """
    )

    @Argument(help: "The briefcase (.daBriefcase, .briefcase, .bin2, .json, .snapshot.json or .sqlite; - for standard input with --from).")
    var path: String

    @OptionGroup var inputOptions: InputOptions

    @Flag(help: "Print one JSON object: format, encoding, properties, tables.")
    var json = false

    func validate() throws {
        try inputOptions.check([path])
    }

    func run() throws {
        let format = try inputOptions.format(of: path)
        let summary = try BriefcaseSummary.load(path, format: format, encoding: inputOptions.encoding.codePage)
        if json {
            var writer = JSONWriter(sink: StandardOutputSink())
            summary.writeJSON(&writer)
            writer.writeRaw("\n")
            try writer.flush()
        } else {
            try StandardOutput.write(summary.text)
        }
    }
}

/// What `info` reports, gathered without decoding rows.
struct BriefcaseSummary {
    struct TableInfo {
        var name: ByteString
        var table: Table?      // schema and fields, no rows
        var rowCount: Int
        var delta: Delta?      // header, no changes
        var changeCount: Int
    }

    var format: FileFormat
    var codePage: CodePage
    var properties: [BriefcaseProperty]
    var tables: [TableInfo]

    /// Heads and counts only: from a binary briefcase or a folder, the heads by offset (no row is
    /// read); from a JSON or snapshot document, its elements as they come, rows dropped.
    static func load(_ path: String, format: FileFormat, encoding: CodePage?) throws -> BriefcaseSummary {
        var counts = ElementCounts()
        try InputSource(path: path, format: format, encoding: encoding).readNamingInput(into: &counts, textOutput: true)
        return BriefcaseSummary(format: format, codePage: counts.head?.codePage ?? .utf8, properties: counts.head?.properties ?? [],
                                tables: group(counts.items))
    }

    /// What `info` shows of each element of a document read as it comes: its head and its count
    /// of rows or changes (the rows themselves are dropped as they pass).
    struct ElementCounts: BriefcaseSink {
        private(set) var head: BriefcaseHead?
        /// One entry per element: a table's (its delta nil) or a delta's (its table nil).
        private(set) var items: [TableInfo] = []

        mutating func begin(_ head: BriefcaseHead) throws(BriefcaseError) {
            self.head = head
            items = []
        }

        mutating func element(_ element: Element) throws(BriefcaseError) {
            switch element {
            case .table(var t):
                let count = t.rows.count
                t.rows = []
                items.append(TableInfo(name: t.name, table: t, rowCount: count, delta: nil, changeCount: 0))
            case .delta(var d):
                let count = d.changes.count
                d.changes = []
                items.append(TableInfo(name: d.name, table: nil, rowCount: 0, delta: d, changeCount: count))
            }
        }

        var needs: SinkNeeds { SinkNeeds(headsOnly: true) }

        mutating func element(summary: ElementSummary, at position: Int) throws(BriefcaseError) {
            items.append(TableInfo(name: summary.name, table: summary.table, rowCount: summary.rowCount,
                                   delta: summary.delta, changeCount: summary.changeCount))
        }

        mutating func finish() throws(BriefcaseError) {}
        mutating func abandon() { head = nil; items = [] }
    }

    /// One entry per table, its delta attached (`ElementPairing`); deltas without a table get an
    /// entry too, after the tables.
    private static func group(_ items: [TableInfo]) -> [TableInfo] {
        let pairing = ElementPairing(kinds: items.map { $0.delta == nil ? .table : .delta }, names: items.map(\.name))
        var tables: [TableInfo] = [], orphans: [TableInfo] = []
        var row: [Int: Int] = [:]  // item of a table → its entry
        for (index, item) in items.enumerated() where item.delta == nil {
            row[index] = tables.count
            tables.append(item)
        }
        for (index, item) in items.enumerated() where item.delta != nil {
            if let table = pairing.partner[index].flatMap({ row[$0] }) {
                tables[table].delta = item.delta
                tables[table].changeCount = item.changeCount
            } else {
                orphans.append(item)
            }
        }
        return tables + orphans
    }

    func text(_ bytes: ByteString) -> String { codePage.decodeForDisplay(bytes) }

    /// A name or value for the text output: escaped for the terminal (`TerminalText`), so a
    /// property value of two lines stays on one, and a control character is shown, not obeyed.
    func shown(_ bytes: ByteString) -> String { TerminalText.escaped(text(bytes)) }

    var text: String {
        var out = "format: \(format.rawValue)\nencoding: \(codePage.name)\n"
        out += "properties: \(properties.count)\n"
        for property in properties { out += "  \(shown(property.name)) = \(shown(property.value))\n" }
        out += "tables: \(tables.count)\n"
        for table in tables {
            var line = "  \(shown(table.name)): "
            line += table.table == nil ? "no dataset" : "\(table.rowCount) rows, \(table.table!.fields.count) fields"
            if table.delta != nil { line += ", delta with \(table.changeCount) changes" }
            out += line + "\n"
            for field in table.table?.fields ?? [] {
                out += "    \(shown(field.name))  \(field.type.name)\(field.size != 0 ? "(\(field.size))" : "")\n"
            }
        }
        return out
    }

    func writeJSON<S: ByteSink>(_ w: inout JSONWriter<S>) {
        w.writeRaw("{\"format\": "); w.writeString(format.rawValue)
        w.writeRaw(", \"encoding\": "); w.writeString(codePage.name)
        w.writeRaw(", \"properties\": [")
        for (i, property) in properties.enumerated() {
            w.writeRaw(i == 0 ? "[" : ", [")
            w.writeString(text(property.name)); w.writeRaw(", "); w.writeString(text(property.value))
            w.writeRaw("]")
        }
        w.writeRaw("], \"tables\": [")
        for (i, table) in tables.enumerated() {
            w.writeRaw(i == 0 ? "\n  {\"name\": " : ",\n  {\"name\": ")
            w.writeString(text(table.name))
            w.writeRaw(", \"dataset\": "); w.writeBool(table.table != nil)
            w.writeRaw(", \"rows\": "); w.writeInt(Int64(table.rowCount))
            w.writeRaw(", \"schema\": "); w.writeBool(table.table?.schema != nil)
            w.writeRaw(", \"fields\": [")
            for (k, field) in (table.table?.fields ?? []).enumerated() {
                w.writeRaw(k == 0 ? "{\"name\": " : ", {\"name\": ")
                w.writeString(text(field.name))
                w.writeRaw(", \"type\": "); w.writeString(field.type.name)
                w.writeRaw(", \"size\": "); w.writeInt(Int64(field.size))
                w.writeRaw("}")
            }
            w.writeRaw("], \"delta\": ")
            if let delta = table.delta {
                w.writeRaw("{\"changes\": "); w.writeInt(Int64(table.changeCount))
                w.writeRaw(", \"loggedFields\": [")
                for (k, field) in delta.loggedFields.enumerated() {
                    if k > 0 { w.writeRaw(", ") }
                    w.writeString(text(field.name))
                }
                w.writeRaw("], \"keyFields\": [")
                for (k, key) in delta.keyFields.enumerated() {
                    if k > 0 { w.writeRaw(", ") }
                    w.writeString(text(key))
                }
                w.writeRaw("]}")
            } else {
                w.writeNull()
            }
            w.writeRaw("}")
        }
        w.writeRaw(tables.isEmpty ? "]}" : "\n]}")
    }
}
