import ArgumentParser
import BriefcaseDiff
import BriefcaseKit

struct TextconvCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "textconv",
        abstract: "Print a briefcase as sorted lines of text, for git diff (textconv).",
        discussion: """
        One line per property, table, field, row and pending change, in an order that depends only \
        on the content: tables in stream order, each table's rows sorted (the key fields first), \
        its pending changes by record id. The same briefcase gives the same bytes on every \
        platform, so git can show row-level changes of a binary briefcase (git diff, git log -p, \
        git blame) and cache the text (Spec/diff.md §7). `briefcase git-setup` configures a \
        repository to use it.

        Examples:
          briefcase textconv Orders.daBriefcase
          git diff Orders.daBriefcase        # after briefcase git-setup
        """
    )

    @Argument(help: "The briefcase (any format; - for standard input with --from).")
    var path: String

    @OptionGroup var inputOptions: InputOptions

    func validate() throws { try inputOptions.check([path]) }

    func run() throws {
        let read = try ReadDocument(path, options: inputOptions)
        try StandardOutput.write(Self.text(of: read))
    }

    /// The lines of `read` (Spec/diff.md §7).
    static func text(of document: ReadDocument) -> String {
        let read = document.side
        let printer = DiffPrinter(old: read, new: read, colored: false)
        var lines: [String] = []
        for property in document.document.file.properties {
            lines.append("property \(printer.quoted(printer.display(property.name, read))) = \(printer.quoted(printer.display(property.value, read)))")
        }
        for entry in TableAndDelta.entries(of: document.document.file.stream) {
            if let table = entry.table {
                lines.append("table \(printer.quoted(printer.display(table.name, read)))")
                let keys = entry.keyFlags
                for (field, key) in zip(table.fields, keys) {
                    lines.append("  field \(printer.quoted(printer.display(field.name, read))) \(field.type.name)(\(field.size))\(key ? " key" : "")")
                }
                let order = table.fields.indices.filter { keys[$0] } + table.fields.indices.filter { !keys[$0] }  // key fields first
                var rows = table.rows.map { row in
                    "  row " + order.map { printer.cell(table.fields[$0].name, row[$0], read) }.joined(separator: "  ")
                }
                rows.sort { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
                lines += rows
            }
            if let delta = entry.delta {
                lines.append("pending \(printer.quoted(printer.display(delta.name, read)))")
                let changes = Array(delta.changes).enumerated().sorted { ($0.element.recordID, $0.offset) < ($1.element.recordID, $1.offset) }
                for (_, change) in changes {
                    lines.append("  change \(change.recordID) " + printer.changeText(change, delta.loggedFields, read, cellSeparator: "  "))
                }
            }
        }
        return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
    }
}
