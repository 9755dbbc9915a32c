import CSystemShims
import Foundation
import Testing
@testable import BriefcaseKit

/// `AtomicOutput` asks the kernel to start writing its temporary file to disk as it grows (every
/// `writebackStride` bytes), so that `commit()`'s fsync waits only for the end, and lets the page
/// cache drop what is on disk two strides back; the file's bytes are what was written.
struct AtomicOutputWritebackTests {
    @Test func everyStrideWrittenIsHandedToTheDiskAndTheFileIsWhatWasWritten() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("writeback-\(UUID().uuidString)").path
        defer { unlink(path) }
        var output = try AtomicOutput(path: path)
        let piece = (0 ..< 1 << 20).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var expected: [UInt8] = []
        for k in 0 ..< 20 {  // 20 MiB in 1 MiB writes: a request after each stride
            try piece.withUnsafeBytes { try output.write($0) }
            expected += piece
            let stride = AtomicOutput.writebackStride
            #expect(output.writebackRequested == (k + 1) << 20 / stride * stride, "after \(k + 1) MiB")
        }
        try output.commit()
        #expect(try FileIO.read(path) == expected)
    }

    /// After 4½ strides, the first two are on disk and gone from the page cache (what `mincore`
    /// sees of the file mapped), while the last stride written is still there; the file is whole.
    @Test func whatIsOnDiskTwoStridesBackLeavesThePageCache() throws {
        let directory = FileManager.default.temporaryDirectory.resolvingSymlinksInPath().path
        let stride = AtomicOutput.writebackStride
        let path = directory + "/writeback-drop-\(UUID().uuidString)"
        defer { unlink(path) }
        var output = try AtomicOutput(path: path)
        let piece = (0 ..< stride / 2).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        for _ in 0 ..< 9 { try piece.withUnsafeBytes { try output.write($0) } }
        #expect(output.writebackRequested == 4 * stride)
        let handle = output.writeBehind
        let writeBehind = try #require(handle)
        writeBehind.waitUntilHandled()
        #expect(writeBehind.settled == 2 * stride)
        #if os(Linux)
        // tmpfs keeps every page in memory whatever it is told: there only the counts are checked.
        if try fileSystemType(of: directory) != "tmpfs", let temporaryPath = output.temporaryPath {
            let resident = try residentPages(temporaryPath, length: 9 * stride / 2)
            let pages = stride / Int(getpagesize())
            #expect(resident[0 ..< 2 * pages].allSatisfy { !$0 }, "settled pages stay cached")
            #expect(resident[(4 * pages)...].allSatisfy { $0 }, "the last pages written are not cached")
        }
        #endif
        try output.commit()
        let written = try FileIO.read(path)
        #expect(written.count == 9 * piece.count)
        #expect(written[(8 * piece.count)...].elementsEqual(piece))
    }

    /// A file another writer fills through a descriptor of its own (SQLite's): as it grows by a
    /// stride, its writing is started, but nothing is dropped from the page cache (the other
    /// writer may read those pages again) and nothing settled; the file is whole after commit.
    @Test func aFileAnotherWriterFillsIsHandedOnButKeptCached() throws {
        let directory = FileManager.default.temporaryDirectory.resolvingSymlinksInPath().path
        let stride = AtomicOutput.writebackStride
        let finalPath = directory + "/writeback-other-\(UUID().uuidString)"
        var output = try AtomicOutput(path: finalPath)
        defer { unlink(finalPath) }
        let temporaryPath = output.temporaryPath
        let temporary = try #require(temporaryPath)
        let other = open(temporary, O_WRONLY)
        try #require(other >= 0)
        let piece = (0 ..< stride / 2).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        for k in 0 ..< 9 {
            let wrote = piece.withUnsafeBytes { pwrite(other, $0.baseAddress, $0.count, off_t(k * piece.count)) }
            try #require(wrote == piece.count)
            output.grewThroughAnotherWriter()
        }
        close(other)
        // Requests at 1, 2, 3 and 4 strides (each after a stride of growth).
        let requested = output.writebackRequested
        #expect(requested == 4 * stride)
        let handle = output.writeBehind
        let writeBehind = try #require(handle)
        writeBehind.waitUntilHandled()
        #expect(writeBehind.settled == 0, "nothing is dropped from the cache of a file another writer fills")
        #if os(Linux)
        if try fileSystemType(of: directory) != "tmpfs" {
            let resident = try residentPages(temporary, length: 9 * stride / 2)
            #expect(resident.allSatisfy { $0 }, "every page stays cached")
        }
        #endif
        let path = output.path
        try output.commit()
        let written = try FileIO.read(path)
        #expect(written.count == 9 * piece.count && written[(8 * piece.count)...].elementsEqual(piece))
    }

    /// The type of the file system `directory` lies on: that of the longest mount point above it.
    private func fileSystemType(of directory: String) throws -> String {
        let mounts = try String(contentsOfFile: "/proc/self/mounts", encoding: .utf8)
        var best = (point: "", type: "")
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count > 2 else { continue }
            let point = String(fields[1])
            let above = point == "/" || directory == point || directory.hasPrefix(point + "/")
            if above, point.count > best.point.count { best = (point, String(fields[2])) }
        }
        return best.type
    }

    /// Which pages of the file at `path` are in the page cache.
    private func residentPages(_ path: String, length: Int) throws -> [Bool] {
        let fd = open(path, O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        let address = mmap(nil, length, PROT_READ, MAP_SHARED, fd, 0)
        try #require(address != MAP_FAILED)
        defer { munmap(address, length) }
        let pageSize = Int(getpagesize())
        var flags = [UInt8](repeating: 0, count: (length + pageSize - 1) / pageSize)
        try #require(mincore(address, length, &flags) == 0)
        return flags.map { $0 & 1 != 0 }
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
        #expect(output.writeBehind == nil)
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
        errno = 0
        #expect(briefcase_settle_written(-1, 0, 4096) == -1)
        #expect(errno == EBADF)
        #else
        #expect(briefcase_start_writeback(-1, 0, 4096) == 0)
        #expect(briefcase_settle_written(-1, 0, 4096) == 0)
        #endif
    }
}
