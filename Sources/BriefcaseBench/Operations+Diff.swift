import BriefcaseDiff
import BriefcaseKit
import BriefcaseMerge
import Foundation

/// `diff`: two briefcases that differ in 1 % of their rows, compared as `briefcase diff` does.
enum DiffBench {
    /// Writes `input` with every 100th row of each table from row `start` changed (its last field
    /// set to NULL, or to the first field's value when NULL already) at `path`; returns how many
    /// rows changed.
    /// With `nonNull`, each row instead gets its last non-key field that holds a number, text, a
    /// boolean or a date changed to another value of its kind (a merge records changes in
    /// reduced deltas, which cannot set NULL).
    static func writeEdited(_ input: String, to path: String, start: Int = 50, nonNull: Bool = false) throws -> Int {
        var warnings: [DecodingWarning] = []
        var document = try BriefcaseDocument.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: input))), as: .dabriefcase, warnings: &warnings)
        var changed = 0
        for place in document.file.stream.elements.indices {
            guard case .table(var table) = document.file.stream.elements[place], table.fields.count > 1 else { continue }
            var rows = Array(table.rows)
            let keys = Set(table.primaryKeyColumns)
            for i in stride(from: start, to: rows.count, by: 100) {
                if nonNull {
                    guard let column = rows[i].indices.reversed().first(where: { !keys.contains($0) && bumped(rows[i][$0], table.fields[$0]) != nil }) else { continue }
                    rows[i][column] = bumped(rows[i][column], table.fields[column])
                    changed += 1
                    continue
                }
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

    /// `value` changed to another of its kind that `field` holds; nil for NULL and other kinds.
    static func bumped(_ value: Value?, _ field: FieldDescriptor) -> Value? {
        let changed: Value?
        switch value {
        case .integer(let x)?: changed = .integer(x == 0 ? 1 : x - 1)
        case .float(let x)? where x.isFinite: changed = .float(x + 1)
        case .currency(let x)?: changed = .currency(Currency(scaled: x.scaled == 0 ? 1 : x.scaled - 1))
        case .boolean(let x)?: changed = .boolean(x == 0 ? 1 : 0)
        case .ansiString(let x)? where x.bytes.last.map({ $0 < 0x80 }) ?? false: changed = .ansiString(ByteString(x.bytes.dropLast() + [x.bytes.last! == 0x41 ? 0x42 : 0x41]))
        default: changed = nil
        }
        guard let changed, let storage = field.type.storage, changed.fits(storage) else { return nil }
        return changed
    }

    /// The differences of `a` and `b`, read and compared as `briefcase diff --jobs` does: table
    /// by table, each decoded from its file mapped when compared, the tables on `jobs` threads.
    static func diff(_ a: String, _ b: String, jobs: Int) throws -> [BriefcaseDifference] {
        let old = BriefcaseTables(try BriefcaseElements.open(a, as: .dabriefcase))
        let new = BriefcaseTables(try BriefcaseElements.open(b, as: .dabriefcase))
        let differences = try BriefcaseComparison.differences(old, new, options: DiffOptions(jobs: jobs))
        _ = try old.readingReport()
        _ = try new.readingReport()
        return differences
    }
}

/// `merge`: BASE and two copies that each changed 1 % of its rows (other rows each), merged as
/// `briefcase merge` does: table by table (`ThreeWayMerge` over `BriefcaseTables`, each table
/// decoded from its file mapped when merged, BASE's strings checked for its code page as read,
/// the sides' against it), then BASE's elements with the merge's edits written by the stream
/// writer, read element by element as `convert` reads them.
enum MergeBench {
    /// The merged briefcase of `base`, `local` and `remote`, written at `output`; its conflicts.
    static func merge(_ base: String, _ local: String, _ remote: String, to output: String, jobs: Int) throws -> Int {
        let baseElements = try BriefcaseElements.open(base, as: .dabriefcase)
        let baseTables = BriefcaseTables(baseElements)
        let sides = try [local, remote].map { BriefcaseTables(try BriefcaseElements.open($0, as: .dabriefcase), checkingAsRead: false) }
        let plan = try ThreeWayMerge.merge(base: baseTables, local: sides[0], remote: sides[1], jobs: jobs,
                                           sidesChecked: baseTables.headsDetection)
        _ = try baseTables.readingReport()
        guard plan.sidesHold.local && plan.sidesHold.remote,
              try sides.allSatisfy({ try $0.unreadElementsHold(baseTables.headsDetection!) }) else {
            System.fail("merge: the sides do not read in BASE's code page")
        }
        var sink = BinarySink(output: FileSink(path: output), container: .dabriefcase)
        _ = try baseElements.edited(plan.edits).read(into: &sink, encoding: .utf8, skipDamaged: false, jobs: jobs)
        sink.output.close()
        return plan.conflicts.count
    }
}
