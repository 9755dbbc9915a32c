import Foundation
import Testing
@testable import BriefcaseKit

/// A sink that takes heads only (`SinkNeeds.headsOnly`, what `info` is) gets each element's head and
/// count from a binary briefcase, and no row is decoded.
struct HeadsOnlyReadingTests {
    /// Records what the source hands it.
    struct HeadRecorder: BriefcaseSink {
        var summaries: [(position: Int, kind: ElementKind, name: String, rows: Int, changes: Int, fields: Int)] = []
        var wholeElements = 0
        var began = 0, finished = 0
        var needs: SinkNeeds { SinkNeeds(headsOnly: true) }
        mutating func begin(_ head: BriefcaseHead) throws(BriefcaseError) { began += 1 }
        mutating func element(_ element: Element) throws(BriefcaseError) { wholeElements += 1 }
        mutating func element(summary: ElementSummary, at position: Int) throws(BriefcaseError) {
            summaries.append((position, summary.kind, String(decoding: summary.name.bytes, as: UTF8.self), summary.rowCount,
                              summary.changeCount, summary.table?.fields.count ?? 0))
        }
        mutating func finish() throws(BriefcaseError) { finished += 1 }
        mutating func abandon() {}
    }

    /// `damaged-truncated-row` (Fixtures/README.md): its table `T` says 2 rows and ends in the
    /// middle of row 1 — a whole read fails at offset 83, a heads-only read does not look there.
    @Test func aTruncatedRowIsNotReadForHeads() throws {
        let reader = try BriefcaseElements.open(TestPaths.fixtures.appendingPathComponent("damaged-truncated-row.daBriefcase").path, as: .dabriefcase)
        var sink = HeadRecorder()
        _ = try reader.read(into: &sink, encoding: nil, skipDamaged: false)
        #expect(sink.wholeElements == 0)
        #expect(sink.began == 1 && sink.finished == 1)
        #expect(sink.summaries.map(\.name) == ["T"])
        #expect(sink.summaries.map(\.rows) == [2])
        #expect(sink.summaries.map(\.fields) == [2])  // ID, Name
        var whole = BriefcaseCollector()
        let error = try #require(throws: BriefcaseError.self) { _ = try reader.read(into: &whole, encoding: nil, skipDamaged: false) }
        #expect(error.kind == .invalidData && error.offset == 83 && error.element == "T", "\(error)")
    }

    /// `orders.bin2` (Fixtures/README.md, Sources/FixtureMaker): the delta of Orders with 3
    /// changes (update, delete, insert), then the table with 3 rows — in stream order, each at its
    /// position.
    @Test func headsAndCountsComeInStreamOrder() throws {
        let reader = try BriefcaseElements.open(TestPaths.fixtures.appendingPathComponent("orders.bin2").path, as: .bin2)
        var sink = HeadRecorder()
        let report = try reader.read(into: &sink, encoding: nil, skipDamaged: false, jobs: 4)
        #expect(sink.wholeElements == 0)
        #expect(sink.summaries.map(\.position) == [0, 1])
        #expect(sink.summaries.map(\.kind) == [.delta, .table])
        #expect(sink.summaries.map(\.rows) == [0, 3])
        #expect(sink.summaries.map(\.changes) == [3, 0])
        #expect(report.codePage == .utf8)
    }
}
