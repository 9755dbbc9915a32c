import Foundation

/// Where the tests find their inputs: the project's `Fixtures/`, and the real samples that live
/// outside the repository in `../shared/briefcase-samples` (never copied in).
public enum SamplePaths {
    public static let repository: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }()

    public static let samples = repository.deletingLastPathComponent().appendingPathComponent("shared/briefcase-samples")
    public static let fixtures = repository.appendingPathComponent("Fixtures")

    public static let sampleNames = ["capraynor-Resources-Properties.daBriefcase", "capraynor-Briefcase-Properties.daBriefcase"]

    /// The bytes of a real sample, or nil (with a message) when `../shared` is absent.
    public static func sample(_ name: String) -> [UInt8]? {
        let url = samples.appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            print("note: real sample \(url.path) is absent; skipping")
            return nil
        }
        return [UInt8](data)
    }

    public static var samplesPresent: Bool {
        FileManager.default.fileExists(atPath: samples.appendingPathComponent(sampleNames[0]).path)
    }
}

/// `"de ad be ef"` → `[0xde, 0xad, 0xbe, 0xef]` (whitespace ignored), for hand-computed bytes.
public func hexBytes(_ text: String) -> [UInt8] {
    let digits = text.filter { !$0.isWhitespace }
    precondition(digits.count % 2 == 0, "odd hex literal")
    var result: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        result.append(UInt8(digits[index..<next], radix: 16)!)
        index = next
    }
    return result
}

/// A small deterministic random number generator (SplitMix64) for seeded fuzz-style tests.
public struct SplitMix64: RandomNumberGenerator {
    public var state: UInt64
    public init(state: UInt64) { self.state = state }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
