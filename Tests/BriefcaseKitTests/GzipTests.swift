import Foundation
import Testing
import BriefcaseTestSupport
@testable import BriefcaseKit

/// The gzip layer over zlib: round trips, streams made by other tools, damage, and the bound on
/// the decompressed size.
@Suite struct GzipTests {
    /// Made with Python's gzip module (level 9, FNAME "hello.txt", mtime 1700000000):
    /// `gzip.GzipFile(filename="hello.txt", mode="wb", fileobj=buf, mtime=1700000000, compresslevel=9)`.
    static let pythonStream = hexBytes("""
        1f8b080800f1536502ff68656c6c6f2e74787400f348cdc9c9d751482aca4c4d4b4e2c4e55e4f22042040099a8e08a36000000
        """)
    static let pythonContent = Array(String(repeating: "Hello, briefcase!\n", count: 3).utf8)
    /// `gzip.compress(b"second member\n", mtime=0)`.
    static let pythonSecondMember = hexBytes("1f8b08000000000002032b4e4dcecf4b51c84dcd4d4a2de2020036184b0e0e000000")

    /// Deterministic pseudo-random bytes (SplitMix64).
    static func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 8)
        while bytes.count < count {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            withUnsafeBytes(of: z) { bytes += $0 }
        }
        return Array(bytes.prefix(count))
    }

    /// Text-like data that deflate shrinks a lot but not absurdly.
    static func compressibleBytes(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 64)
        var row = 0
        while bytes.count < count {
            bytes += Array("{\"ID\": \(row), \"Customer\": \"Customer \(row % 97)\", \"Amount\": \"\(row % 1000).5\"}\n".utf8)
            row += 1
        }
        return Array(bytes.prefix(count))
    }

    /// Decompresses feeding the input in pieces of the given sizes (cycled).
    static func decompressInPieces(_ bytes: [UInt8], sizes: [Int], limit: Int = Gzip.maximumOutput) throws(BriefcaseError) -> [UInt8] {
        let decompressor = try GzipDecompressor(limit: limit)
        var output: [UInt8] = []
        var position = 0, turn = 0
        while position < bytes.count {
            let end = min(bytes.count, position + sizes[turn % sizes.count])
            try decompressor.decompress(Array(bytes[position..<end])) { output += $0 }
            position = end
            turn += 1
        }
        try decompressor.finish()
        return output
    }

    // MARK: Streams made elsewhere

    @Test func readsAStreamMadeByPython() throws {
        #expect(try Gzip.decompress(Self.pythonStream) == Self.pythonContent)
        // One byte at a time: every state boundary of the header (FNAME) and the trailer.
        #expect(try Self.decompressInPieces(Self.pythonStream, sizes: [1]) == Self.pythonContent)
    }

    @Test func concatenatedMembersAreOneStream() throws {
        let both = Self.pythonStream + Self.pythonSecondMember
        #expect(try Gzip.decompress(both) == Self.pythonContent + Array("second member\n".utf8))
        #expect(try Self.decompressInPieces(both, sizes: [1, 7, 3]) == Self.pythonContent + Array("second member\n".utf8))
        // Our own members, one of them empty.
        let a = Self.randomBytes(100_000, seed: 1), c = Array("tail".utf8)
        let stream = try Gzip.compress(a) + Gzip.compress([]) + Gzip.compress(c)
        let decompressor = try GzipDecompressor()
        var output: [UInt8] = []
        try decompressor.decompress(stream) { output += $0 }
        try decompressor.finish()
        #expect(output == a + c)
        #expect(decompressor.members == 3)
        #expect(decompressor.totalIn == stream.count)
        #expect(decompressor.totalOut == output.count)
    }

    static let systemGzip = ["/bin/gzip", "/usr/bin/gzip"].first { FileManager.default.isExecutableFile(atPath: $0) }

    static func runGzip(_ arguments: [String], input: [UInt8]) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: systemGzip!)
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        let writer = Thread {
            stdin.fileHandleForWriting.write(Data(input))
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return [UInt8](output)
    }

    /// The system's `gzip` reads what we write, and we read what it writes.
    @Test(.enabled(if: systemGzip != nil, "no gzip command"))
    func interoperatesWithTheGzipCommand() throws {
        let data = Self.compressibleBytes(300_000) + Self.randomBytes(50_000, seed: 7)
        let theirs = try Self.runGzip(["-c", "-9"], input: data)
        #expect(Gzip.hasMagic(theirs))
        #expect(try Gzip.decompress(theirs) == data)
        let ours = try Gzip.compress(data)
        #expect(try Self.runGzip(["-d", "-c"], input: ours) == data)
        #expect(try Self.runGzip(["-d", "-c"], input: Gzip.compress([])) == [])
    }

    // MARK: Round trips

    @Test(arguments: [0, 1, 2, 100, 65_535, 65_536, 300_001])
    func roundTripsRandomData(count: Int) throws {
        let data = Self.randomBytes(count, seed: UInt64(count))
        let compressed = try Gzip.compress(data)
        #expect(try Gzip.decompress(compressed) == data)
    }

    @Test func roundTripsSeveralMegabytes() throws {
        let random = Self.randomBytes(5 << 20, seed: 42)
        let compressedRandom = try Gzip.compress(random)
        #expect(compressedRandom.count > random.count) // random data does not shrink
        #expect(try Gzip.decompress(compressedRandom) == random)
        #expect(try Self.decompressInPieces(compressedRandom, sizes: [1, 4096, 65_537, 999]) == random)

        let text = Self.compressibleBytes(8 << 20)
        let compressedText = try Gzip.compress(text)
        #expect(compressedText.count < text.count / 5)
        #expect(try Gzip.decompress(compressedText) == text)
        #expect(try Self.decompressInPieces(compressedText, sizes: [3, 100_000]) == text)
    }

    /// The compressor takes input in any pieces and gives the same bytes as in one go (deflate's
    /// output does not depend on how its input is cut), which inflate to the input; the sink
    /// receives pieces no larger than the chunk size.
    @Test func compressionInPiecesGivesTheBytesOfOneGoWhichInflateToTheInput() throws {
        let data = Self.compressibleBytes(3 << 20) + Self.randomBytes(1 << 20, seed: 3)
        let oneShot = try Gzip.compress(data)
        let compressor = try GzipCompressor()
        var streamed: [UInt8] = [], largestPiece = 0, position = 0, turn = 0
        let sizes = [1, 17, 4096, 333_333]
        while position < data.count {
            let end = min(data.count, position + sizes[turn % sizes.count])
            try compressor.compress(Array(data[position..<end])) { streamed += $0; largestPiece = max(largestPiece, $0.count) }
            position = end
            turn += 1
        }
        try compressor.finish { streamed += $0; largestPiece = max(largestPiece, $0.count) }
        #expect(streamed == oneShot)
        #expect(try Gzip.decompress(streamed) == data)
        #expect(try Self.decompressInPieces(streamed, sizes: [65_536]) == data)
        #expect(largestPiece <= GzipCompressor.outputChunkSize)
        #expect(compressor.totalIn == data.count && compressor.totalOut == streamed.count)
        let late = #expect(throws: BriefcaseError.self) { try compressor.compress([1]) { _ in } }
        #expect(late?.kind == .invalidModel && late?.message.contains("compress after finish") == true, "\(String(describing: late))")
    }

    /// A gzip header with modification time 0 and no name: the same input gives the same file.
    @Test func headerIsPlainAndDeterministic() throws {
        let compressed = try Gzip.compress(Array("abc".utf8))
        #expect(Array(compressed.prefix(8)) == [0x1f, 0x8b, 8, 0, 0, 0, 0, 0])
        #expect(try Gzip.compress(Array("abc".utf8)) == compressed)
        // The trailer: CRC-32 and length, little-endian.
        #expect(Array(compressed.suffix(8)) == [0xc2, 0x41, 0x24, 0x35, 3, 0, 0, 0])
        #expect(try Gzip.compress(Array("abc".utf8), level: 0).count > 0)
        let level = #expect(throws: BriefcaseError.self) { try Gzip.compress([], level: 10) }
        #expect(level?.kind == .invalidModel && level?.message.contains("level 10 is not between 0 and 9") == true, "\(String(describing: level))")
    }

    // MARK: Damage

    /// Every proper prefix of a stream fails with a `BriefcaseError` (never a crash), with an
    /// offset inside the prefix.
    @Test func everyTruncationFails() throws {
        for stream in [Self.pythonStream, try Gzip.compress(Self.compressibleBytes(5_000))] {
            for length in 0 ..< stream.count {
                do throws(BriefcaseError) {
                    _ = try Gzip.decompress(Array(stream[..<length]))
                    Issue.record("a prefix of \(length) of \(stream.count) bytes decompressed")
                } catch {
                    #expect(error.kind == .truncated || error.kind == .invalidData, "length \(length)")
                    #expect((error.offset ?? -1) >= 0 && (error.offset ?? .max) <= length, "length \(length): \(error)")
                }
            }
        }
    }

    @Test func damagedChecksumsFail() throws {
        var badCRC = Self.pythonStream
        badCRC[badCRC.count - 8] ^= 0x01
        let crcError = #expect(throws: BriefcaseError.self) { try Gzip.decompress(badCRC) }
        #expect(crcError?.kind == .invalidData)
        #expect(crcError?.message.contains("incorrect data check") == true)
        #expect(crcError?.offset != nil)
        var badLength = Self.pythonStream
        badLength[badLength.count - 1] ^= 0x01
        let lengthError = #expect(throws: BriefcaseError.self) { try Gzip.decompress(badLength) }
        #expect(lengthError?.message.contains("incorrect length check") == true)
    }

    /// Flipping any one byte of a stream gives a `BriefcaseError` or (in header fields zlib does
    /// not check, like the time) the same content; never a crash or wrong data silently.
    @Test func everyFlippedByteIsCaughtOrHarmless() throws {
        let stream = try Gzip.compress(Self.compressibleBytes(2_000))
        let content = Self.compressibleBytes(2_000)
        for index in stream.indices {
            for mask: UInt8 in [0x01, 0x80, 0xff] {
                var damaged = stream
                damaged[index] ^= mask
                do throws(BriefcaseError) {
                    let output = try Gzip.decompress(damaged)
                    #expect(output == content, "byte \(index) ^ \(mask) gave other content without an error")
                } catch {
                    #expect(error.offset != nil, "byte \(index)")
                }
            }
        }
    }

    @Test func notGzipAndTrailingBytesFail() throws {
        let notGzip = #expect(throws: BriefcaseError.self) { try Gzip.decompress(Array("DABRC600 and so on".utf8)) }
        #expect(notGzip?.kind == .invalidData)
        #expect(notGzip?.offset == 0)
        #expect(notGzip?.message.contains("not gzip") == true)
        let empty = #expect(throws: BriefcaseError.self) { try Gzip.decompress([]) }
        #expect(empty?.kind == .truncated)
        let stream = Self.pythonStream + Array("garbage after it".utf8)
        let trailing = #expect(throws: BriefcaseError.self) { try Gzip.decompress(stream) }
        #expect(trailing?.kind == .invalidData)
        #expect(trailing?.offset == Self.pythonStream.count)
        #expect(trailing?.message.contains("do not start another gzip member") == true)
        // After an error, the decompressor keeps reporting it: the same error, even for good input.
        let decompressor = try GzipDecompressor()
        let first = try #require(throws: BriefcaseError.self) { try decompressor.decompress(Array("nope".utf8)) { _ in } }
        #expect(first.kind == .invalidData && first.offset == 0 && first.message.contains("not gzip"), "\(first)")
        #expect(throws: first) { try decompressor.decompress(Self.pythonStream) { _ in } }
        #expect(throws: first) { try decompressor.finish() }
    }

    // MARK: The bound on the output

    @Test func refusesToInflateBeyondTheLimit() throws {
        let zeros = [UInt8](repeating: 0, count: 20 << 20)
        let bomb = try Gzip.compress(zeros)
        #expect(bomb.count < 30_000)
        let refused = #expect(throws: BriefcaseError.self) { try Gzip.decompress(bomb, limit: 1 << 20) }
        #expect(refused?.kind == .invalidData)
        #expect(refused?.message.contains("limit of 1048576 bytes") == true)
        #expect(refused?.offset != nil)
        // Exactly at the limit is fine; one byte less is not.
        let small = try Gzip.compress(Array(zeros.prefix(1000)))
        #expect(try Gzip.decompress(small, limit: 1000).count == 1000)
        let over = #expect(throws: BriefcaseError.self) { try Gzip.decompress(small, limit: 999) }
        #expect(over?.kind == .invalidData && over?.message.contains("limit of 999 bytes") == true, "\(String(describing: over))")
        // The default: 1000 times the input, within [64 MiB, 16 GiB].
        #expect(Gzip.defaultLimit(compressedCount: 0) == 64 << 20)
        #expect(Gzip.defaultLimit(compressedCount: 1 << 20) == 1000 << 20)
        #expect(Gzip.defaultLimit(compressedCount: 1 << 30) == 16 << 30)
        #expect(Gzip.defaultLimit(compressedCount: .max) == 16 << 30)
        #expect(try Gzip.decompress(bomb) == zeros) // 20 MiB is under the 64 MiB floor
    }

    // MARK: Files

    @Test func filesRoundTripAtomically() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("briefcase-gzip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("x.bin2.gz").path
        let data = Self.compressibleBytes(3 << 20) + Self.randomBytes(2 << 20, seed: 9)
        try Gzip.writeFileAtomically(data, to: path)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["x.bin2.gz"])
        #expect(try Gzip.readFile(path) == data)
        #expect(try Gzip.readPrefix(path, count: 8) == Array(data.prefix(8)))
        #expect(try Gzip.readPrefix(path, count: 0) == [])
        let limited = #expect(throws: BriefcaseError.self) { try Gzip.readFile(path, limit: 1 << 20) }
        #expect(limited?.kind == .invalidData && limited?.file == path && limited?.message.contains("limit of 1048576 bytes") == true,
                "\(String(describing: limited))")

        // Errors name the file.
        let truncated = dir.appendingPathComponent("cut.gz").path
        let compressed = try Gzip.compress(data)
        try Data(compressed.prefix(compressed.count / 2)).write(to: URL(fileURLWithPath: truncated))
        let cut = #expect(throws: BriefcaseError.self) { try Gzip.readFile(truncated) }
        #expect(cut?.file == truncated)
        #expect(cut?.kind == .truncated)
        #expect(cut?.offset == compressed.count / 2)
        let missingPath = dir.appendingPathComponent("missing.gz").path
        let missing = #expect(throws: BriefcaseError.self) { try Gzip.readFile(missingPath) }
        #expect(missing?.kind == .io && missing?.file == missingPath, "\(String(describing: missing))")

        // A small file whose content is shorter than the prefix asked for.
        let tiny = dir.appendingPathComponent("tiny.json.gz").path
        try Gzip.writeFileAtomically(Array("{}".utf8), to: tiny)
        #expect(try Gzip.readPrefix(tiny, count: 8) == Array("{}".utf8))
    }

    /// A gzip'd briefcase reads back to the same decoded file.
    @Test func gzipAroundABriefcase() throws {
        let bytes = try TestPaths.fixture("all-types.daBriefcase")
        let file = try BriefcaseFileCodec.decode(Gzip.decompress(Gzip.compress(bytes)))
        #expect(try BriefcaseFileCodec.encode(file) == bytes)
    }
}
