import BriefcaseKit
import BriefcaseSQLite

/// The SQLite conversions the bench measures, as `briefcase convert` does them.
enum SQLiteBench {
    /// dabriefcase → sqlite: the element reader into `SQLiteSink`, one table at a time.
    static func toSQLite(_ input: String, _ path: String, jobs: Int) throws {
        BriefcaseElements.keepFreedMemoryForReuse()
        let elements = try BriefcaseElements.open(input, as: .dabriefcase)
        var sink = SQLiteSink(path: path, replacing: true)  // (what an interrupted run left is replaced)
        _ = try elements.read(into: &sink, encoding: nil, skipDamaged: false, jobs: jobs)
    }

    /// sqlite → dabriefcase: `SQLiteSource` (edits looked for in every table) into the stream writer.
    static func fromSQLite(_ database: String, _ path: String) throws {
        var sink = BinarySink(output: FileSink(path: path), container: .dabriefcase)
        try SQLiteSource(path: database).read(into: &sink)
        sink.output.close()
    }
}
