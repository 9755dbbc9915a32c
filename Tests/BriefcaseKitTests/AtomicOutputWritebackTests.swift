import CSystemShims
import Foundation
import Testing
@testable import BriefcaseKit

/// `AtomicOutput` asks the kernel to start writing its temporary file to disk as it grows (every
/// `writebackStride` bytes), so that `commit()`'s fsync waits only for the end; the file's bytes
/// are what was written.
struct AtomicOutputWritebackTests {
    @Test func everyStrideWrittenIsHandedToTheDiskAndTheFileIsWhatWasWritten() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("writeback-\(UUID().uuidString)").path
        defer { unlink(path) }
        var output = try AtomicOutput(path: path)
        let piece = (0 ..< 1 << 20).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var expected: [UInt8] = []
        for k in 0 ..< 20 {  // 20 MiB in 1 MiB writes: requests after 8 and 16 MiB
            try piece.withUnsafeBytes { try output.write($0) }
            expected += piece
            let stride = AtomicOutput.writebackStride
            #expect(output.writebackRequested == (k + 1) << 20 / stride * stride, "after \(k + 1) MiB")
        }
        try output.commit()
        #expect(try FileIO.read(path) == expected)
    }

    /// Starting over (a code page restart) starts the count again.
    @Test func aResetStartsTheCountAgain() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("writeback-reset-\(UUID().uuidString)").path
        defer { unlink(path) }
        var output = try AtomicOutput(path: path)
        try output.write([UInt8](repeating: 1, count: AtomicOutput.writebackStride + 5))
        #expect(output.writebackRequested == AtomicOutput.writebackStride + 5)
        try output.reset()
        #expect(output.writebackRequested == 0)
        try output.write([UInt8](repeating: 2, count: 10))
        try output.commit()
        #expect(try FileIO.read(path) == [UInt8](repeating: 2, count: 10))
    }

    /// The request reaches the kernel on Linux (a closed descriptor is refused), and is nothing
    /// elsewhere.
    @Test func theRequestIsTheKernels() {
        #if os(Linux)
        errno = 0
        #expect(briefcase_start_writeback(-1, 0, 4096) == -1)
        #expect(errno == EBADF)
        #else
        #expect(briefcase_start_writeback(-1, 0, 4096) == 0)
        #endif
    }
}
