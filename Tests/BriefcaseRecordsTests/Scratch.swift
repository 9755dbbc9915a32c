import BriefcaseTestSupport
import Foundation

/// A temporary folder for one test, and fixture copies in it (the fixtures are never written).
final class Scratch {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("briefcase-records-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// A copy of fixture `name` in the folder, and its bytes.
    func copy(fixture name: String) throws -> (path: String, bytes: [UInt8]) {
        let bytes = try [UInt8](Data(contentsOf: SamplePaths.fixtures.appendingPathComponent(name)))
        let copy = path + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: copy))
        return (copy, bytes)
    }

    /// A copy of `bytes` as file `name` in the folder.
    func write(_ bytes: [UInt8], as name: String) throws -> String {
        let copy = path + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: copy))
        return copy
    }

    static func bytes(_ path: String) throws -> [UInt8] { try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) }
}
