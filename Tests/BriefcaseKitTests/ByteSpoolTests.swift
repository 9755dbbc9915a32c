import Foundation
import Testing
@testable import BriefcaseKit

/// `ByteSpool`: what goes in comes back, at any offset and in any order, whether the bytes are in
/// memory, in the temporary file, or across the two; and without a usable temporary directory
/// everything stays in memory.
@Suite struct ByteSpoolTests {
    /// Pieces of 0…(n-1) bytes, each byte its offset in the whole (mod 251): the expected bytes of
    /// any range are then known without the spool.
    static func fill(_ spool: ByteSpool, pieces: Int) -> Int {
        var offset = 0
        for length in 0..<pieces {
            spool.append((offset..<offset + length).map { UInt8($0 % 251) })
            offset += length
        }
        return offset
    }

    static func expectRange(_ spool: ByteSpool, _ range: Range<Int>, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let bytes = Array(try spool.bytes(range))
        #expect(bytes == range.map { UInt8($0 % 251) }, "\(range)", sourceLocation: sourceLocation)
    }

    @Test func bytesComeBackFromTheFileAndFromMemory() throws {
        let spool = ByteSpool(memoryLimit: 1000)
        let total = Self.fill(spool, pieces: 2000)  // 1 999 000 bytes: one chunk spilled, the rest in memory
        #expect(spool.count == total)
        #expect(spool.usesFile)
        // Forwards, backwards, across the file's end, a range larger than the read window.
        try Self.expectRange(spool, 0..<10)
        try Self.expectRange(spool, total - 10..<total)
        try Self.expectRange(spool, 500_000..<500_100)
        try Self.expectRange(spool, 3..<7)
        try Self.expectRange(spool, 0..<total)
        try Self.expectRange(spool, 1_048_000..<1_049_000)
        try Self.expectRange(spool, total..<total)
        // Appending after reading.
        spool.append([1, 2, 3])
        #expect(Array(try spool.bytes(total..<total + 3)) == [1, 2, 3])
        try Self.expectRange(spool, 999_990..<1_000_010)
    }

    @Test func withoutATemporaryDirectoryEverythingStaysInMemory() throws {
        let spool = ByteSpool(memoryLimit: 10, directory: "/nonexistent/briefcase-spool-test")
        let total = Self.fill(spool, pieces: 100)
        #expect(!spool.usesFile)
        try Self.expectRange(spool, 0..<total)
        try Self.expectRange(spool, 17..<4000)
    }

    @Test func aRangeOutsideTheSpoolIsAnError() {
        let spool = ByteSpool()
        spool.append([1, 2, 3])
        for range in [2..<4, -1..<1] {
            let error = #expect(throws: BriefcaseError.self, "\(range)") { try spool.bytes(range) }
            #expect(error?.kind == .invalidModel && error?.message.contains("bytes \(range) asked of a spool of 3") == true, "\(String(describing: error))")
        }
    }
}
