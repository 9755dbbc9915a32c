// libFuzzer target `sqliteedit`: random SQL edits — DML and DDL, of the current-rows tables and of
// the mapping's own — made on a database `convert` exported, then read back as `convert x.sqlite`
// reads it (BriefcaseSQLite's SQLiteSource; Spec/sqlite-mapping.md §5, Spec/robustness.md §10).
//
// The input is a program: its first byte picks a fixture exported to SQLite (Fixtures/, each one
// `validate` finds valid), then each following group of bytes one edit from a menu (the byte the
// edit, the next ones a table, a column, a value, a row). The edits run with SQLite itself (an
// edit SQLite refuses is skipped). Whatever they did, the reader either refuses the database with
// a BriefcaseError of one line, or gives a briefcase that encodes, that `validate` finds without
// error, and that goes through the round trips of FuzzSupport.swift. Never a trap, hang or
// blow-up, never a guess.
//
// Scripts/fuzz.sh sqliteedit SECONDS

import Foundation
import BriefcaseKit
import BriefcaseSQLite

/// A fixture exported to SQLite: its bytes, and its current-rows tables with their columns and types.
private struct Template {
    var bytes: [UInt8]
    var tables: [(name: String, columns: [(name: String, type: String)])]
}

private let templates: [Template] = {
    var made: [Template] = []
    let fixtures = ["orders.bin2", "all-types.daBriefcase", "nulls.daBriefcase", "empty-delta.daBriefcase", "gbk.daBriefcase", "empty-table.daBriefcase"]
    for (index, name) in fixtures.enumerated() {
        let container: ContainerFormat = name.hasSuffix(".bin2") ? .bin2 : .dabriefcase
        guard let bytes = try? FileIO.read("Fixtures/" + name) else { fuzzFailure("run from the repository's root: no Fixtures/\(name)") }
        guard Validator.validate(bytes: bytes, container: container, path: name).errors.isEmpty else { continue }
        let path = FuzzTemporaryFile.directory + "/template-\(index).sqlite"
        unlink(path)
        do {
            let elements = try BriefcaseElements(bytes: bytes, as: container)
            var sink = SQLiteSink(path: path)
            _ = try elements.read(into: &sink, encoding: nil, skipDamaged: false)
            let database = try SQLiteDatabase(path: path, mode: .readOnly)
            var template = Template(bytes: try FileIO.read(path), tables: [])
            let names = try database.prepare("SELECT current_table FROM _briefcase_elements WHERE current_table IS NOT NULL ORDER BY position")
            while try names.step() {
                guard let table = names.value(at: 0).text else { continue }
                let info = try database.prepare("SELECT name, type FROM pragma_table_info(?1)")
                try info.bind(.text(table), at: 1)
                var columns: [(String, String)] = []
                while try info.step() { columns.append((info.value(at: 0).text ?? "", info.value(at: 1).text ?? "")) }
                template.tables.append((table, columns))
            }
            made.append(template)
        } catch {
            fuzzFailure("cannot export \(name) to SQLite: \(error)")
        }
        unlink(path)
    }
    guard !made.isEmpty else { fuzzFailure("no fixture to edit") }
    return made
}()

/// Literal values an edit writes: each kind of SQLite value, edges of the briefcase's types.
private let values = ["NULL", "0", "1", "-1", "2", "40000", "9223372036854775807", "-9223372036854775808", "1.5", "-0.0", "1e300",
                      "'NaN'", "'Infinity'", "''", "'x'", "'2024-01-02 03:04:05'", "'0000-01-01'", "'12.3456'", "'1.23456'",
                      "x'00ff'", "'😀'", "zeroblob(3)", "'6F9619FF-8B86-D011-B42D-00C04FC964FF'", "45000.5", "'abc\"def'"]
private let elementColumns = ["position", "kind", "name", "current_table", "row_ids", "rows", "changes", "bin2", "note", "stored_table"]
private let propertyColumns = ["name", "value", "name_bytes", "value_bytes", "position"]
private let settings = ["format", "container", "code_page", "header_padding"]

/// The input's bytes, read one at a time (zero past the end).
private struct Program {
    let bytes: [UInt8]
    var next = 1
    var atEnd: Bool { next >= bytes.count }
    mutating func byte() -> Int {
        defer { next += 1 }
        return next < bytes.count ? Int(bytes[next]) : 0
    }
    mutating func pick<T>(_ list: [T]) -> T { list[byte() % list.count] }
}

private func q(_ name: String) -> String { SQLiteDatabase.quote(name) }

