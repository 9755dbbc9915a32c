import Foundation
import JSONCore
import Testing
import BriefcaseTestSupport
@testable import BriefcaseJSON
@testable import BriefcaseKit

/// What the JSON reader tells a caller that maps the document it may let go (`scanned`): a large
/// table's rows 8 MiB at a time as they are read, and with several jobs each element a worker
/// parsed ahead — so that neither holds the document's pages. What is read is unchanged.
struct PageReleaseTests {
    /// Ranges reported from any thread.
    final class Ranges: @unchecked Sendable {
        private let lock = NSLock()
        private var ranges: [Range<Int>] = []
        func add(_ range: Range<Int>) { lock.lock(); ranges.append(range); lock.unlock() }
        var all: [Range<Int>] { lock.lock(); defer { lock.unlock() }; return ranges }
    }

    /// A briefcase of `large` tables of about 11 MB of JSON rows each, a small table between them.
    static func briefcase(large: Int) throws -> [UInt8] {
        let fields = [FieldDescriptor(name: "ID", type: .integer), FieldDescriptor(name: "Text", type: .string, size: 100)]
        var elements: [Element] = []
        for t in 0 ..< large {
            elements.append(.table(Table(name: ByteString(utf8: "Large\(t)"), fields: fields, rows: (0 ..< 100_000).map { r in
                [.integer(Int64(r)), .ansiString(ByteString(utf8: "row \(r) " + String(repeating: "y", count: 80)))]
            })))
            elements.append(.table(Table(name: ByteString(utf8: "Small\(t)"), fields: fields, rows: [[.integer(1), .ansiString("s")]])))
        }
        return try BriefcaseFileCodec.encode(BriefcaseFile(stream: Bin2Stream(elements: elements)))
    }

    static func json(_ original: [UInt8]) throws -> [UInt8] {
        var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: .utf8)
        _ = try BriefcaseElements(bytes: original, as: .dabriefcase).read(into: &encoder, encoding: nil, skipDamaged: false)
        try encoder.writer.flush()
        return encoder.writer.sink.bytes
    }

    /// Reads `json` into a binary briefcase with `jobs`, recording what `scanned` hears.
    static func read(_ json: [UInt8], jobs: Int) throws -> (bytes: [UInt8], released: [Range<Int>]) {
        let ranges = Ranges()
        var sink = BinarySink(output: MemoryStreamOutput())
        var failure: (any Error)?
        json.withUnsafeBytes { raw in
            var reader = JSONStreamReader(raw)
            reader.jobs = jobs
            reader.scanned = { ranges.add($0) }
            do { try reader.read(into: &sink) } catch { failure = error }
        }
        if let failure { throw failure }
        return (sink.output.bytes, ranges.all)
    }

    @Test func oneJobLetsALargeTablesRowsGoAsTheyAreRead() throws {
        let original = try Self.briefcase(large: 1)
        let json = try Self.json(original)
        let (bytes, released) = try Self.read(json, jobs: 1)
        #expect(bytes == original)
        #expect(!released.isEmpty, "about 11 MB of rows: at least one stretch")
        for range in released {
            #expect(range.count >= JSONStreamReader.releaseStretch && range.upperBound <= json.count)
        }
    }

    @Test func workersLetEachElementTheyParsedGo() throws {
        let original = try Self.briefcase(large: 2)
        let json = try Self.json(original)
        let (bytes, released) = try Self.read(json, jobs: 2)
        #expect(bytes == original)
        // The elements' array: the first "[" after its key.
        let key = Array("\"elements\":".utf8)
        let keyAt = try #require(json.indices.first { json[$0...].starts(with: key) })
        let open = try #require(json[keyAt...].firstIndex(of: UInt8(ascii: "[")))
        let array = try #require(json.withUnsafeBufferPointer { JSONArrayScan.itemStarts($0, array: open) })
        #expect(array.starts.count == 4)
        for start in array.starts {
            #expect(released.contains { $0.lowerBound == start && $0.count > 0 }, "the element at \(start), once parsed")
        }
    }
}
