import Foundation
@testable import BriefcaseKit

/// Paths the tests read: the real samples live outside the repository, in `../shared`.
enum TestPaths {
    static let repository: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }()

    static let samples = repository.deletingLastPathComponent().appendingPathComponent("shared/briefcase-samples")
    static let fixtures = repository.appendingPathComponent("Fixtures")

    static let sampleNames = ["capraynor-Resources-Properties.daBriefcase", "capraynor-Briefcase-Properties.daBriefcase"]

    /// The bytes of a real sample, or nil (with a message) when `../shared` is absent.
    static func sample(_ name: String) -> [UInt8]? {
        let url = samples.appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            print("note: real sample \(url.path) is absent; skipping")
            return nil
        }
        return [UInt8](data)
    }

    static var samplesPresent: Bool { FileManager.default.fileExists(atPath: samples.appendingPathComponent(sampleNames[0]).path) }
}

/// Hand-assembled little-endian bytes for independent expectations.
struct Bytes {
    var bytes: [UInt8] = []
    mutating func i32(_ v: Int32) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func raw(_ v: [UInt8]) { bytes += v }
    mutating func ascii(_ s: String) { bytes += Array(s.utf8) }
    mutating func str(_ s: String) { i32(Int32(s.utf8.count)); ascii(s) }
}
