import Foundation
import Testing
import BriefcaseKit
import BriefcaseTestSupport
@testable import BriefcaseDiff

/// Rows kept as bytes are compared by their key columns and bytes (`keyedStoredRowDifferences`),
/// rows made into values value by value: both give the same differences.
struct StoredRowsComparisonTests {
    /// `document` with, in each table, every third row's last value changed (NULL, or the first
    /// value where it was NULL), its second row removed and its first row appended again.
    static func edited(_ document: BriefcaseDocument) -> BriefcaseDocument {
        var edited = document
        for place in edited.file.stream.elements.indices {
            guard case .table(var table) = edited.file.stream.elements[place], table.fields.count > 1 else { continue }
            var rows = Array(table.rows)
            for i in stride(from: 0, to: rows.count, by: 3) {
                let last = rows[i].count - 1
                let replacement: Value? = rows[i][last] == nil ? rows[i][0] : nil
                if replacement.map({ $0.fits(table.fields[last].type.storage!) }) ?? true { rows[i][last] = replacement }
            }
            if rows.count > 1 { rows.remove(at: 1) }
            if let first = rows.first { rows.append(first) }
            table.rows = Rows(rows)
            edited.file.stream.elements[place] = .table(table)
        }
        return edited
    }

    /// Every element's rows made into values.
    static func decoded(_ document: BriefcaseDocument) -> BriefcaseDocument {
        var decoded = document
        for place in decoded.file.stream.elements.indices {
            guard case .table(var table) = decoded.file.stream.elements[place] else { continue }
            table.rows.decodeStored()
            decoded.file.stream.elements[place] = .table(table)
        }
        return decoded
    }

    @Test(arguments: ["orders.bin2", "all-types.daBriefcase", "nulls.daBriefcase", "gbk.daBriefcase"])
    func bytesAndValuesGiveTheSameDifferences(name: String) throws {
        let container: ContainerFormat = name.hasSuffix(".bin2") ? .bin2 : .dabriefcase
        let bytes = [UInt8](try Data(contentsOf: SamplePaths.fixtures.appendingPathComponent(name)))
        var warnings: [DecodingWarning] = []
        let a = try BriefcaseDocument.decode(bytes, as: container, warnings: &warnings)
        // B written and read back, so that its rows are kept as bytes too.
        let b = try BriefcaseDocument.decode(try Self.edited(a).encode(), as: container, warnings: &warnings)
        let stored = a.file.stream.elements.contains { if case .table(let t) = $0 { t.rows.storedView != nil } else { false } }
        #expect(stored, "\(name): rows read from a file are kept as bytes")
        for options in [DiffOptions(), DiffOptions(ignoredFields: ["ID", "Name"])] {
            let fromBytes = BriefcaseComparison.differences(a, b, options: options)
            let fromValues = BriefcaseComparison.differences(Self.decoded(a), Self.decoded(b), options: options)
            #expect(fromBytes == fromValues, "\(name)")
            if options.ignoredFields.isEmpty { #expect(!fromBytes.isEmpty, "\(name): the edits are found") }
        }
    }
}
