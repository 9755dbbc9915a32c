import Foundation
import Testing
@testable import BriefcaseKit

/// An `AtomicOutput` owns its temporary file: it cannot be copied, and one dropped before
/// `commit` or `discard` removes what it wrote; values that are copied share one
/// (`SharedAtomicOutput`), so a discard through any copy is the discard of the one file.
struct AtomicOutputOwnershipTests {
    @Test func anOutputDroppedUnfinishedLeavesNothing() throws {
        let dir = try NoReplacementTests.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/out.bin"
        func writeAndDrop() throws {
            var output = try AtomicOutput(path: path)
            try output.write([UInt8](repeating: 7, count: 3 * AtomicOutput.writebackStride))  // (write-behind running)
            #expect(try NoReplacementTests.names(dir).count == 1)  // the temporary file
        }
        try writeAndDrop()
        #expect(try NoReplacementTests.names(dir) == [])
    }

    @Test func copiesOfASharedOutputAreOneFile() throws {
        let dir = try NoReplacementTests.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/out.bin"
        let writing = try SharedAtomicOutput(path: path, replacing: false)
        let copy = writing
        try [UInt8]([1, 2, 3]).withUnsafeBytes { try writing.append($0) }
        copy.discard()
        #expect(try NoReplacementTests.names(dir) == [])
        #expect(throws: BriefcaseError.self) { try writing.commit() }
        #expect(!FileManager.default.fileExists(atPath: path))

        let other = try SharedAtomicOutput(path: path, replacing: false)
        let kept = other
        try [UInt8]([4, 5]).withUnsafeBytes { try other.append($0) }
        try kept.commit()
        #expect(FileManager.default.contents(atPath: path) == Data([4, 5]))
        #expect(try NoReplacementTests.names(dir) == ["out.bin"])
    }
}
