import Foundation
import Testing
import BriefcaseTestSupport
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit
@testable import BriefcaseDatastore

/// `SnapshotImport.read(_:into:)`: a document given to a sink table by table, as its rows are
/// read from the bytes, gives the bytes the whole reading gives, whatever happens on the way.
struct SnapshotSinkTests {
    /// A binary writer that tells what it was asked to do.
    struct Recording: BriefcaseSink {
        var inner = BinarySink(output: MemoryStreamOutput())
        var calls: [String] = []
        var headsFirst = false
        /// The element (by count of those received) whose writing fails.
        var failingAt: Int?

        var needs: SinkNeeds { SinkNeeds(headsFirst: headsFirst) }
        mutating func prepare(heads: [Element]) throws(BriefcaseError) -> [Int]? {
            calls.append("prepare \(heads.count)")
            return nil
        }
        mutating func begin(_ head: BriefcaseHead) throws(BriefcaseError) {
            calls.append("begin")
            try inner.begin(head)
        }
        mutating func element(_ element: Element) throws(BriefcaseError) { try self.element(element, at: -1) }
        mutating func element(_ element: Element, at position: Int) throws(BriefcaseError) {
            calls.append("element \(position)")
            if failingAt == calls.filter({ $0.hasPrefix("element") }).count { throw BriefcaseError(.io, "the disk is full") }
            try inner.element(element, at: position)
        }
        mutating func finish() throws(BriefcaseError) {
            calls.append("finish")
            try inner.finish()
        }
        mutating func abandon() {
            calls.append("abandon")
            inner.abandon()
        }
    }

    static func read(_ bytes: [UInt8], into sink: inout Recording) throws(BriefcaseError) -> SnapshotReading {
        let copy = bytes
        return try copy.withUnsafeBytes { buf in Result { () throws(BriefcaseError) in try SnapshotImport.read(buf, into: &sink) } }.get()
    }

    /// The bytes or the error of reading `bytes` into a fresh binary writer.
    static func outcome(_ bytes: [UInt8], headsFirst: Bool = false) -> String {
        var sink = Recording(headsFirst: headsFirst)
        do {
            let reading = try read(bytes, into: &sink)
            return "read \(sink.inner.output.bytes) \(reading.codePage.name) \(reading.warnings)"
        } catch {
            return "refused \(error.description)"
        }
    }

    static func whole(_ bytes: [UInt8]) -> String {
        do {
            let imported = try SnapshotImport(parsingWhole: bytes)
            return "read \(try imported.document.encode()) \(imported.codePage.name) \(imported.warnings)"
        } catch {
            return "refused \(error.description)"
        }
    }

    /// Two tables and a delta, exported: the document the tests below edit.
    static func twoTables() throws -> (briefcase: [UInt8], snapshot: [UInt8]) {
        let loaded = try fixture("orders.bin2")
        var document = loaded.document
        guard case .table(var second) = document.file.stream.elements.first(where: { $0.kind == .table }) else {
            throw BriefcaseError(.invalidModel, "orders.bin2 has no table")
        }
        second.name = "Orders2"
        document.file.stream.elements.append(.table(second))
        return (try document.encode(), try SnapshotExport(document, codePage: loaded.codePage).bytes)
    }

    @Test(arguments: validFixtureNames)
    func fixturesStreamTableByTable(name: String) throws {
        let loaded = try fixture(name)
        let snapshot = try SnapshotExport(loaded.document, codePage: loaded.codePage).bytes
        var sink = Recording()
        let reading = try Self.read(snapshot, into: &sink)
        #expect(sink.inner.output.bytes == loaded.bytes)
        #expect(reading.restored && reading.warnings.isEmpty && reading.codePage.name == loaded.codePage.name)
        // Begun once, each element once in stream order, finished: no document read whole first.
        let positions = loaded.document.file.stream.elements.indices.map { "element \($0)" }
        #expect(sink.calls == ["begin"] + positions + ["finish"], "\(sink.calls)")
    }

