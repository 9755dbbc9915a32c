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
    /// for byte.
    @Test func versionOneReads() throws {
        let (document, edits) = try SQLiteTesting.read(Self.versionOne)
        #expect(edits.isEmpty)
        #expect(ExpectedFiles.difference(try document.encode(), try FileIO.read(SamplePaths.fixtures.appendingPathComponent("orders.bin2").path)) == nil)
    }

    static let versionOne = SamplePaths.repository.appendingPathComponent("Fuzz/corpus/sqlite/orders.sqlite").path

    /// Another version is refused as unsupported, naming the format it found and the file.
    @Test(.enabled(if: SQLiteTesting.sqlite3Present, "sqlite3 is not installed (apt-get install sqlite3)"))
    func otherVersionsRefused() throws {
        let dir = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let v9 = dir.appendingPathComponent("v9.sqlite").path
        try FileManager.default.copyItem(atPath: Self.versionOne, toPath: v9)
        try SQLiteTesting.sqlite3(v9, "UPDATE _briefcase SET value = 'briefcase-sqlite 9' WHERE key = 'format'")
        let error = try #require(throws: BriefcaseError.self) { try SQLiteSource(path: v9) }
        #expect(error.kind == .unsupported && error.file == v9 && error.message.contains("'briefcase-sqlite 9'"), "\(error)")
    }

    /// A file that does not start as SQLite 3 does is not data of ours: refused at offset 0.
    @Test func notSQLiteRefused() throws {
        let dir = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = dir.appendingPathComponent("text.sqlite").path
        try Array("hello".utf8).withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: text)) }
        let error = try #require(throws: BriefcaseError.self) { try SQLiteSource(path: text) }
        #expect(error.kind == .invalidData && error.file == text && error.offset == 0 && error.message.contains("not an SQLite 3 database"), "\(error)")
    }

    /// An SQLite database without the mapping's tables is refused, naming the table it lacks.
    @Test(.enabled(if: SQLiteTesting.sqlite3Present, "sqlite3 is not installed (apt-get install sqlite3)"))
    func notOursRefused() throws {
        let dir = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let foreign = dir.appendingPathComponent("foreign.db").path
        try SQLiteTesting.sqlite3(foreign, "CREATE TABLE t (a)")
        let error = try #require(throws: BriefcaseError.self) { try SQLiteSource(path: foreign) }
        #expect(error.kind == .invalidData && error.file == foreign && error.message.contains("no table _briefcase"), "\(error)")
    }
}
