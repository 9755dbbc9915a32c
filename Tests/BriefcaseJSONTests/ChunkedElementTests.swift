import JSONCore
@testable import BriefcaseJSON
import BriefcaseKit
import BriefcaseTestSupport
import Foundation
import Testing

/// Elements encoded ahead on worker threads go into fixed-size chunks of a pool
/// (`ChunkPool`, `ChunkSink`) rather than one growing array each: the chunks hold the bytes
/// written, in order, and are used again by later elements.
@Suite struct ChunkedElementTests {
    /// Pieces of every size around the chunk size (a byte, a chunk less one, a chunk, several
    /// chunks and a half) come out as full chunks and one partial last chunk whose bytes,
    /// joined, are the pieces in order.
    @Test func chunksHoldThePiecesInOrderEachFullButTheLast() {
        let size = ChunkPool.chunkSize
        let pieceSizes = [1, size - 1, size, 3, 2 * size + size / 2, 0, 17]
        var expected: [UInt8] = []
        var sink = ChunkSink(pool: ChunkPool())
        for (n, count) in pieceSizes.enumerated() {
            let piece = (0 ..< count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n) }
            expected += piece
            piece.withUnsafeBytes { sink.write($0) }
        }
        #expect(sink.chunks.flatMap { $0 } == expected)
        #expect(sink.chunks.dropLast().allSatisfy { $0.count == size })
        // 1 + (size-1) + size + 3 + 2.5 size + 17 = 4.5 size + 20 bytes: five chunks.
        #expect(sink.chunks.count == 5)
        #expect(sink.chunks.last?.count == size / 2 + 20)
    }

    /// Chunks handed back are the memory the next elements are written into: no new allocation
    /// once the pool holds enough.
    @Test func chunksHandedBackAreUsedAgain() {
        let pool = ChunkPool()
        var first = ChunkSink(pool: pool)
        let bytes = [UInt8](repeating: 7, count: ChunkPool.chunkSize + 10)
        bytes.withUnsafeBytes { first.write($0) }
        let addresses = Set(first.chunks.map { $0.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } })
        pool.giveBack(first.chunks)
        first = ChunkSink(pool: pool)  // lets go of the chunks: the pool's are now its own
        var second = ChunkSink(pool: pool)
        bytes.withUnsafeBytes { second.write($0) }
        let again = Set(second.chunks.map { $0.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } })
        #expect(again == addresses)
        #expect(second.chunks.flatMap { $0 } == bytes)
    }

    /// Tables whose JSON spans several chunks, encoded on workers: the document is the one a
    /// single job writes straight to its output (no chunks), and it reads back as the model.
    @Test(arguments: [2, 3])
    func elementsOfManyChunksGiveTheSameDocumentAsOneJob(jobs: Int) throws {
        let fields = [FieldDescriptor(name: "ID", type: .integer), FieldDescriptor(name: "Text", type: .string)]
        func table(_ name: ByteString, rows: Int) -> Element {
            .table(Table(name: name, fields: fields, rows: (0 ..< rows).map { r in
                [.integer(Int64(r)), .ansiString(ByteString(utf8: "row \(r) of \(name) " + String(repeating: "x", count: r % 97)))]
            }))
        }
        // About 2.3 MB, 2 bytes and 1.1 MB of JSON: chunks filled, a chunk barely used, a chunk and a bit.
        let document = BriefcaseDocument(container: .bin2, file: BriefcaseFile(stream: Bin2Stream(elements: [
            table("Large", rows: 30_000), table("Empty", rows: 0), table("Middle", rows: 15_000),
        ])))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("chunks-\(UUID().uuidString).bin2").path
        defer { unlink(path) }
        try FileIO.writeAtomically(try document.encode(), to: path)
        func json(jobs: Int) throws -> [UInt8] {
            var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: .utf8)
            _ = try BriefcaseElements.open(path, as: .bin2).read(into: &encoder, encoding: nil, skipDamaged: false, jobs: jobs)
            try encoder.writer.flush()
            return encoder.writer.sink.bytes
        }
        let one = try json(jobs: 1), many = try json(jobs: jobs)
        #expect(one.count > 3 * ChunkPool.chunkSize)
        #expect(many == one)
        #expect(try JSONDocumentDecoder().decode(many) == document)
    }

    /// A table of many rows encoded in parts (`JSONElementParts`, row ranges at once on several
    /// threads): the bytes one encoder writes straight into an array; with values that do not fit
    /// their column in two parts, the error of the first of them, as one encoder stops at it.
    @Test(arguments: [2, 3, 8])
    func aLargeTableEncodedInPartsIsTheTableEncodedAtOnce(jobs: Int) throws {
        let fields = [FieldDescriptor(name: "ID", type: .integer), FieldDescriptor(name: "Text", type: .string)]
        var table = Table(name: "Parts", fields: fields, rows: (0 ..< 5 * JSONElementParts.rowsPerPart + 7).map { r in
            [.integer(Int64(r)), .ansiString(ByteString(utf8: "row \(r) é"))]
        })
        func atOnce(_ table: Table) throws -> [UInt8] {
            var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: .utf8)
            try encoder.encodeBody(.table(table))
            try encoder.writer.flush()
            return encoder.writer.sink.bytes
        }
        let parts = JSONElementParts(codePage: .utf8, chunks: ChunkPool())
        let encoded = try parts.encode(.table(table), jobs: jobs).get()
        #expect(encoded.chunks.flatMap { $0 } == (try atOnce(table)))
        #expect(encoded.validUTF8)
        // About 1.1 MB of JSON: two chunks from one encoder; parts each end in a chunk of their own.
        #expect(encoded.chunks.count >= min(jobs, 5), "encoded in \(min(jobs, 5)) parts")
        // Text in an integer column: rows 30 000 and 12 000 (in a later and an earlier part).
        table.rows[30_000][0] = .ansiString("x")
        table.rows[12_000][0] = .ansiString("y")
        var expected = ""
        do { _ = try atOnce(table) } catch let error as BriefcaseError { expected = error.description }
        #expect(expected.contains("row 12000"))
        let error = try #require(throws: BriefcaseError.self) { try parts.encode(.table(table), jobs: jobs).get() }
        #expect(error.description == expected)
    }

    /// A table of many rows written with `rowJobs` (row ranges encoded by several threads, each
    /// written in order as soon as it is done): the bytes one encoder writes; with values that do
    /// not fit their column in two ranges, the error of the first of them; invalid UTF-8 in one
    /// range is noted as one encoder notes it.
    @Test(arguments: [2, 3, 8])
    func aLargeTableStreamedInRangesIsTheTableWrittenAtOnce(jobs: Int) throws {
        let fields = [FieldDescriptor(name: "ID", type: .integer), FieldDescriptor(name: "Text", type: .string)]
        var table = Table(name: "Ranges", fields: fields, rows: (0 ..< 5 * JSONElementParts.rowsPerPart + 7).map { r in
            [.integer(Int64(r)), .ansiString(ByteString(utf8: "row \(r) é"))]
        })
        func written(_ table: Table, rowJobs: Int) throws -> (bytes: [UInt8], validUTF8: Bool) {
            var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: .utf8)
            encoder.rowJobs = rowJobs
            try encoder.encodeBody(.table(table))
            try encoder.writer.flush()
            return (encoder.writer.sink.bytes, !encoder.emitter.takeInvalidUTF8())
        }
        #expect(try written(table, rowJobs: jobs).bytes == (try written(table, rowJobs: 1).bytes))
        // Rows kept as bytes (as decoded) go the same way.
        let stored = try BriefcaseDocument(container: .bin2, file: BriefcaseFile(stream: Bin2Stream(elements: [.table(table)]))).encode()
        var warnings: [DecodingWarning] = []
        let decoded = try #require(try BriefcaseDocument.decode(stored, as: .bin2, warnings: &warnings).file.stream.elements[0].asTable)
        #expect(try written(decoded, rowJobs: jobs).bytes == (try written(table, rowJobs: 1).bytes))
        // Invalid UTF-8 in the fourth range only.
        var invalid = table
        invalid.rows[3 * JSONElementParts.rowsPerPart + 1][1] = .ansiString(ByteString([0xFF]))
        #expect(try written(invalid, rowJobs: jobs).validUTF8 == false)
        #expect(try written(invalid, rowJobs: 1).validUTF8 == false)
        #expect(try written(invalid, rowJobs: jobs).bytes == (try written(invalid, rowJobs: 1).bytes))
        // Text in an integer column: rows 30 000 and 12 000 (in a later and an earlier range).
        table.rows[30_000][0] = .ansiString("x")
        table.rows[12_000][0] = .ansiString("y")
        var expected = ""
        do { _ = try written(table, rowJobs: 1) } catch let error as BriefcaseError { expected = error.description }
        #expect(expected.contains("row 12000"))
        do {
            _ = try written(table, rowJobs: jobs)
            Issue.record("no error")
        } catch let error as BriefcaseError {
            #expect(error.description == expected)
        }
    }

    /// A table of few rows of large blobs (kept as bytes, as decoded) is cut by bytes, not by rows
    /// (`JSONElementParts.bytesPerPart`): written in parts by several threads, its bytes are one
    /// encoder's.
    @Test(arguments: [2, 3])
    func aTableOfFewLargeRowsIsWrittenInPartsAsAtOnce(jobs: Int) throws {
        let fields = [FieldDescriptor(name: "ID", type: .integer), FieldDescriptor(name: "Data", type: .blob)]
        let values = Table(name: "Blobs", fields: fields, rows: (0 ..< 40).map { r in
            [.integer(Int64(r)), .blob(ByteString((0 ..< 100_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ r) }))]
        })
        let stored = try BriefcaseDocument(container: .bin2, file: BriefcaseFile(stream: Bin2Stream(elements: [.table(values)]))).encode()
        var warnings: [DecodingWarning] = []
        let table = try #require(try BriefcaseDocument.decode(stored, as: .bin2, warnings: &warnings).file.stream.elements[0].asTable)
        // 40 rows of 100 017 bytes (mask, integer, length, blob): 10 to a part of 1 MiB.
        #expect(JSONElementParts.parts(of: table) == [0 ..< 10, 10 ..< 20, 20 ..< 30, 30 ..< 40])
        func written(rowJobs: Int) throws -> [UInt8] {
            var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: .utf8)
            encoder.rowJobs = rowJobs
            try encoder.encodeBody(.table(table))
            try encoder.writer.flush()
            return encoder.writer.sink.bytes
        }
        var one = JSONDocumentEncoder(sink: ArraySink(), codePage: .utf8)
        try one.encodeBody(.table(values))
        try one.writer.flush()
        #expect(try written(rowJobs: jobs) == one.writer.sink.bytes)
    }
}
