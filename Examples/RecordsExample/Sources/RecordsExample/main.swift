// Reads a table of a briefcase into a Codable struct, edits two records and saves the briefcase
// with the edits as Data Abstract pending changes, printing what it did.
//
//     swift run RecordsExample [path/to/copy.daBriefcase]
//
// Without an argument it works on a copy of ../../Fixtures/nulls.daBriefcase in a temporary
// folder (the fixture is never changed).
import BriefcaseRecords
import Foundation

struct Entry: Codable {
    var ID: Int64?          // Optional: the field may be NULL
    var Name: String?
    var Score: Double?
}

func run(_ path: String) throws {
    let briefcase = try RecordBriefcase(path: path)        // or RecordBriefcase(url: url)
    print("tables:", briefcase.tableNames.joined(separator: ", "))
    var table = try briefcase.table("Mixed")
    for field in table.fields { print("  \(field.name): \(field.typeName)") }
    let entries = try table.rows(as: Entry.self)           // the pending changes applied
    print("read \(entries.count) rows of \(table.name), key \(table.keyFields):")
    for entry in entries { print("  ", entry) }

    try table.update(key: ["ID": 1], setting: ["Name": "renamed"])
    var third = entries[2]
    third.Score = 9.5
    try table.update(key: ["ID": 3], to: third)
    try briefcase.setTable(table)                           // check the delta, hand the table back
    try briefcase.save()                                    // only this table is written anew

    print("edited two records; pending changes now:")
    let saved = try RecordBriefcase(path: path).table("Mixed")
    for change in saved.changes {
        print("   \(change.type) #\(change.recordID) \(change.status): old [\(change.old?.description ?? "")] new [\(change.new?.description ?? "")]")
    }
    print("current rows:")
    for entry in try saved.rows(as: Entry.self) { print("  ", entry) }
    print("stored rows (unchanged):")
    for entry in try saved.rows(as: Entry.self, .stored) { print("  ", entry) }
}

let arguments = CommandLine.arguments.dropFirst()
do {
    if let path = arguments.first {
        try run(path)
    } else {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../../Fixtures/nulls.daBriefcase").standardizedFileURL
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("records-example-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("nulls.daBriefcase")
        try FileManager.default.copyItem(at: fixture, to: copy)
        print("working on a copy of \(fixture.path)")
        try run(copy.path)
    }
} catch {
    FileHandle.standardError.write(Data("records-example: \(error)\n".utf8))
    exit(1)
}
