import Foundation
import Testing
@testable import BriefcaseKit

/// Decoding ahead on worker threads (`ElementDecoding`, `ElementsDecodedAhead`): the elements
/// come in the order asked for, repeats included; the taker's and those read ahead of it hold at
/// most `jobs` + 1 times the largest (the memory bound); and `RandomAccessFile` serves many
/// threads at once.
struct ElementDecodingTests {
    /// A briefcase file of `count` tables `T0`, `T1`, … of about 10 KB each; removed by the caller.
    static func tables(_ count: Int) throws -> String {
        let elements: [Element] = (0 ..< count).map { t in
            .table(Table(name: ByteString(utf8: "T\(t)"), fields: [FieldDescriptor(name: "Text", type: .string, size: 50)],
                         rows: (0 ..< 100).map { r in [.ansiString(ByteString(utf8: "table \(t) row \(r) " + String(repeating: "x", count: 80)))] }))
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("decoding-ahead-\(UUID().uuidString)").path
        try FileIO.writeAtomically(BriefcaseFileCodec.encode(BriefcaseFile(stream: Bin2Stream(elements: elements))), to: path)
        return path
    }

    /// A briefcase file of tables `T0`, `T1`, … of `rows[t]` rows of about 90 bytes; removed by the caller.
    static func tables(rows: [Int]) throws -> String {
        let elements: [Element] = rows.enumerated().map { t, count in
            .table(Table(name: ByteString(utf8: "T\(t)"), fields: [FieldDescriptor(name: "Text", type: .string, size: 50)],
                         rows: (0 ..< count).map { r in [.ansiString(ByteString(utf8: "row \(r) " + String(repeating: "x", count: 80)))] }))
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("decoding-sizes-\(UUID().uuidString)").path
        try FileIO.writeAtomically(BriefcaseFileCodec.encode(BriefcaseFile(stream: Bin2Stream(elements: elements))), to: path)
        return path
    }

    /// The file element `index` (the first by default) is read from, or nil when it is in memory.
    static func file(of reader: BriefcaseElements, at index: Int = 0) -> RandomAccessFile? {
        if case .file(let file) = reader.elements[index].source { return file }
        return nil
    }

    @Test(arguments: [1, 2, 3, 8])
    func elementsComeInTheOrderAskedForRepeatsIncluded(jobs: Int) throws {
        let path = try Self.tables(12)
        defer { unlink(path) }
        let reader = try BriefcaseElements.open(path, as: .dabriefcase)
        let positions = [0, 5, 5, 1, 11, 0, 7, 3, 3, 3, 2, 10, 9, 8, 6, 4, 11]
        var decoding = ElementDecoding<ModelReading, Never>(reader, positions: positions, jobs: jobs)
        defer { decoding.stop() }
        var names: [String] = [], taken: [Int] = []
        while let (position, decoded) = decoding.next() {
            taken.append(position)
            names.append(String(decoding: try decoded.outcome.get().name.bytes, as: UTF8.self))
            #expect(decoded.warnings.isEmpty)
        }
        #expect(taken == positions)
        #expect(names == positions.map { "T\($0)" })
    }

    /// With one worker reading ahead (`ReadingPlan.Mode.rowsWithin`, for a sink that spends the jobs within each
    /// element) the elements come as without it.
    @Test func readingAheadWithOneJobGivesTheElementsInOrder() throws {
        let path = try Self.tables(12)
        defer { unlink(path) }
        let reader = try BriefcaseElements.open(path, as: .dabriefcase)
        let positions = [0, 5, 5, 1, 11, 0, 7, 3, 3, 3, 2, 10, 9, 8, 6, 4, 11]
        var decoding = ElementDecoding<ModelReading, Never>(reader, positions: positions, plan: ReadingPlan(mode: .rowsWithin(jobs: 2), mapped: false, dropsRows: false))
        defer { decoding.stop() }
        var names: [String] = []
        while let (_, decoded) = decoding.next() { names.append(String(decoding: try decoded.outcome.get().name.bytes, as: UTF8.self)) }
        #expect(names == positions.map { "T\($0)" })
    }

    /// Reading ahead with one job, over [large, small, small, large, small]: while the taker holds
    /// the first large table, the worker reads the small ones after it but not the second large
    /// one (the taker's and those ahead would be more than twice the largest); once the taker
    /// holds a small one, it reads the second large one too — the taker's element counts in the
    /// budget, so a large element is read while small ones are taken, not after them.
    @Test func readingAheadReadsTheNextLargeElementWhileTheTakerHoldsASmallOne() throws {
        let path = try Self.tables(rows: [2000, 5, 5, 2000, 5])
        defer { unlink(path) }
        let reader = try BriefcaseElements.open(path, as: .dabriefcase)
        let file = try #require(Self.file(of: reader))
        let opening = file.bytesRead
        let ends = reader.elements.map(\.range.count).reduce(into: [0]) { $0.append($0.last! + $1) }
        var decoding = ElementDecoding<ModelReading, Never>(reader, positions: Array(reader.elements.indices), plan: ReadingPlan(mode: .rowsWithin(jobs: 2), mapped: false, dropsRows: false))
        defer { decoding.stop() }
        _ = decoding.next()
        usleep(50_000)
        #expect(file.bytesRead - opening == ends[3], "the large table 0 held: tables 0 to 2 read, not 3")
        _ = decoding.next()
        usleep(50_000)
        #expect(file.bytesRead - opening == ends[5], "the small table 1 held: the large table 3 and table 4 read")
    }

    /// After taking element n, element n and what the workers have read beyond it are at most
    /// (jobs + 1) × the largest element's bytes, however long they are given (the memory bound),
    /// and each element is read once.
    @Test(arguments: [2, 3])
    func workersReadAtMostJobsPlusOneLargestElementsFromTheTakers(jobs: Int) throws {
        let path = try Self.tables(20)
        defer { unlink(path) }
        let reader = try BriefcaseElements.open(path, as: .dabriefcase)
        let file = try #require(Self.file(of: reader))
        let opening = file.bytesRead
        let sizes = reader.elements.map(\.range.count)
        let ends = sizes.reduce(into: [0]) { $0.append($0.last! + $1) }  // bytes of elements 0 ..< k
        let budget = (jobs + 1) * sizes.max()!
        var decoding = ElementDecoding<ModelReading, Never>(reader, positions: Array(reader.elements.indices), jobs: jobs)
        defer { decoding.stop() }
        var n = 0
        while decoding.next() != nil {
            usleep(20_000)  // time for the workers to run ahead, were they allowed to
            let allowed = min(ends.last!, ends[n] + budget)
            #expect(file.bytesRead - opening <= allowed, "after taking \(n): \(file.bytesRead - opening) bytes read, at most \(allowed)")
            n += 1
        }
        #expect(file.bytesRead - opening == ends.last!, "each element read once")
    }

    /// Small elements between large ones do not stall the workers: with one large table taken and
    /// held, the workers decode more than `jobs` of the small ones behind it (a bound in bytes, not
    /// in elements).
    @Test func workersRunPastSmallElementsWithinTheByteBudget() throws {
        let path = try Self.tables(rows: [2000] + Array(repeating: 5, count: 11))
        defer { unlink(path) }
        let reader = try BriefcaseElements.open(path, as: .dabriefcase)
        let file = try #require(Self.file(of: reader))
        let opening = file.bytesRead
        var decoding = ElementDecoding<ModelReading, Never>(reader, positions: Array(reader.elements.indices), jobs: 2)
        defer { decoding.stop() }
        _ = decoding.next()
        usleep(50_000)
        let ends = reader.elements.map(\.range.count).reduce(into: [0]) { $0.append($0.last! + $1) }
        #expect(file.bytesRead - opening == ends.last!, "all 11 small tables decoded ahead while the large one is held")
    }

    /// Stopping early (an error, a restart) waits for the workers and leaves nothing running.
    @Test func stoppingEarlyStopsTheWorkers() throws {
        let path = try Self.tables(30)
        defer { unlink(path) }
        let reader = try BriefcaseElements.open(path, as: .dabriefcase)
        let file = try #require(Self.file(of: reader))
        var decoding = ElementDecoding<ModelReading, Never>(reader, positions: Array(reader.elements.indices), jobs: 4)
        _ = decoding.next()
        decoding.stop()
        let read = file.bytesRead
        usleep(50_000)
        #expect(file.bytesRead == read, "no worker reads after stop()")
    }

    /// Eight threads read 48 handles — three times the descriptors kept open — at once: every read
    /// gets its file's bytes while descriptors are closed and opened again around it.
    @Test func manyThreadsReadManyHandlesAtOnce() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("descriptors-threads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let files = try (0 ..< OpenDescriptors.limit * 3).map { i in
            let path = dir.appendingPathComponent("f\(i)").path
            try Data(repeating: UInt8(i), count: 4096).write(to: URL(fileURLWithPath: path))
            return try RandomAccessFile(path: path)
        }
        let wrong = NSLock()
        nonisolated(unsafe) var mismatches = 0
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            var generator = SystemRandomNumberGenerator()
            for step in 0 ..< 400 {
                let i = (thread * 7 + step * 13 + Int(generator.next() % 3)) % files.count
                let bytes = try? files[i].read(step % 4096 ..< 4096)
                if bytes != [UInt8](repeating: UInt8(i), count: 4096 - step % 4096) {
                    wrong.lock()
                    mismatches += 1
                    wrong.unlock()
                }
            }
        }
        #expect(mismatches == 0)
    }

