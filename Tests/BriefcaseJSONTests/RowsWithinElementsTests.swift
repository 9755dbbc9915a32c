@testable import BriefcaseJSON
@testable import BriefcaseKit
import BriefcaseTestSupport
import JSONCore
import Foundation
import Testing

/// The driver's choice between elements encoded ahead and elements one at a time with the jobs
/// within them (`BriefcaseElements.elementsAheadBudget`), shown on a small briefcase by lowering
/// the budget: above it the JSON writer gets the jobs for its rows (`rowJobs`) while one worker
/// reads the next elements; below it, the elements are encoded ahead. Both write the bytes of
/// one job.
struct RowsWithinElementsTests {
    /// Two tables of several row ranges (`JSONElementParts.rowsPerPart`) with small ones around
    /// and between them, and a pending change.
    static func briefcase() throws -> String {
        let fields = [FieldDescriptor(name: "ID", type: .integer), FieldDescriptor(name: "Text", type: .string, size: 40)]
        func table(_ name: String, rows: Int) -> Element {
            .table(Table(name: ByteString(utf8: name), fields: fields,
                         rows: (0 ..< rows).map { r in [.integer(Int64(r)), .ansiString(ByteString(utf8: "\(name) row \(r) é"))] }))
        }
        let delta = Delta(name: "Large", loggedFields: [LoggedField(name: "ID", type: .integer)], keyFields: ["ID"],
                          changes: [DeltaChange(type: .update, recordID: 1, oldValues: [.integer(1)], newValues: [.integer(2)])])
        let elements = [table("Small1", rows: 3), table("Large", rows: 3 * JSONElementParts.rowsPerPart + 5), table("Small2", rows: 7),
                        table("Small3", rows: 1), table("Larger", rows: 4 * JSONElementParts.rowsPerPart + 1), table("Small4", rows: 2), .delta(delta)]
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rows-within-\(UUID().uuidString)").path
        try FileIO.writeAtomically(BriefcaseFileCodec.encode(BriefcaseFile(stream: Bin2Stream(elements: elements))), to: path)
        return path
    }

    /// The document, the jobs its rows got, and whether the elements were decoded from the file mapped.
    static func json(_ path: String, jobs: Int, aheadBudget: Int) throws -> (bytes: [UInt8], rowJobs: Int, mapped: Bool) {
        var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: .utf8)
        let elements = try BriefcaseElements.open(path, as: .dabriefcase)
        _ = try elements.read(into: &encoder, encoding: nil, skipDamaged: false, jobs: jobs, aheadBudget: aheadBudget)
        return (encoder.writer.sink.bytes, encoder.rowJobs, elements.elements[0].fileIsMapped)
    }

    @Test(arguments: [2, 3])
    func aboveTheBudgetTheRowsGetTheJobsAndTheBytesAreOneJobs(jobs: Int) throws {
        let path = try Self.briefcase()
        defer { unlink(path) }
        let one = try Self.json(path, jobs: 1, aheadBudget: BriefcaseElements.elementsAheadBudget)
        #expect(one.rowJobs == 1)
        let within = try Self.json(path, jobs: jobs, aheadBudget: 0)
        #expect(within.rowJobs == jobs, "elements one at a time, the jobs within them")
        #expect(within.mapped, "elements one at a time are decoded from the file mapped")
        #expect(within.bytes == one.bytes)
        let ahead = try Self.json(path, jobs: jobs, aheadBudget: BriefcaseElements.elementsAheadBudget)
        #expect(ahead.rowJobs == 1, "elements encoded ahead")
        #expect(!ahead.mapped)
        #expect(ahead.bytes == one.bytes)
        #expect(one.mapped, "one job: the JSON writer writes rows from their bytes, so the file is mapped")
        // And the document reads back as the briefcase, byte for byte (not only one job against another).
        #expect(try JSONDocumentDecoder().decode(within.bytes).encode() == FileIO.read(path))
    }

    /// With one job, a sink that makes values of the rows (`BriefcaseCollector`) gets elements read
    /// into memory of their own, not from the file mapped; the JSON writer's are mapped (above).
    @Test func oneJobMapsOnlyForASinkThatWritesRowsFromTheirBytes() throws {
        let path = try Self.briefcase()
        defer { unlink(path) }
        let elements = try BriefcaseElements.open(path, as: .dabriefcase)
        var collector = BriefcaseCollector()
        _ = try elements.read(into: &collector, encoding: nil, skipDamaged: false, jobs: 1)
        #expect(!elements.elements[0].fileIsMapped)
        #expect(collector.elements.count == elements.elements.count)
    }
}
