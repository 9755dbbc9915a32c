import Foundation
import Testing
@testable import BriefcaseKit

/// A head read before the body (for the code page, or for a sink that sees every head first) is
/// not read again: decoding the body goes on from where the head ended, with its warnings
/// (`ElementHeadRead`, `ModelReading.forElement`).
struct HeadsReadOnceTests {
    /// `orders.bin2` (Fixtures/README.md): the delta of Orders with 3 changes, then the table
    /// with 3 rows.
    static func table(_ element: Element) -> Table? {
        if case .table(let table) = element { return table }
        return nil
    }

    static func orders() throws -> BriefcaseElements {
        try BriefcaseElements.open(TestPaths.fixtures.appendingPathComponent("orders.bin2").path, as: .bin2)
    }

    /// Given a head whose first field is renamed and which carries a warning of its own, the
    /// table decoded has that field name and that warning once, and the rows of the file: the
    /// head came from what was given, the rows from the bytes after it.
    @Test func theBodyIsDecodedFromWhereTheHeadEnds() throws {
        let elements = try Self.orders()
        var plain: [DecodingWarning] = []
        let expected = try #require(Self.table(try elements.elements[1].decode(warnings: &plain)))
        var given = try elements.headRead(1)
        guard case .table(var head) = given.head else { Issue.record("element 1 is the table"); return }
        #expect(head.table.fields.first?.name == ByteString(Array("ID".utf8)))
        head.table.fields[0].name = ByteString(Array("Renamed".utf8))
        given.head = .table(head)
        var extra = plain.first ?? DecodingWarning(message: "", offset: nil, element: nil, reason: nil)
        extra.message = "from the head read before"
        given.warnings = [extra]
        let reading = ModelReading(heads: [nil, given]).forElement(1)
        var warnings: [DecodingWarning] = []
        let decoded = try #require(Self.table(try elements.elements[1].read(reading, warnings: &warnings)))
        #expect(decoded.fields.map { $0.name } == [ByteString(Array("Renamed".utf8))] + expected.fields.dropFirst().map { $0.name })
        #expect(Array(decoded.rows) == Array(expected.rows))
        #expect(warnings.map(\.message) == ["from the head read before"] + plain.map(\.message))
    }

    /// The delta's head read before gives the same delta as reading it whole; elements without
    /// a head given are read whole.
    @Test func aDeltaFromItsHeadIsTheDeltaReadWhole() throws {
        let elements = try Self.orders()
        let heads = [try elements.headRead(0), nil]
        var warnings: [DecodingWarning] = []
        for position in 0 ..< 2 {
            let fromHead = try elements.elements[position].read(ModelReading(heads: heads).forElement(position), warnings: &warnings)
            #expect(fromHead == (try elements.elements[position].decode(warnings: &warnings)))
        }
        #expect(warnings.isEmpty)
    }
}