/// The next edit of the program, as SQL.
private func edit(_ program: inout Program, _ template: Template) -> String {
    let op = program.byte() % 20
    guard let table = template.tables.isEmpty ? nil : program.pick(template.tables) else { return "VACUUM" }
    let t = q(table.name)
    let column = table.columns.isEmpty ? "x" : program.pick(table.columns).name
    let c = q(column)
    let value = program.pick(values)
    let row = program.byte() % 9 + 1
    switch op {
    case 0: return "UPDATE \(t) SET \(c) = \(value) WHERE _rowid_ = \(row)"
    case 1: return "UPDATE \(t) SET \(c) = \(value)"
    case 2: return "DELETE FROM \(t) WHERE _rowid_ % \(row + 1) = \(program.byte() % 3)"
    case 3: return "INSERT INTO \(t) (\(c)) VALUES (\(value))"
    case 4: return "INSERT INTO \(t) SELECT * FROM \(t) WHERE _rowid_ = \(row)"
    case 5: return "ALTER TABLE \(t) DROP COLUMN \(c)"
    case 6: return "ALTER TABLE \(t) RENAME COLUMN \(c) TO \(q(column + "2"))"
    case 7: return "ALTER TABLE \(t) ADD COLUMN extra TEXT DEFAULT \(value == "NULL" ? "'d'" : value)"
    case 8: return "ALTER TABLE \(t) RENAME TO \(q(table.name + "2"))"
    case 9: return "CREATE TABLE tmp AS SELECT * FROM \(t); DROP TABLE \(t); ALTER TABLE tmp RENAME TO \(t)"
    case 10: return "DROP TABLE \(t); CREATE VIEW \(t) AS SELECT 1 AS \(c)"
    case 11: return "VACUUM"
    case 12: return "UPDATE _briefcase_elements SET \(program.pick(elementColumns)) = \(value) WHERE position = \(program.byte() % 4)"
    case 13: return "UPDATE _briefcase_properties SET \(program.pick(propertyColumns)) = \(value) WHERE position = \(program.byte() % 3)"
    case 14: return "DELETE FROM _briefcase_elements WHERE position = \(program.byte() % 4)"
    case 15: return "UPDATE _briefcase SET value = \(value) WHERE key = '\(program.pick(settings))'"
    case 16:
        let at = program.byte() * 7 + 1
        return "UPDATE _briefcase_elements SET bin2 = substr(bin2, 1, \(at - 1)) || x'\(String(format: "%02x", program.byte()))' || substr(bin2, \(at + 1)) WHERE position = \(program.byte() % 4)"
    case 17: return "PRAGMA journal_mode = WAL"
    case 18:
        // Rebuilt WITHOUT ROWID on its first column, its columns' types kept (or one changed).
        let changed = program.byte() % 3 == 0
        let columns = table.columns.enumerated().map { index, column in
            q(column.name) + " " + (changed && index == table.columns.count - 1 ? "REAL" : column.type)
        }
        guard let first = table.columns.first else { return "VACUUM" }
        let names = table.columns.map { q($0.name) }.joined(separator: ", ")
        return "CREATE TABLE tmp (\(columns.joined(separator: ", ")), PRIMARY KEY (\(q(first.name)))) WITHOUT ROWID; INSERT OR IGNORE INTO tmp SELECT \(names) FROM \(t); DROP TABLE \(t); ALTER TABLE tmp RENAME TO \(t)"
    default: return "UPDATE \(t) SET \(c) = \(c) || \(value) WHERE _rowid_ = \(row)"
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    var program = Program(bytes: fuzzBytes(data, size))
    let template = templates[Int(program.bytes[0]) % templates.count]
    let path = FuzzTemporaryFile.store(template.bytes, name: "edited.sqlite")
    defer { for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) } }
    do {
        let database = try SQLiteDatabase(path: path, mode: .create)
        for _ in 0..<8 where !program.atEnd {
            try? database.execute(edit(&program, template))
        }
    } catch {
        fuzzFailure("cannot open the exported database: \(error)")
    }
    var collector = BriefcaseCollector()
    do throws(BriefcaseError) {
        let source = try SQLiteSource(path: path)
        _ = try source.read(into: &collector)
    } catch {
        guard !error.description.contains("\n") else { fuzzFailure("a refusal of more than one line: \(error)") }
        return 0
    }
    guard let document = collector.document else { fuzzFailure("a read that returned left no document") }
    let bytes: [UInt8]
    do {
        bytes = try document.encode()
    } catch {
        fuzzFailure("the briefcase read back does not encode: \(error)")
    }
    let report = Validator.validate(bytes: bytes, container: document.container, path: "edited")
    if let first = report.errors.first { fuzzFailure("the briefcase read back is not valid: \(first.message)") }
    FuzzChecks.roundTrip(document, original: nil, canonicalInput: false)
    return 0
}
