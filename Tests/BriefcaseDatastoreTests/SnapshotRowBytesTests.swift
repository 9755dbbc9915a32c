import Foundation
import Testing
import BriefcaseTestSupport
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit
@testable import BriefcaseDatastore

/// A snapshot document's rows read from its bytes (`SnapshotImport.readingRowsFromBytes`) give
/// what the reading of the whole document gives (`init(parsingWhole:)`, the reference), and the
/// bytes of the briefcase the document came from.
struct SnapshotRowBytesTests {
    /// What an import gives, compared as a whole: the briefcase's bytes, its code page, the
    /// warnings — or the error's text.
    enum Outcome: Equatable {
        case read(bytes: [UInt8], codePage: String, restored: Bool, warnings: [String])
        case refused(String)

        init(_ body: () throws(BriefcaseError) -> SnapshotImport) {
            do {
                let imported = try body()
                self = .read(bytes: (try? imported.document.encode()) ?? [], codePage: imported.codePage.name,
                             restored: imported.restored, warnings: imported.warnings)
            } catch {
                self = .refused(error.description)
            }
        }
    }

    /// The rows read from the bytes, or nil when they were not.
    static func fromBytes(_ bytes: [UInt8]) -> Outcome? {
        SnapshotImport.readingRowsFromBytes(bytes).map { imported in Outcome { () throws(BriefcaseError) in imported } }
    }

    static func whole(_ bytes: [UInt8]) -> Outcome { Outcome { () throws(BriefcaseError) in try SnapshotImport(parsingWhole: bytes) } }

    @Test(arguments: validFixtureNames)
    func fixturesAreReadFromTheirBytes(name: String) throws {
        let loaded = try fixture(name)
        let export = try SnapshotExport(loaded.document, codePage: loaded.codePage)
        let fromBytes = Self.fromBytes(export.bytes)
        let fast = try #require(fromBytes, "\(name): the rows were not read from the bytes")
        #expect(fast == .read(bytes: loaded.bytes, codePage: loaded.codePage.name, restored: true, warnings: []))
        #expect(fast == Self.whole(export.bytes))
    }

    @Test(.enabled(if: SamplePaths.samplesPresent, "../shared/briefcase-samples is absent"), arguments: SamplePaths.sampleNames)
    func realSamplesAreReadFromTheirBytes(name: String) throws {
        let bytes = try #require(SamplePaths.sample(name))
        let loaded = try load(bytes, name: name)
        let export = try SnapshotExport(loaded.document, codePage: loaded.codePage)
        let fromBytes = Self.fromBytes(export.bytes)
        let fast = try #require(fromBytes, "\(name): the rows were not read from the bytes")
        #expect(fast == .read(bytes: bytes, codePage: "gbk", restored: true, warnings: []))
    }

    /// Random briefcases (every type and its edge values, record-id and JSON columns): read from
    /// the bytes when they can be, always the briefcase back. Most are read from the bytes: only
    /// a table with a JSON text column is not.
    @Test func randomBriefcasesComeBackFromTheirBytes() throws {
        var fromBytes = 0
        for seed: UInt64 in 0..<60 {
            var random = SplitMix(seed: seed)
            let document = RandomBriefcase.make(&random)
            let codePage = seed % 5 == 4 ? CodePage(name: "gbk")! : .utf8
            let export = try SnapshotExport(document, codePage: codePage)
            guard let fast = Self.fromBytes(export.bytes) else { continue }
            fromBytes += 1
            #expect(fast == .read(bytes: try document.encode(), codePage: codePage.name, restored: true, warnings: []), "seed \(seed)")
        }
        #expect(fromBytes >= 20, "only \(fromBytes) of 60 read from the bytes")
    }

