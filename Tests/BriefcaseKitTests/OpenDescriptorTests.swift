import Foundation
import Testing
@testable import BriefcaseKit

/// `RandomAccessFile`s share at most `OpenDescriptors.limit` descriptors (Spec/robustness.md
/// §8.5): more handles than that all read correctly, and a file replaced at its path while its
/// handle was closed is an I/O error, never the other file's bytes.
struct OpenDescriptorTests {
    @Test func moreHandlesThanDescriptorsAllReadTheirFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("descriptors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let count = OpenDescriptors.limit * 3
        var files: [RandomAccessFile] = []
        for i in 0..<count {
            let path = dir.appendingPathComponent("f\(i)").path
            try Data([UInt8(i), UInt8(i), UInt8(i)]).write(to: URL(fileURLWithPath: path))
            files.append(try RandomAccessFile(path: path))
        }
        for _ in 0..<2 {
            for (i, file) in files.enumerated() { #expect(try file.read(1 ..< 3) == [UInt8(i), UInt8(i)]) }
        }
        // f0 was closed (least recently read) long ago: replace it, then read through the handle.
        let first = dir.appendingPathComponent("f0").path
        try Data([9, 9, 9]).write(to: URL(fileURLWithPath: first + ".new"))
        #expect(rename(first + ".new", first) == 0)
        for file in files.dropFirst() { _ = try file.read(0 ..< 1) }
        let replaced = try #require(throws: BriefcaseError.self) { try files[0].read(0 ..< 3) }
        #expect(replaced.kind == .io && replaced.file == first && replaced.message.contains("replaced or changed"), "\(replaced)")
        // A handle kept open reads on, whatever the path names now.
        let kept = try RandomAccessFile(path: first, keepOpen: true)
        try Data([7, 7, 7]).write(to: URL(fileURLWithPath: first + ".new"))
        #expect(rename(first + ".new", first) == 0)
        for file in files.dropFirst() { _ = try file.read(0 ..< 1) }
        #expect(try kept.read(0 ..< 3) == [9, 9, 9])
    }
}
