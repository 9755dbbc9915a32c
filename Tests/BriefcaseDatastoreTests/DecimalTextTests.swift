import Testing
import BriefcaseTestSupport
@testable import BriefcaseDatastore

/// The decimal text a Currency or Decimal column reads a datastore double as
/// (`ValueMapping.decimalText`): the double's shortest digits, without exponent or needless zeros.
struct DecimalTextTests {
    @Test func handWorkedExamples() {
        let cases: [(Double, String)] = [
            (1.5, "1.5"), (1e-05, "0.00001"), (1e16, "10000000000000000"), (-0.0, "-0"), (0, "0"),
            (100, "100"), (0.1, "0.1"), (-1.25e-7, "-0.000000125"), (1e22, "1" + String(repeating: "0", count: 22)),
            (131402.8984, "131402.8984"), (3227143537.0, "3227143537"), (922337203685477.6, "922337203685477.6"),
            (Double.leastNonzeroMagnitude, "0." + String(repeating: "0", count: 323) + "5"),  // 5e-324
            (1.7976931348623157e308, "17976931348623157" + String(repeating: "0", count: 292)),
            (12.5e-3, "0.0125"), (-7e20, "-700000000000000000000"),
        ]
        for (value, text) in cases {
            #expect(ValueMapping.decimalText(value) == text, "\(value)")
        }
        #expect(ValueMapping.decimalText(.nan) == nil)
        #expect(ValueMapping.decimalText(-.infinity) == nil)
    }

    /// Random doubles of every magnitude: the text reads back as the same double, and is plain
    /// (`-?(0|[1-9][0-9]*)(\.[0-9]*[1-9])?`) with the shortest digits' count of significant digits.
    @Test func randomDoublesReadBackAsThemselves() {
        var random = SplitMix64(seed: 7)
        for _ in 0..<20_000 {
            let value = Double(bitPattern: random.next())
            guard value.isFinite else { continue }
            guard let text = ValueMapping.decimalText(value) else {
                Issue.record("no text for \(value)")
                continue
            }
            #expect(Double(text)?.bitPattern == value.bitPattern, "\(value) → \(text)")
            let unsigned = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
            let parts = unsigned.split(separator: ".", omittingEmptySubsequences: false)
            #expect(parts.count <= 2 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }, "\(text)")
            #expect(parts[0] == "0" || !parts[0].hasPrefix("0"), "\(text)")
            if parts.count == 2 { #expect(!parts[1].hasSuffix("0"), "\(text)") }
            let significant = (parts.joined()).drop { $0 == "0" }.reversed().drop { $0 == "0" }.count
            let shortest = "\(value.magnitude)".split(separator: "e")[0].filter(\.isNumber).drop { $0 == "0" }.reversed().drop { $0 == "0" }.count
            #expect(significant == shortest, "\(value) → \(text)")
        }
    }
}

/// A currency's double written from its integer (`RowBuffer.appendCurrencyDouble`) against the
/// standard library's `description` of the same double, the text the export wrote before.
struct CurrencyDoubleTextTests {
    static func written(_ scaled: Int64) -> String {
        var buffer = RowBuffer()
        buffer.appendCurrencyDouble(scaled)
        return String(decoding: buffer.bytes, as: UTF8.self)
    }

    @Test func edgesAndRandomAmounts() {
        let limit: Int64 = 1_000_000_000_000_000 - 1
        var amounts: [Int64] = [0, 1, -1, 5, 10, 500, 1_000, 9_999, 10_000, 70_000, 1_314_028_984, -1_314_028_984, limit, -limit,
                                123_456_789_012_345, 100_000_000_000_000]
        var random = SplitMix64(seed: 5)
        for _ in 0..<50_000 {
            let magnitude = Int64(random.next() % UInt64(limit + 1)) / [1, 10, 1_000, 100_000, 10_000_000][Int(random.next() % 5)]
            amounts.append(random.next() % 2 == 0 ? magnitude : -magnitude)
        }
        for scaled in amounts {
            #expect(Self.written(scaled) == (Double(scaled) / 10_000).description, "\(scaled)")
        }
    }
}
