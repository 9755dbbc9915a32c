import BriefcaseDiff
import BriefcaseKit
import Foundation

/// `diff`: two briefcases that differ in 1 % of their rows, compared as `briefcase diff` does.
enum DiffBench {
    /// Writes `input` with every 100th row of each table changed (its last field set to NULL, or
    /// to the first field's value when NULL already) at `path`; returns how many rows changed.
    static func writeEdited(_ input: String, to path: String) throws -> Int {
        var warnings: [DecodingWarning] = []
        var document = try BriefcaseDocument.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: input))), as: .dabriefcase, warnings: &warnings)
        var changed = 0
        for place in document.file.stream.elements.indices {
            guard case .table(var table) = document.file.stream.elements[place], table.fields.count > 1 else { continue }
            var rows = Array(table.rows)
            for i in stride(from: 50, to: rows.count, by: 100) {
                let last = rows[i].count - 1
                let replacement: Value? = rows[i][last] == nil ? rows[i][0] : nil
                guard replacement == nil || replacement!.fits(table.fields[last].type.storage!) else { continue }
                rows[i][last] = replacement
                changed += 1
            }
            table.rows = Rows(rows)
            document.file.stream.elements[place] = .table(table)
        }
        try Data(try document.encode()).write(to: URL(fileURLWithPath: path))
        return changed
    }

    /// The differences of `a` and `b`, read and compared as `briefcase diff --jobs` does: table
    /// by table, each decoded from its file mapped when compared, the tables on `jobs` threads.
    static func diff(_ a: String, _ b: String, jobs: Int) throws -> [BriefcaseDifference] {
        let old = ComparedBriefcase(try BriefcaseElements.open(a, as: .dabriefcase))
        let new = ComparedBriefcase(try BriefcaseElements.open(b, as: .dabriefcase))
        let differences = try BriefcaseComparison.differences(old, new, options: DiffOptions(jobs: jobs))
        _ = try old.readingReport()
        _ = try new.readingReport()
        return differences
    }
}
