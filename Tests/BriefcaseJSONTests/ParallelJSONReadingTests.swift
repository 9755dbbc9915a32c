import Foundation
import JSONCore
import Testing
import BriefcaseTestSupport
@testable import BriefcaseJSON
@testable import BriefcaseKit

/// A JSON document's elements parsed on several threads (`JSONStreamReader.jobs`,
/// `ElementsParsedAhead`): the scan for the items' starts, and a sink that gets what one job
/// gives it — the same elements and the same error — whatever the document.
struct ParallelJSONReadingTests {
    /// The scan on hand-written arrays: strings holding brackets, quotes and escapes are skipped,
    /// nested arrays and objects count as one item, and blocks of 64 bytes (the SIMD path) and
    /// the stretches between them agree with the byte loop — the same text padded to every offset.
    @Test func theScanFindsEachItemStart() {
        let items = [#"{"a":"[{"}"#, #"{"b":"\"]}\\","c":[1,[2,{"d":"}"}]]}"#, #"[ "x\\\\\"]" ]"#,
                     #"{"e":"\#(String(repeating: "\\\"{", count: 40))"}"#, #"{"f":"\#(String(repeating: "z", count: 130))"}"#, "{}"]
        for padding in 0 ..< 70 {
            var text = String(repeating: " ", count: padding) + "[ "
            var expected: [Int] = []
            for (k, item) in items.enumerated() {
                if k > 0 { text += k % 2 == 0 ? ",\n  " : "," }
                expected.append(text.utf8.count)
                text += item
            }
            text += " ]  "
            let close = text.utf8.count - 3
            let bytes = Array(text.utf8)
            let found = bytes.withUnsafeBufferPointer { JSONArrayScan.itemStarts($0, array: padding) }
            #expect(found?.starts == expected, "padding \(padding)")
            #expect(found?.close == close, "padding \(padding)")
        }
    }

    /// No end, a `}` closing the array, or something else where the array should be: no starts
    /// (the reader then goes on with one job).
    @Test func theScanGivesUpOnWhatIsNotAnArray() {
        for text in [#"[{"a":1},{"b":"]"#, #"[{"a":1}}"#, #"{"a":[]}"#, #"[{"a":"\"#] {
            let bytes = Array(text.utf8)
            #expect(bytes.withUnsafeBufferPointer { JSONArrayScan.itemStarts($0, array: 0) } == nil, "\(text)")
        }
    }

    /// What a reader with `jobs` hands its sink, or its error.
    static func read(_ bytes: [UInt8], jobs: Int) -> (elements: [Element], error: String?) {
        var collector = BriefcaseCollector()
        var error: String?
        var elements: [Element] = []
        bytes.withUnsafeBytes { raw in
            var reader = JSONStreamReader(raw)
            reader.jobs = jobs
            var recording = Recording(inner: collector)
            do throws(BriefcaseError) { try reader.read(into: &recording) } catch let e { error = e.description }
            collector = recording.inner
            elements = recording.elements
        }
        return (elements, error)
    }

    /// Keeps every element handed over, also when the read fails after it.
    struct Recording: ForwardingSink {
        var inner: BriefcaseCollector
        var elements: [Element] = []
        mutating func begin(_ head: BriefcaseHead) throws(BriefcaseError) { elements = []; try inner.begin(head) }
        mutating func element(_ element: Element) throws(BriefcaseError) { elements.append(element); try inner.element(element) }
    }

    /// The document's JSON, in the code page detected in it.
    static func json(_ document: BriefcaseDocument) throws -> [UInt8] {
        var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: CodePage.detect(in: document.file).codePage)
        try encoder.encode(document)
        return encoder.writer.sink.bytes
    }

    /// 20 groups of random tables and deltas (every type, text that is not UTF-8): jobs 1, 2
    /// and 8 read the elements the document was written from.
    @Test func manyElementsComeTheSameWithEveryJobCount() throws {
        let many = ManyTables(groups: 20, seed: 7)
        let json = try Self.json(many.document)
        let one = Self.read(json, jobs: 1)
        #expect(one.error == nil)
        #expect(one.elements == many.document.file.stream.elements)
        // The workers have something to do: the scan finds every element.
        let array = try #require(json.firstRange(of: Array("\"elements\": [".utf8))).upperBound - 1
        let scan = json.withUnsafeBufferPointer { JSONArrayScan.itemStarts($0, array: array) }
        #expect(scan?.starts.count == one.elements.count)
        for jobs in [2, 8] {
            let more = Self.read(json, jobs: jobs)
            #expect(more.error == nil)
            #expect(more.elements == one.elements, "jobs \(jobs)")
        }
    }

