import Foundation
import Testing
import BriefcaseKit
import BriefcaseSQLite
import BriefcaseTestSupport

/// What the tests share: a scratch folder, the library's conversions to and from SQLite, and the
/// sqlite3 shell — SQLite itself, not our wrapper — to look into what was written.
enum SQLiteTesting {
    static func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("briefcase-sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A binary briefcase on disk into a new database at `database`, element by element.
    static func export(_ path: String, as container: ContainerFormat, to database: String) throws {
        let elements = try BriefcaseElements.open(path, as: container)
        var sink = SQLiteSink(path: database)
        _ = try elements.read(into: &sink, encoding: nil, skipDamaged: false)
    }

    /// A model into a new database.
    static func export(_ document: BriefcaseDocument, codePage: CodePage = .utf8, to database: String) throws {
        var sink = SQLiteSink(path: database)
        try document.read(into: &sink, codePage: codePage)
    }

    /// The briefcase a database gives back, and what its edits became.
    static func read(_ database: String) throws -> (BriefcaseDocument, [SQLiteSource.TableEdits]) {
        var collector = BriefcaseCollector()
        let edits = try SQLiteSource(path: database).read(into: &collector)
        return (collector.document!, edits)
    }

    /// Runs SQL with the sqlite3 shell; its standard output (list mode, `|` between columns).
    @discardableResult
    static func sqlite3(_ database: String, _ sql: String, json: Bool = false) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = (json ? ["-json"] : []) + [database, sql]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BriefcaseError(.io, "sqlite3 failed: \(String(decoding: errors, as: UTF8.self))")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The rows sqlite3 -json prints, as objects.
    static func rows(_ database: String, _ sql: String) throws -> [[String: Any]] {
        let text = try sqlite3(database, sql, json: true)
        guard !text.isEmpty else { return [] }
        return try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [[String: Any]]
    }

    static var sqlite3Present: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3") }

    /// The valid fixtures and the real samples present: (path, container).
    static var briefcases: [(String, ContainerFormat)] {
        var list = ExpectedFiles.validFixtures.map { (SamplePaths.fixtures.appendingPathComponent($0).path, ExpectedFiles.container(of: $0)) }
        if SamplePaths.samplesPresent {
            list += SamplePaths.sampleNames.map { (SamplePaths.samples.appendingPathComponent($0).path, ContainerFormat.dabriefcase) }
        }
        return list
    }
}