    /// Edits the reader declines, each still read whole to the same briefcase or error.
    @Test func editsTheReaderDeclinesAreReadWhole() throws {
        let loaded = try fixture("orders.bin2")
        let bytes = try SnapshotExport(loaded.document, codePage: loaded.codePage).bytes
        let text = String(decoding: bytes, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let rowLines = lines.indices.filter { lines[$0].hasPrefix("{\"tid\":") }
        try #require(rowLines.count >= 2)
        var swapped = lines
        // Two rows in the other order (the commas stay where they were).
        let (a, b) = (rowLines[0], rowLines[1])
        swapped[a] = String(lines[b].dropLast(lines[b].hasSuffix(",") ? 1 : 0)) + (lines[a].hasSuffix(",") ? "," : "")
        swapped[b] = String(lines[a].dropLast(lines[a].hasSuffix(",") ? 1 : 0)) + (lines[b].hasSuffix(",") ? "," : "")
        let cases: [(String, String)] = [
            ("two rows swapped", swapped.joined(separator: "\n")),
            ("a key with an escape", text.replacingOccurrences(of: "\"rowid\":", with: "\"rowi\\u0064\":")),
            ("keys in another order", text.replacingOccurrences(of: "{\"tid\":\"", with: "{ \"data\":{}, \"tid\":\"")),
            ("a row twice", lines.enumerated().map { $0.offset == a ? $0.element + "\n" + $0.element : $0.element }.joined(separator: "\n")),
        ]
        for (what, edited) in cases {
            let editedBytes = Array(edited.utf8)
            #expect(edited != text, "\(what): the edit did nothing")
            #expect(SnapshotImport.readingRowsFromBytes(editedBytes) == nil, "\(what): read from the bytes")
            #expect(Outcome { () throws(BriefcaseError) in try SnapshotImport(parsing: editedBytes) } == Self.whole(editedBytes), "\(what)")
        }
        // Swapped rows and an escaped key are still the same briefcase; the others are refused.
        for (what, edited) in cases.prefix(2) {
            #expect(Self.whole(Array(edited.utf8)) == .read(bytes: loaded.bytes, codePage: loaded.codePage.name, restored: true, warnings: []), "\(what)")
        }
        for (what, edited) in cases.dropFirst(2) {
            guard case .refused = Self.whole(Array(edited.utf8)) else { Issue.record("\(what): not refused"); continue }
        }
    }

    /// A string with escapes is read by the parser, in place.
    @Test func anEscapedStringIsReadFromTheBytes() throws {
        let loaded = try fixture("orders.bin2")
        let text = String(decoding: try SnapshotExport(loaded.document, codePage: loaded.codePage).bytes, as: UTF8.self)
        let edited = Array(text.replacingOccurrences(of: #""Customer":"Alice""#, with: #""Customer":"\u0041lice""#).utf8)
        #expect(edited != Array(text.utf8))
        let fromBytes = Self.fromBytes(edited)
        let fast = try #require(fromBytes, "not read from the bytes")
        #expect(fast == .read(bytes: loaded.bytes, codePage: loaded.codePage.name, restored: true, warnings: []))
    }

    /// Fields in another order than the columns': the row is made of values first (the reader
    /// rewound to its first field), the same briefcase.
    @Test func fieldsOutOfColumnOrderAreReadFromTheBytes() throws {
        let loaded = try fixture("orders.bin2")
        let text = String(decoding: try SnapshotExport(loaded.document, codePage: loaded.codePage).bytes, as: UTF8.self)
        let edited = Array(text.replacingOccurrences(of: #"{"ID":{"I":"1"},"Customer":"Alice","#,
                                                     with: #"{"Customer":"Alice", "ID":{"I":"1"},"#).utf8)
        #expect(edited != Array(text.utf8))
        let fromBytes = Self.fromBytes(edited)
        let fast = try #require(fromBytes, "not read from the bytes")
        #expect(fast == .read(bytes: loaded.bytes, codePage: loaded.codePage.name, restored: true, warnings: []))
    }

    /// Mutants of documents (bytes damaged, values swapped for others): reading the rows from the
    /// bytes, or declining to, gives exactly what the whole reading gives — never a briefcase it
    /// refuses, never another briefcase or another message.
    @Test(arguments: ["orders.bin2", "all-types.daBriefcase", "nulls.daBriefcase"])
    func mutantsGiveWhatTheWholeReadingGives(name: String) throws {
        let loaded = try fixture(name)
        let bytes = try SnapshotExport(loaded.document, codePage: loaded.codePage).bytes
        var random = SplitMix64(seed: 29)
        var readFromBytes = 0
        for k in 0..<150 {
            let mutant = Mutation.mutant(of: bytes, &random, json: true)
            let whole = Self.whole(mutant)
            if let fast = Self.fromBytes(mutant) {
                readFromBytes += 1
                #expect(fast == whole, "\(name) mutant \(k)")
            }
            #expect(Outcome { () throws(BriefcaseError) in try SnapshotImport(parsing: mutant) } == whole, "\(name) mutant \(k)")
        }
        #expect(readFromBytes > 0, "\(name): no mutant was read from the bytes")
    }
}

/// The export writes rows kept as bytes from their bytes (`StoredRowWriting`) and rows of
/// values through `writeColumn`: the same document either way, whatever the values.
struct StoredRowExportTests {
    @Test(arguments: 0..<40)
    func storedRowsGiveTheDocumentValueRowsGive(seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        let values = RandomBriefcase.make(&random)
        let codePage = seed % 5 == 4 ? CodePage(name: "gbk")! : .utf8
        var warnings: [DecodingWarning] = []
        let stored = try BriefcaseDocument.decode(try values.encode(), as: values.container, warnings: &warnings)
        #expect(stored == values, "seed \(seed): the decoded document differs")
        let fromValues = try SnapshotExport(values, codePage: codePage).bytes
        let fromBytes = try SnapshotExport(stored, codePage: codePage).bytes
        expectSameBytes(fromBytes, fromValues, "seed \(seed)")
    }

    @Test(arguments: validFixtureNames)
    func fixtures(name: String) throws {
        let loaded = try fixture(name)
        var document = loaded.document
        // The same rows as values (not kept as bytes).
        for (position, element) in document.file.stream.elements.enumerated() {
            guard case .table(var table) = element else { continue }
            table.rows = Rows(Array(table.rows))
            document.file.stream.elements[position] = .table(table)
        }
        expectSameBytes(try SnapshotExport(loaded.document, codePage: loaded.codePage).bytes,
                        try SnapshotExport(document, codePage: loaded.codePage).bytes, name)
    }
}