    /// Reading element after element into one spare array: the first read gives it room for the
    /// largest element to come, so the larger ones after it are read into the same memory (not a
    /// fresh allocation each, which costs page faults), and every read gives the file's bytes at
    /// the array's start; the array's count only grows (the memory it touched).
    @Test func aSpareSizedForTheLargestElementIsReadIntoAgain() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("spare-\(UUID().uuidString)").path
        defer { unlink(path) }
        let bytes = (0 ..< 300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try FileIO.writeAtomically(bytes, to: path)
        let file = try RandomAccessFile(path: path)
        var spare: [UInt8] = []
        /// Whether a read gives the file's bytes (the array read is let go before the next read:
        /// one still held would be copied on write, rightly).
        func readsTheFile(_ range: Range<Int>) throws -> Bool {
            try file.read(range, reusing: &spare, minimumCapacity: 250_000).prefix(range.count) == bytes[range]
        }
        #expect(try readsTheFile(0 ..< 1000))
        #expect(spare.capacity >= 250_000)
        let address = spare.withUnsafeBufferPointer { $0.baseAddress }
        for (range, count) in [(5000 ..< 250_000, 245_000), (10 ..< 20, 245_000), (40_000 ..< 290_000, 250_000)] {
            #expect(try readsTheFile(range))
            #expect(spare.count == count, "the count only grows: \(range)")
            #expect(spare.withUnsafeBufferPointer { $0.baseAddress } == address, "read into the same memory: \(range)")
        }
    }
}
