import BriefcaseKit
import Foundation

/// The fixtures' expected outputs in `Fixtures/expected/`, each checked once against sources
/// independent of the code that writes it (`Fixtures/README.md` says how): the oracle of the
/// tests that write JSON from a binary briefcase.
public enum ExpectedFiles {
    /// The well-formed binary fixtures (each has `expected/STEM.json` and `expected/STEM.snapshot.json`).
    public static let validFixtures = [
        "all-types.daBriefcase", "nulls.daBriefcase", "empty-table.daBriefcase", "empty-delta.daBriefcase",
        "gbk.daBriefcase", "orders.bin2", "unsafe-names.daBriefcase",
    ]

    public static func container(of fixture: String) -> ContainerFormat {
        fixture.hasSuffix(".bin2") ? .bin2 : .dabriefcase
    }

    /// `orders.bin2` → the bytes of `Fixtures/expected/orders.json`.
    public static func json(of fixture: String) throws -> [UInt8] {
        let stem = fixture.split(separator: ".").first.map(String.init) ?? fixture
        let url = SamplePaths.fixtures.appendingPathComponent("expected/\(stem).json")
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw BriefcaseError(.io, "\(url.path) is missing")
        }
        return [UInt8](data)
    }

    /// nil when `actual == expected`; else where they first differ, with the text around it.
    public static func difference(_ actual: [UInt8], _ expected: [UInt8]) -> String? {
        guard actual != expected else { return nil }
        let at = zip(actual, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(actual.count, expected.count)
        let context = { (bytes: [UInt8]) in String(decoding: bytes[max(0, at - 80) ..< min(bytes.count, at + 80)], as: UTF8.self) }
        return "\(actual.count) bytes, expected \(expected.count); first difference at byte \(at):\n"
            + "  actual:   \(context(actual))\n  expected: \(context(expected))"
    }
}
