import Testing
@testable import BriefcaseKit

/// The readers name which rule an input broke (`BriefcaseError.reason`, `DecodingWarning.reason`),
/// and `validate` files findings under their checks by that, not by matching message text
/// (issue 25). The inputs are ValidatorTests' hand-built streams, patched at hand-computed offsets.
extension ValidatorTests {
    static func decodingError(_ bytes: [UInt8], _ container: ContainerFormat) -> BriefcaseError? {
        var warnings: [DecodingWarning] = []
        do {
            _ = try BriefcaseDocument.decode(bytes, as: container, warnings: &warnings)
            return nil
        } catch {
            return error
        }
    }

    static func warnings(_ bytes: [UInt8], _ container: ContainerFormat) throws -> [DecodingWarning] {
        var warnings: [DecodingWarning] = []
        _ = try BriefcaseDocument.decode(bytes, as: container, warnings: &warnings)
        return warnings
    }

    @Test func readersNameTheRuleBroken() throws {
        // The data offset 12 points into the (empty) property block, which ends at 16.
        var offset = try Self.base()
        try Self.patch32(&offset, at: 8, expecting: 16, with: 12)
        #expect(Self.decodingError(offset, .dabriefcase)?.reason == .dataOffset)
        // The Bin2 signature at the data offset.
        var signature = try Self.base()
        signature[16 + 3] = UInt8(ascii: "X")
        #expect(Self.decodingError(signature, .dabriefcase)?.reason == .signature)
        // B moved one byte on: a byte is left between A's data and B.
        var gap = try Self.twoTables()
        try Self.patch32(&gap, at: 94, expecting: 40, with: 41)
        let error = try #require(Self.decodingError(gap, .bin2))
        #expect(error.reason == .bytesAfterElement && error.element == "A", "\(error)")
        // A row's mask with a padding bit set is a warning of its own kind; nothing else is.
        var books = try Self.books()
        try Self.patch8(&books, at: 150, expecting: 0x02, with: 0x06)
        #expect(try Self.warnings(books, .bin2).map(\.reason) == [.maskPadding])
        #expect(try Self.warnings(try Self.books(), .bin2).isEmpty)
        // Other problems carry no reason: `validate` files them under `decoding`.
        var count = try Self.twoTables()
        try Self.patch32(&count, at: 94, expecting: 40, with: 39)
        #expect(Self.decodingError(count, .bin2)?.reason == nil)
    }

    /// The same finding, its message changed, is still filed under its check: the check follows
    /// the reason. (Before, a message worded otherwise fell under `decoding`.)
    @Test func checksFollowReasonsNotWording() throws {
        let warning = DecodingWarning(message: "worded any way", offset: 3, element: "T", reason: .schemaEnd)
        var run = ValidationRun(options: ValidationOptions())
        run.addWarnings([warning], element: ByteString(utf8: "T"), file: nil)
        #expect(run.pending.map(\.check) == [.schemaEnd])
    }
}
