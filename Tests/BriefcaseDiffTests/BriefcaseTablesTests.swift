import Foundation
import Testing
import BriefcaseKit
@testable import BriefcaseDiff

/// Briefcases on disk compared table by table (`BriefcaseTables` of `BriefcaseElements`,
/// Spec/diff.md §8): the differences of the documents (which `ComparisonTests` checks against
/// differences written by hand), with one job or two; the code page and the errors of reading.
struct BriefcaseTablesTests {
    /// `document` written as a `.daBriefcase` in a new temporary folder.
    static func file(_ document: BriefcaseDocument, named name: String = "x") throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("briefcase-diff-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent(name + ".daBriefcase").path
        try Data(try document.encode()).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func remove(_ paths: String...) {
        for path in paths { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
    }

    /// `a` and `b` written to files and compared table by table with `jobs`.
    static func fromFiles(_ a: BriefcaseDocument, _ b: BriefcaseDocument, options: DiffOptions = DiffOptions(),
                          jobs: Int) throws -> [BriefcaseDifference] {
        let pathA = try file(a), pathB = try file(b)
        defer { remove(pathA, pathB) }
        var options = options
        options.jobs = jobs
        let old = BriefcaseTables(try BriefcaseElements.open(pathA, as: .dabriefcase))
        let new = BriefcaseTables(try BriefcaseElements.open(pathB, as: .dabriefcase))
        let differences = try BriefcaseComparison.differences(old, new, options: options)
        #expect(try old.readingReport()?.warnings.isEmpty == true)
        return differences
    }

    /// What `ComparisonTests` checks of two documents, again from their files: the same
    /// differences, in the same order, with one job and with two.
    static func expectTheSameFromFiles(_ a: BriefcaseDocument, _ b: BriefcaseDocument, options: DiffOptions = DiffOptions(),
                                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        let expected = BriefcaseComparison.differences(a, b, options: options)
        for jobs in [1, 2] {
            #expect(try fromFiles(a, b, options: options, jobs: jobs) == expected, "jobs \(jobs)", sourceLocation: sourceLocation)
        }
    }

    /// Names and fields in ASCII, one value in windows-1252 (0xE9, é, is no UTF-8): the code page
    /// is not told by the heads but by that value, as `convert` finds it — read from a table the
    /// comparison reached, and from one it did not (`tables`).
    @Test func theCodePageOfTheRowsIsFound() throws {
        let text = FieldDescriptor(name: "Text", type: .string, size: 10)
        let cafe = ComparisonTests.orders([[.integer(1), .ansiString(ByteString([0x63, 0x61, 0x66, 0xE9]))]], fields: [ComparisonTests.id, text])
        let plain = Table(name: "Plain", fields: [ComparisonTests.id], rows: [[.integer(1)]])
        let document = ComparisonTests.document([.table(cafe), .table(plain)])
        let expected = CodePage.detect(in: document.file)
        #expect(expected.codePage != .utf8)
        let path = try Self.file(document)
        defer { Self.remove(path) }
        for tables: [ByteString]? in [nil, ["Plain"]] {
            let side = BriefcaseTables(try BriefcaseElements.open(path, as: .dabriefcase))
            #expect(try BriefcaseComparison.differences(side, side, options: DiffOptions(tables: tables)).isEmpty)
            let report = try #require(try side.readingReport())
            #expect(report.codePage == expected.codePage && report.detection?.reason == expected.reason, "tables \(String(describing: tables))")
        }
        // Given, it is not detected.
        let given = BriefcaseTables(try BriefcaseElements.open(path, as: .dabriefcase), encoding: .utf8)
        #expect(try given.readingReport()?.codePage == .utf8)
    }

    /// A table whose rows cannot be read ends the comparison with its error, naming the file; a
    /// damaged table the comparison did not reach fails when what reading met is asked for.
    @Test func aDamagedTableIsAnError() throws {
        let orders = ComparisonTests.orders((1 ... 50).map { ComparisonTests.row(Int64($0), "name \($0)", Double($0)) })
        let plain = Table(name: "Plain", fields: [ComparisonTests.id], rows: [[.integer(1)]])
        let path = try Self.file(ComparisonTests.document([.table(orders), .table(plain)]))
        defer { Self.remove(path) }
        // Orders' last bytes (its last rows) made a string length no row can hold.
        let range = try BriefcaseElements.open(path, as: .dabriefcase).elements[0].range
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        for i in range.upperBound - 40 ..< range.upperBound { bytes[i] = 0xFF }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let side = { BriefcaseTables(try BriefcaseElements.open(path, as: .dabriefcase)) }
        let error = try #require(throws: BriefcaseError.self) { try BriefcaseComparison.differences(side(), side()) }
        #expect(error.file == path && error.element == "Orders")
        let other = try side()
        #expect(try BriefcaseComparison.differences(other, other, options: DiffOptions(tables: ["Plain"])).isEmpty)
        let unreached = try #require(throws: BriefcaseError.self) { try other.readingReport() }
        #expect(unreached.file == path && unreached.element == "Orders")
    }
}
