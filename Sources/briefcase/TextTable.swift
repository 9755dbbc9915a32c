import BriefcaseKit

/// Rows as aligned columns for people (`query --format table`), in memory bounded whatever the
/// number of rows: the first rows — up to `sampleRows` of them, or until their cells hold
/// `sampleBytes` of text — are kept to measure the columns; then the header, the rule and those
/// rows are written, and every later row as it comes, with the same widths. A later cell wider
/// than its column is written whole and pushes the rest of its line to the right: columns are
/// never cut (Spec/robustness.md §9.3).
///
/// Cells and headers are escaped for the terminal (`TerminalText`) and measured by display width
/// (`DisplayWidth`: wide characters two columns, combining marks none). Numbers are aligned right,
/// everything else left; trailing spaces are trimmed.
struct TextTable {
    static let sampleRows = 1000
    static let sampleBytes = 4 << 20

    struct Cell {
        var text: String
        var width: Int
        var number: Bool

        /// `text` escaped and measured.
        init(_ text: String, number: Bool) {
            self.text = TerminalText.escaped(text)
            self.width = DisplayWidth.of(self.text)
            self.number = number
        }
    }

    private let headers: [Cell]
    /// The rows kept to measure the columns, until `widths` is set.
    private(set) var sample: [[Cell]] = []
    private var sampleSize = 0
    /// The columns' widths, once measured.
    private var widths: [Int]?
    /// Rows added.
    private(set) var count = 0

    /// Whether the header and its rule are written.
    private let showsHeader: Bool

    init(headers: [String], showsHeader: Bool = true) {
        self.headers = headers.map { Cell($0, number: false) }
        self.showsHeader = showsHeader
    }

    /// Adds a row; returns the text to write now (nothing while the sample is gathered).
    mutating func add(_ row: [Cell]) -> String {
        count += 1
        if let widths { return Self.line(row, widths) }
        sample.append(row)
        sampleSize += row.reduce(0) { $0 + $1.text.utf8.count }
        return sample.count >= Self.sampleRows || sampleSize >= Self.sampleBytes ? measure() : ""
    }

    /// The text still to write at the end: the sample (when there were fewer rows than it holds)
    /// and the row count.
    mutating func finish() -> String {
        (widths == nil ? measure() : "") + "(\(count) row\(count == 1 ? "" : "s"))\n"
    }

    /// Measures the columns over the header and the sample, lets the sample go, and returns the
    /// header, the rule and the sample's lines.
    private mutating func measure() -> String {
        var widths = headers.map { showsHeader ? $0.width : 0 }
        for row in sample {
            for (column, cell) in row.enumerated() where column < widths.count { widths[column] = max(widths[column], cell.width) }
        }
        self.widths = widths
        var text = ""
        if showsHeader {
            text += Self.line(headers, widths)
            text += Self.line(widths.map { Cell(String(repeating: "-", count: $0), number: false) }, widths)
        }
        for row in sample { text += Self.line(row, widths) }
        sample = []
        sampleSize = 0
        return text
    }

    private static func line(_ cells: [Cell], _ widths: [Int]) -> String {
        var text = ""
        for (column, cell) in cells.enumerated() {
            if column > 0 { text += "  " }
            let padding = String(repeating: " ", count: max(0, (column < widths.count ? widths[column] : 0) - cell.width))
            text += cell.number ? padding + cell.text : cell.text + padding
        }
        while text.last == " " { text.removeLast() }
        return text + "\n"
    }
}
