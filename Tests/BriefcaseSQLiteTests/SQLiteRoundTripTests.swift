import Foundation
import Testing
import BriefcaseKit
import BriefcaseSQLite
import BriefcaseTestSupport

/// A briefcase → SQLite → briefcase gives back the file byte for byte when nothing was edited.
@Suite struct SQLiteRoundTripTests {
    @Test func everyFixtureAndSampleByteForByte() throws {
        let dir = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (index, (path, container)) in SQLiteTesting.briefcases.enumerated() {
            let db = dir.appendingPathComponent("\(index).sqlite").path
            try SQLiteTesting.export(path, as: container, to: db)
            let (document, edits) = try SQLiteTesting.read(db)
            #expect(edits.isEmpty, "\(path)")
            #expect(document.container == container)
            let back = try document.encode()
            #expect(ExpectedFiles.difference(back, try FileIO.read(path)) == nil, "\(path)")
        }
    }

    /// Random briefcases of every data type (NaN, -0.0, odd Boolean bytes, invalid text…):
    /// the model comes back equal.
    @Test func randomBriefcases() throws {
        let dir = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        var random = SplitMix(seed: 15)
        for round in 0..<25 {
            let document = RandomBriefcase.make(&random)
            let db = dir.appendingPathComponent("\(round).sqlite").path
            try SQLiteTesting.export(document, to: db)
            let (back, edits) = try SQLiteTesting.read(db)
            #expect(edits.isEmpty, "round \(round)")
            #expect(back == document, "round \(round)")
        }
    }

    /// A database of mapping version 1 (every stored row of a table with pending changes in
    /// `_briefcase_stored_N`, version 2 keeps only those the changes touch) still reads: the fuzz
    /// corpus's orders.sqlite, written from Fixtures/orders.bin2 by version 1, gives it back byte
    /// for byte. Another version is refused.
    @Test func versionOneReadsOtherVersionsRefused() throws {
        let v1 = SamplePaths.repository.appendingPathComponent("Fuzz/corpus/sqlite/orders.sqlite").path
        let (document, edits) = try SQLiteTesting.read(v1)
        #expect(edits.isEmpty)
        #expect(ExpectedFiles.difference(try document.encode(), try FileIO.read(SamplePaths.fixtures.appendingPathComponent("orders.bin2").path)) == nil)
        guard SQLiteTesting.sqlite3Present else { return }
        let dir = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let v9 = dir.appendingPathComponent("v9.sqlite").path
        try FileManager.default.copyItem(atPath: v1, toPath: v9)
        try SQLiteTesting.sqlite3(v9, "UPDATE _briefcase SET value = 'briefcase-sqlite 9' WHERE key = 'format'")
        #expect { try SQLiteSource(path: v9) } throws: { ($0 as? BriefcaseError)?.message.contains("'briefcase-sqlite 9'") == true }
    }

    @Test func notOursRefused() throws {
        let dir = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = dir.appendingPathComponent("text.sqlite").path
        try Array("hello".utf8).withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: text)) }
        #expect { try SQLiteSource(path: text) } throws: { ($0 as? BriefcaseError)?.message.contains("not an SQLite 3 database") == true }
        guard SQLiteTesting.sqlite3Present else { return }
        let foreign = dir.appendingPathComponent("foreign.db").path
        try SQLiteTesting.sqlite3(foreign, "CREATE TABLE t (a)")
        #expect { try SQLiteSource(path: foreign) } throws: { ($0 as? BriefcaseError)?.message.contains("no table _briefcase") == true }
    }
}
