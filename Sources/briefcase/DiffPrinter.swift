import BriefcaseDiff
import BriefcaseJSON
import BriefcaseKit
import JSONCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `diff`'s output: text for people (daff's highlighter style), JSON Lines for scripts, or counts
/// (Spec/diff.md §5). Every name and value is escaped for the terminal before any colour is added.
struct DiffPrinter {
    let old: DiffSide
    let new: DiffSide
    let colored: Bool

    init(old: DiffSide, new: DiffSide, colored: Bool) {
        self.old = old
        self.new = new
        self.colored = colored
    }

    static var standardOutputIsTerminal: Bool { isatty(1) == 1 }

    // MARK: text

    func text(_ differences: [BriefcaseDifference]) -> String {
        guard !differences.isEmpty else { return "" }
        var lines = [paint("--- " + TerminalText.escaped(old.path), "1"), paint("+++ " + TerminalText.escaped(new.path), "1")]
        var table: ByteString?
        for difference in differences {
            if let name = difference.table, name != table {
                table = name
                if case .table = difference {} else { lines.append(paint("@@ " + display(name, old), "36")) }
            }
            switch difference {
            case .property(let name, let a, let b):
                let named = "property " + quoted(display(name, old))
                switch (a, b) {
                case (let a?, let b?): lines.append(paint("→ \(named): \(quoted(display(a, old))) → \(quoted(display(b, new)))", "33"))
                case (let a?, nil): lines.append(paint("- \(named) = \(quoted(display(a, old)))", "31"))
                case (nil, let b?): lines.append(paint("+ \(named) = \(quoted(display(b, new)))", "32"))
                default: break
                }
            case .table(let name, let kind):
                lines.append(paint("\(mark(kind)) table \(quoted(display(name, kind == .added ? new : old)))", colour(kind)))
            case .field(let field):
                let describe = { (f: FieldDescriptor?, key: Bool) in f.map { "\($0.type.name)(\($0.size))\(key ? " key" : "")" } ?? "" }
                let name = "field " + quoted(display(field.name, old))
                switch field.kind {
                case .added: lines.append(paint("+ \(name) \(describe(field.new, field.keyInNew))", "32"))
                case .removed: lines.append(paint("- \(name) \(describe(field.old, field.keyInOld))", "31"))
                case .changed: lines.append(paint("→ \(name) \(describe(field.old, field.keyInOld)) → \(describe(field.new, field.keyInNew))", "33"))
                }
            case .row(let row): lines.append(paint(rowLine(row), colour(row.kind)))
            case .change(let change): lines.append(paint(changeLine(change), colour(change.kind)))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    func rowLine(_ row: RowDifference) -> String {
        var cells: [String] = []
        if let position = row.position { cells.append("#\(position)") }
        for (name, value) in zip(row.keyFields, row.key) { cells.append(cell(name, value, row.old != nil ? old : new)) }
        switch row.kind {
        case .changed:
            for pair in row.changedColumns {
                cells.append("\(display(row.oldFields[pair.old].name, old)): \(valueText(row.old![pair.old], old)) → \(valueText(row.new![pair.new], new))")
            }
        case .added, .removed:
            let added = row.kind == .added
            let (fields, values, side) = added ? (row.newFields, row.new!, new) : (row.oldFields, row.old!, old)
            let keyPlaces = Set(row.keyColumns.map { added ? $0.new : $0.old })
            for (place, (field, value)) in zip(fields, values).enumerated() where !keyPlaces.contains(place) {
                cells.append(cell(field.name, value, side))
            }
        }
        return mark(row.kind) + " " + cells.joined(separator: "  ")
    }

    func changeLine(_ change: ChangeDifference) -> String {
        let head = "\(mark(change.kind)) pending \(change.recordID)"
        switch change.kind {
        case .added: return head + " " + changeText(change.new!, change.newFields, new)
        case .removed: return head + " " + changeText(change.old!, change.oldFields, old)
        case .changed: return head + " " + changeText(change.old!, change.oldFields, old) + " → " + changeText(change.new!, change.newFields, new)
        }
    }

    /// `TYPE STATUS; message '…'; old: F=V …; new: F=V …` (absent values left out), the cells
    /// `cellSeparator` apart: a change as `diff` and `textconv` show it.
    func changeText(_ change: DeltaChange, _ fields: [LoggedField], _ side: DiffSide, cellSeparator: String = " ") -> String {
        var parts = ["\(change.type) \(change.status)"]
        if !change.message.isEmpty { parts.append("message \(quoted(display(change.message, side)))") }
        for (label, values) in [("old", change.oldValues), ("new", change.newValues)] {
            let cells = zip(fields, values).compactMap { field, value in value.map { cell(field.name, $0, side) } }
            if !cells.isEmpty { parts.append("\(label): " + cells.joined(separator: cellSeparator)) }
        }
        return parts.joined(separator: "; ")
    }

    /// `NAME=VALUE`, as rows and changes show a value.
    func cell(_ name: ByteString, _ value: Value?, _ side: DiffSide) -> String {
        "\(display(name, side))=\(valueText(value, side))"
    }

    // MARK: JSON Lines

    func jsonLines(_ differences: [BriefcaseDifference]) -> String {
        var out = ""
        func line(_ members: [(String, String)]) {
            out += "{" + members.map { "\(jsonString($0.0)): \($0.1)" }.joined(separator: ", ") + "}\n"
        }
        func string(_ s: ByteString?, _ side: DiffSide) -> String { s.map { jsonString(side.codePage.decodeForDisplay($0)) } ?? "null" }
        func object(_ fields: [FieldDescriptor], _ row: Row?, _ side: DiffSide) -> String {
            guard let row else { return "null" }
            return "{" + zip(fields, row).map { "\(jsonString(side.codePage.decodeForDisplay($0.name))): \(JSONDocumentValue.text($1, type: $0.type, codePage: side.codePage))" }
                .joined(separator: ", ") + "}"
        }
        for difference in differences {
            switch difference {
            case .property(let name, let a, let b):
                let kind: BriefcaseDifference.Kind = a == nil ? .added : b == nil ? .removed : .changed
                line([("kind", jsonString(kind.rawValue)), ("property", string(name, old)), ("old", string(a, old)), ("new", string(b, new))])
            case .table(let name, let kind):
                line([("table", string(name, kind == .added ? new : old)), ("kind", jsonString(kind.rawValue))])
            case .field(let field):
                let describe = { (f: FieldDescriptor?, key: Bool) in
                    f.map { "{\"type\": \(jsonString($0.type.name)), \"size\": \($0.size), \"key\": \(key)}" } ?? "null"
                }
                line([("table", string(field.table, old)), ("kind", jsonString(field.kind.rawValue)), ("field", string(field.name, old)),
                      ("old", describe(field.old, field.keyInOld)), ("new", describe(field.new, field.keyInNew))])
            case .row(let row):
                let keyFields = row.keyColumns.map { row.oldFields[$0.old] }
                var members = [("table", string(row.table, old)), ("key", object(keyFields, row.key, row.old != nil ? old : new))]
                if let position = row.position { members.append(("position", "\(position)")) }
                members.append(("kind", jsonString(row.kind.rawValue)))
                guard row.kind == .changed else {
                    line(members + [("field", "null"), ("old", object(row.oldFields, row.old, old)), ("new", object(row.newFields, row.new, new))])
                    continue
                }
                for pair in row.changedColumns {
                    let (a, b) = (pair.old, pair.new)
                    line(members + [("field", string(row.oldFields[a].name, old)),
                                    ("old", JSONDocumentValue.text(row.old![a], type: row.oldFields[a].type, codePage: old.codePage)),
                                    ("new", JSONDocumentValue.text(row.new![b], type: row.newFields[b].type, codePage: new.codePage))])
                }
            case .change(let change):
                func describe(_ c: DeltaChange?, _ fields: [LoggedField], _ side: DiffSide) -> String {
                    guard let c else { return "null" }
                    let columns = fields.map { FieldDescriptor(name: $0.name, type: $0.type) }
                    return "{\"type\": \(jsonString(c.type.description)), \"status\": \(jsonString(c.status.description)), "
                        + "\"message\": \(string(c.message, side)), \"old\": \(object(columns, c.oldValues, side)), \"new\": \(object(columns, c.newValues, side))}"
                }
                line([("table", string(change.table, old)), ("pending", "\(change.recordID)"), ("kind", jsonString(change.kind.rawValue)),
                      ("old", describe(change.old, change.oldFields, old)), ("new", describe(change.new, change.newFields, new))])
            }
        }
        return out
    }

    // MARK: summary

    func summary(_ differences: [BriefcaseDifference]) -> String {
        var lines: [String] = []
        let properties = differences.filter { $0.table == nil }.count
        if properties > 0 { lines.append("properties: \(properties) differ") }
        var order: [[UInt8]] = [], counts: [[UInt8]: (name: ByteString, parts: [String: Int])] = [:]
        for difference in differences {
            guard let table = difference.table else { continue }
            let key = nameKey(table)
            if counts[key] == nil { order.append(key); counts[key] = (table, [:]) }
            let part: String
            switch difference {
            case .table(_, let kind): part = "table \(kind.rawValue)"
            case .field(let field): part = "fields \(field.kind.rawValue)"
            case .row(let row): part = "rows \(row.kind.rawValue)"
            case .change(let change): part = "pending changes \(change.kind.rawValue)"
            case .property: continue
            }
            counts[key]!.parts[part, default: 0] += 1
        }
        let parts = ["table added", "table removed"] + ["fields", "rows", "pending changes"].flatMap { what in
            BriefcaseDifference.Kind.allCases.map { "\(what) \($0.rawValue)" }
        }
        for key in order {
            let (name, found) = counts[key]!
            let said = parts.compactMap { part in found[part].map { part.hasPrefix("table") ? part : "\($0) \(part)" } }
            lines.append("\(display(name, old)): " + said.joined(separator: ", "))
        }
        return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
    }

    // MARK: pieces

    func display(_ name: ByteString, _ side: DiffSide) -> String {
        TerminalText.escaped(side.codePage.decodeForDisplay(name))
    }

    func quoted(_ text: String) -> String { "'" + text.replacing("'", with: "''") + "'" }

    /// `text` as a JSON string.
    func jsonString(_ text: String) -> String {
        var out: [UInt8] = []
        JSONEmit.appendString(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// A value for people: text quoted, NULL as NULL, the rest as `cat` prints it; escaped.
    func valueText(_ value: Value?, _ side: DiffSide) -> String {
        guard let value else { return "NULL" }
        let text = TerminalText.escaped(RowPrinter<ArraySink>.plainText(value, codePage: side.codePage))
        switch value {
        case .ansiString, .wideString: return quoted(text)
        default: return text
        }
    }

    func mark(_ kind: BriefcaseDifference.Kind) -> String {
        switch kind {
        case .added: "+"
        case .removed: "-"
        case .changed: "→"
        }
    }

    func colour(_ kind: BriefcaseDifference.Kind) -> String {
        switch kind {
        case .added: "32"
        case .removed: "31"
        case .changed: "33"
        }
    }

    func paint(_ line: String, _ code: String) -> String {
        colored ? "\u{1B}[\(code)m" + line + "\u{1B}[0m" : line
    }
}