    /// Damage in one element among many — a bad value, a wrong type, a broken structure, a
    /// duplicate key, a cut — gives the same error with every job count, after the same elements.
    @Test(arguments: [1, 2, 8])
    func damageGivesTheSameErrorWithEveryJobCount(jobs: Int) throws {
        let many = ManyTables(groups: 6, seed: 3)
        let json = String(decoding: try Self.json(many.document), as: UTF8.self)
        let plain = "{\"kind\": \"table\", \"name\": \"Plain3\""
        #expect(json.contains(plain))
        let edits = [
            json.replacingOccurrences(of: "[\"d\"]", with: "[7]"),
            json.replacingOccurrences(of: plain, with: plain + ", \"name\": \"again\""),
            json.replacingOccurrences(of: plain, with: plain + " \"x\""),
            json.replacingOccurrences(of: plain, with: "{\"kind\": \"tabel\", \"name\": \"Plain3\""),
            String(json.prefix(json.utf8.count * 2 / 3)),
        ]
        for (k, edit) in edits.enumerated() {
            let bytes = Array(edit.utf8)
            let expected = Self.read(bytes, jobs: 1)
            #expect(expected.error != nil, "edit \(k)")
            let got = Self.read(bytes, jobs: jobs)
            #expect(got.error == expected.error, "edit \(k)")
            #expect(got.elements == expected.elements, "edit \(k)")
        }
    }
}

/// A binary briefcase written as JSON with its elements encoded on the workers that decoded them
/// (`JSONDocumentEncoder.elementPreparation()`): the bytes of one job.
struct PreparedJSONElementTests {
    /// Counts the elements that come prepared, passing everything to the encoder.
    struct CountingPrepared: PassingPreparedElements {
        var inner: JSONDocumentEncoder<ArraySink>
        var prepared = 0
        /// Rows and changes of the elements that came prepared: none, the JSON writer needing
        /// only their heads (the workers let the rest go as soon as they encoded it).
        var rowsWithPrepared = 0
        mutating func element(_ element: Element, prepared: Inner.Prepared, at position: Int) throws(BriefcaseError) {
            self.prepared += 1
            switch element {
            case .table(let table): rowsWithPrepared += table.rows.count
            case .delta(let delta): rowsWithPrepared += delta.changes.count
            }
            try inner.element(element, prepared: prepared, at: position)
        }
    }

    static func json(_ bytes: [UInt8], jobs: Int) throws -> (json: [UInt8], prepared: Int, rowsWithPrepared: Int) {
        let reader = try BriefcaseElements(bytes: bytes, as: .dabriefcase)
        var sink = CountingPrepared(inner: JSONDocumentEncoder(sink: ArraySink(), codePage: .utf8))
        _ = try reader.read(into: &sink, encoding: nil, skipDamaged: false, jobs: jobs)
        return (sink.inner.writer.sink.bytes, sink.prepared, sink.rowsWithPrepared)
    }

    /// 40 groups of random tables (every type, text that is not UTF-8) and a briefcase whose
    /// 8-bit text turns out not to be UTF-8 only in its 30th table (the code page chosen from
    /// the heads given up there, and the document begun again): jobs 2 and 8 write the bytes of
    /// jobs 1, every element encoded ahead.
    @Test func elementsEncodedAheadWriteTheBytesOfOneJob() throws {
        let restart: [Element] = (0 ..< 35).map { t in
            .table(Table(name: ByteString(utf8: "T\(t)"), fields: [FieldDescriptor(name: "Text", type: .string, size: 50)],
                         rows: [[.ansiString(t == 29 ? ByteString([0x63, 0x61, 0x66, 0xE9]) : ByteString(utf8: "abc"))]]))
        }
        let documents = [try ManyTables(groups: 40, seed: 9).document.encode(),
                         try BriefcaseFileCodec.encode(BriefcaseFile(stream: Bin2Stream(elements: restart)))]
        for (k, bytes) in documents.enumerated() {
            let one = try Self.json(bytes, jobs: 1)
            #expect(one.prepared == 0)
            let back = try JSONDocumentDecoder().decode(one.json)
            #expect(try back.encode() == bytes, "document \(k): the JSON of one job gives the briefcase back")
            for jobs in [2, 8] {
                let more = try Self.json(bytes, jobs: jobs)
                #expect(more.json == one.json, "document \(k), jobs \(jobs)")
                #expect(more.prepared > 0, "document \(k), jobs \(jobs): elements came encoded")
                #expect(more.rowsWithPrepared == 0, "document \(k), jobs \(jobs): heads only")
            }
        }
    }
}
