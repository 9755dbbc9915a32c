import Foundation
import Testing
import BriefcaseKit
import BriefcaseSQLite
import BriefcaseTestSupport

/// `SQLiteSink(path:)` makes its database new, through a temporary file next to the path: a
/// database of the user's is never written into nor emptied (Spec/robustness.md §6.1).
@Suite(.enabled(if: SQLiteTesting.sqlite3Present, "sqlite3 is not installed (apt-get install sqlite3)"))
struct SQLiteSinkReplacementTests {
    static let orders = SamplePaths.fixtures.appendingPathComponent("orders.bin2").path

    @Test func aDatabaseOfTheUsersIsNeitherWrittenIntoNorEmptied() throws {
        let dir = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("mine.sqlite").path
        try SQLiteTesting.sqlite3(db, "CREATE TABLE mine (x); INSERT INTO mine VALUES (42)")
        let before = FileManager.default.contents(atPath: db)
        let refused = try #require(throws: BriefcaseError.self) { try SQLiteTesting.export(Self.orders, as: .bin2, to: db) }
        #expect(refused.kind == .io && refused.file == db && refused.message.hasPrefix("exists, and is not replaced"), "\(refused)")
        var sink = SQLiteSink(path: db)
        sink.abandon()  // (emptied the file before)
        #expect(FileManager.default.contents(atPath: db) == before)
        #expect(try SQLiteTesting.sqlite3(db, "SELECT name FROM sqlite_master") == "mine\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["mine.sqlite"])
        // Asked to replace, the database is the briefcase's.
        let elements = try BriefcaseElements.open(Self.orders, as: .bin2)
        var replacing = SQLiteSink(path: db, replacing: true)
        _ = try elements.read(into: &replacing, encoding: nil, skipDamaged: false)
        #expect(try SQLiteTesting.sqlite3(db, "SELECT count(*) FROM sqlite_master WHERE name = 'mine'") == "0\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["mine.sqlite"])
    }

    /// Written in a temporary file next to the path: nothing is at the path until the end, what
    /// appears there meanwhile is kept, and `abandon` removes the temporary file.
    @Test func theDatabaseAppearsOnlyWhenCompleteAndNeverOverWhatAppeared() throws {
        let dir = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("new.sqlite").path
        let head = BriefcaseHead(container: .bin2, codePage: .utf8)
        var sink = SQLiteSink(path: db)
        try sink.begin(head)
        #expect(!FileManager.default.fileExists(atPath: db))
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(names.count == 1 && names[0].hasPrefix(".new.sqlite.tmp-"), "\(names)")
        sink.abandon()
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)

        var again = SQLiteSink(path: db)
        try again.begin(head)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: db))
        let appeared = try #require(throws: BriefcaseError.self) { try again.finish() }
        #expect(appeared.kind == .io && appeared.file == db && appeared.message.hasPrefix("exists, and is not replaced"), "\(appeared)")
        #expect(FileManager.default.contents(atPath: db) == Data("mine".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["new.sqlite"])
    }
}