    @Test(.enabled(if: SamplePaths.samplesPresent, "../shared/briefcase-samples is absent"), arguments: SamplePaths.sampleNames)
    func realSamplesStream(name: String) throws {
        let bytes = try #require(SamplePaths.sample(name))
        let loaded = try load(bytes, name: name)
        var sink = Recording()
        _ = try Self.read(try SnapshotExport(loaded.document, codePage: loaded.codePage).bytes, into: &sink)
        #expect(sink.inner.output.bytes == bytes)
        #expect(sink.calls.filter { $0 == "begin" }.count == 1)
    }

    /// The second table's rows out of order: the first table was given already; the sink is
    /// abandoned and the document read whole — the same briefcase in the end.
    @Test func aTableDeclinedAfterAnotherWasGivenStartsOver() throws {
        let (briefcase, snapshot) = try Self.twoTables()
        var text = String(decoding: snapshot, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let second = lines.indices.filter { lines[$0].hasPrefix("{\"tid\":\"Orders2\"") }
        try #require(second.count >= 2)
        var edited = lines
        edited[second[0]] = lines[second[1]].hasSuffix(",") ? lines[second[1]] : lines[second[1]] + ","
        edited[second[1]] = lines[second[1]].hasSuffix(",") ? lines[second[0]] : String(lines[second[0]].dropLast())
        text = edited.joined(separator: "\n")
        var sink = Recording()
        _ = try Self.read(Array(text.utf8), into: &sink)
        #expect(sink.inner.output.bytes == briefcase)
        #expect(sink.calls.prefix(3) == ["begin", "element 0", "element 1"], "\(sink.calls)")
        #expect(sink.calls.contains("abandon") && sink.calls.filter { $0 == "begin" }.count == 2, "\(sink.calls)")
        #expect(sink.calls.last == "finish")
    }

    /// The sink's own failure is the error: not a reason to read the document again.
    @Test func theSinksFailureIsTheError() throws {
        let (_, snapshot) = try Self.twoTables()
        var sink = Recording(failingAt: 2)
        #expect(throws: BriefcaseError.self) { _ = try Self.read(snapshot, into: &sink) }
        do {
            var again = Recording(failingAt: 2)
            _ = try Self.read(snapshot, into: &again)
        } catch {
            #expect(error.message == "the disk is full")
        }
        #expect(sink.calls == ["begin", "element 0", "element 1", "abandon"], "\(sink.calls)")
    }

    /// A sink that needs every head first gets the briefcase whole, then given.
    @Test func aSinkThatNeedsHeadsFirstGetsTheBriefcaseWhole() throws {
        let (briefcase, snapshot) = try Self.twoTables()
        var sink = Recording(headsFirst: true)
        _ = try Self.read(snapshot, into: &sink)
        #expect(sink.inner.output.bytes == briefcase)
        #expect(sink.calls.first?.hasPrefix("prepare") == true, "\(sink.calls)")
    }

    /// A bin2 briefcase with properties is refused as the whole reading refuses it, before the
    /// sink has begun.
    @Test func aBin2BriefcaseWithPropertiesIsRefusedBeforeTheSinkBegins() throws {
        let loaded = try fixture("orders.bin2")
        let text = String(decoding: try SnapshotExport(loaded.document, codePage: loaded.codePage).bytes, as: UTF8.self)
        let edited = Array(text.replacingOccurrences(of: #""container":"bin2","encoding":"utf-8""#,
                                                     with: #""container":"bin2","encoding":"utf-8","properties":[["a","b"]]"#).utf8)
        #expect(edited != Array(text.utf8))
        var sink = Recording()
        #expect(throws: BriefcaseError.self) { _ = try Self.read(edited, into: &sink) }
        #expect(sink.calls.isEmpty, "\(sink.calls)")
        #expect(Self.outcome(edited) == Self.whole(edited))
        #expect(Self.whole(edited).contains("a bin2 briefcase has no properties"), "\(Self.whole(edited))")
    }

    /// Mutants: the bytes or the error are those of the whole reading.
    @Test func mutantsGiveWhatTheWholeReadingGives() throws {
        let (_, snapshot) = try Self.twoTables()
        var random = SplitMix64(seed: 30)
        for k in 0..<200 {
            let mutant = Mutation.mutant(of: snapshot, &random, json: true)
            let whole = Self.whole(mutant)
            #expect(Self.outcome(mutant) == whole, "mutant \(k)")
            #expect(Self.outcome(mutant, headsFirst: true) == whole, "mutant \(k), heads first")
        }
    }
}
