import Foundation
import Testing
import BriefcaseKit
import BriefcaseSQLite
import BriefcaseTestSupport

/// What the SQLite format writes, as SQLite itself (the sqlite3 shell) reads it back. Expected
/// values are written by hand from the fixtures' models (Sources/FixtureMaker/main.swift) and the
/// rules of Spec/sqlite-mapping.md.
@Suite(.enabled(if: SQLiteTesting.sqlite3Present, "sqlite3 is not installed (apt-get install sqlite3)"))
struct SQLiteExportTests {
    @Test func ordersCurrentRowsKeysAndChanges() throws {
        let dir = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("orders.sqlite").path
        try SQLiteTesting.export(SamplePaths.fixtures.appendingPathComponent("orders.bin2").path, as: .bin2, to: db)

        // Columns: exact names, declared types, the InPrimaryKey field as the primary key.
        #expect(try SQLiteTesting.sqlite3(db, "SELECT name, type, pk FROM pragma_table_info('Orders')")
                == "ID|INTEGER|1\nCustomer|TEXT|0\nAmount|TEXT|0\nShipped|DATETIME|0\n")
        // The current rows: order 2 updated (7 → 8, shipped 45000.25 = 2023-03-15 06:00), order 3
        // deleted, order 4 inserted; Currency as exact text, DateTime as ISO text.
        #expect(try SQLiteTesting.sqlite3(db, "SELECT ID, typeof(ID), Customer, Amount, typeof(Amount), Shipped, typeof(Shipped) FROM Orders ORDER BY ID")
                == "1|integer|Alice|12.5|text|2023-03-15T12:00:00.000|text\n2|integer|Bob|8|text|2023-03-15T06:00:00.000|text\n4|integer|Dora 😀|5|text||null\n")
        // SQLite's date functions read the dates.
        #expect(try SQLiteTesting.sqlite3(db, "SELECT date(Shipped), strftime('%H', Shipped) FROM Orders WHERE ID = 2") == "2023-03-15|06\n")
        // The stored rows the delta updates (order 2) or deletes (order 3), as stored, in a table
        // of their own (rowid: the stored position + 1); order 1, untouched, is only a current row.
        #expect(try SQLiteTesting.sqlite3(db, "SELECT current_table, stored_table, row_ids FROM _briefcase_elements WHERE kind = 'table'")
                == "Orders|_briefcase_stored_1|key\n")
        #expect(try SQLiteTesting.sqlite3(db, "SELECT rowid, ID, Customer, Amount, Shipped FROM _briefcase_stored_1 ORDER BY rowid")
                == "2|2|Bob|7|\n3|3|Carol|100|2023-03-16T00:00:00.000\n")
        // The pending changes, in order, as cat prints rows.
        #expect(try SQLiteTesting.sqlite3(db, "SELECT element, position, type, record_id, status, message, old_values, new_values FROM _briefcase_changes ORDER BY position")
                == """
                0|0|update|1100|pending||{"ID": 2, "Customer": null, "Amount": "7", "Shipped": null}|{"ID": 2, "Customer": null, "Amount": "8", "Shipped": "2023-03-15T06:00:00.000"}
                0|1|delete|1101|pending||{"ID": 3, "Customer": "Carol", "Amount": "100", "Shipped": "2023-03-16T00:00:00.000"}|{"ID": null, "Customer": null, "Amount": null, "Shipped": null}
                0|2|insert|1102|pending||{"ID": null, "Customer": null, "Amount": null, "Shipped": null}|{"ID": 4, "Customer": "Dora 😀", "Amount": "5", "Shipped": null}

                """)
        #expect(try SQLiteTesting.sqlite3(db, "SELECT key, quote(value) FROM _briefcase ORDER BY key")
                == "code_page|'utf-8'\ncontainer|'bin2'\nformat|'briefcase-sqlite 3'\nheader_padding|X''\n")
    }

    @Test func allTypesDeclaredTypesAndValues() throws {
        let dir = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("all.sqlite").path
        try SQLiteTesting.export(SamplePaths.fixtures.appendingPathComponent("all-types.daBriefcase").path, as: .dabriefcase, to: db)
        let types = try SQLiteTesting.sqlite3(db, "SELECT name || ' ' || type FROM pragma_table_info('AllTypes')")
        #expect(types.split(separator: "\n") == [
            "String TEXT", "DateTime DATETIME", "Float REAL", "Currency TEXT", "AutoInc INTEGER", "Integer INTEGER", "LargeInt INTEGER",
            "Boolean BOOLEAN", "Memo TEXT", "Blob BLOB", "WideString TEXT", "WideMemo TEXT", "LargeAutoInc INTEGER", "Byte INTEGER",
            "ShortInt INTEGER", "Word INTEGER", "SmallInt INTEGER", "Cardinal INTEGER", "LargeUInt INTEGER", "Guid TEXT", "Xml TEXT",
            "Decimal TEXT", "SingleFloat REAL", "FixedChar TEXT", "FixedWideChar TEXT", "Cursor BLOB",
        ])
        // Row 0 of the fixture: the maxima (FixtureMaker: allTypes()).
        let row = try SQLiteTesting.sqlite3(db, """
            SELECT String, DateTime, Float, typeof(Float), Currency, AutoInc, LargeInt, Boolean, hex(Blob), WideString, Byte, Word,
                   Cardinal, typeof(LargeUInt), Guid, Decimal, FixedChar, hex(Cursor)
            FROM AllTypes WHERE rowid = 2147483647
            """)
        #expect(row == "Grüße 😀|2015-06-18T08:00:00.000|Inf|real|922337203685477.5807|2147483647|9223372036854775807|1|00017F80FF|Wide 😀 Ω|255|65535|4294967295|real|6F9619FF-8B86-D011-B42D-00C04FC964FF|9999999999999999999999999999|ABC|010203\n")
        #expect(try SQLiteTesting.sqlite3(db, "SELECT count(*) FROM AllTypes") == "5\n")
    }

    /// Every valid fixture and sample: each table with fields has an SQL table, under its own name
    /// or, when an earlier table took it (without ASCII case), `POSITION:NAME`; it has its fields'
    /// names and as many rows as the table has once its delta is replayed (the first table of a
    /// name: the delta of the name is its own; a later one shows its stored rows).
    @Test func everyBriefcaseTableCountsAndColumns() throws {
        let dir = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (index, (path, container)) in SQLiteTesting.briefcases.enumerated() {
            let db = dir.appendingPathComponent("\(index).sqlite").path
            try SQLiteTesting.export(path, as: container, to: db)
            var warnings: [DecodingWarning] = []
            let document = try BriefcaseDocument.decode(FileIO.read(path), as: container, warnings: &warnings)
            let codePage = CodePage.detect(in: document.file).codePage
            let listed = try SQLiteTesting.rows(db, "SELECT position, name, current_table FROM _briefcase_elements ORDER BY position")
            #expect(listed.count == document.file.stream.elements.count, "\(path)")
            var seen: Set<String> = []
            for (position, element) in document.file.stream.elements.enumerated() {
                guard case .table(let table) = element else { continue }
                let own = codePage.decodeForDisplay(table.name)
                let first = seen.insert(own.lowercased()).inserted
                guard let name = listed[position]["current_table"] as? String else {
                    #expect(table.fields.isEmpty, "\(path): \(own) has fields but no SQL table")
                    continue
                }
                #expect(name == (first ? own : "\(position):\(own)"), "\(path)")
                let delta = first ? document.file.stream.delta(named: table.name) : nil
                let expected = delta.map { table.applying($0).rows.count } ?? table.rows.count
                let counted = try SQLiteTesting.sqlite3(db, "SELECT count(*) FROM \"\(name.replacingOccurrences(of: "\"", with: "\"\""))\"")
                #expect(counted == "\(expected)\n", "\(path): \(name)")
                let columns = try SQLiteTesting.rows(db, "SELECT name FROM pragma_table_info('\(name.replacingOccurrences(of: "'", with: "''"))')")
                #expect(columns.map { $0["name"] as? String } == table.fields.map { codePage.decodeForDisplay($0.name) }, "\(path): \(name)")
            }
        }
    }

    /// Names that are SQL are only ever identifiers: quoted, never run.
    @Test func namesThatLookLikeSQLStayNames() throws {
        let dir = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("names.sqlite").path
        let evil = "x\"; DROP TABLE _briefcase; --"
        let table = Table(name: ByteString(utf8: evil), fields: [
            FieldDescriptor(name: ByteString(utf8: "a\"b"), type: .integer),
            FieldDescriptor(name: ByteString(utf8: "c'); DELETE FROM _briefcase_elements; --"), type: .wideString, size: 10),
        ], rows: [[.integer(1), .wide("one")], [nil, .wide("two")]])
        let document = BriefcaseDocument(container: .bin2, file: BriefcaseFile(stream: Bin2Stream(elements: [.table(table)])))
        try SQLiteTesting.export(document, to: db)
        #expect(try SQLiteTesting.sqlite3(db, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE '\\_briefcase%' ESCAPE '\\'") == evil + "\n")
        #expect(try SQLiteTesting.sqlite3(db, "SELECT \"a\"\"b\", \"c'); DELETE FROM _briefcase_elements; --\" FROM \"x\"\"; DROP TABLE _briefcase; --\" ORDER BY rowid")
                == "1|one\n|two\n")
        #expect(try SQLiteTesting.read(db).0 == document)
    }

    /// A key SQLite cannot hold as a primary key (duplicates, NULL, a LargeUInt above 2^63 − 1
    /// in the rowid alias) leaves the table without one; the rows and the file still come back.
    @Test func keysThatCannotBePrimaryKeys() throws {
        let dir = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        func keyed(_ name: String, _ type: DataType, _ keys: [Value?]) -> Element {
            let schema = Schema(fields: [[SchemaProperty("Name", "ID"), SchemaProperty("InPrimaryKey", "True")],
                                         [SchemaProperty("Name", "Note"), SchemaProperty("InPrimaryKey", "False")]])
            return .table(Table(name: ByteString(utf8: name), schema: schema,
                                fields: [FieldDescriptor(name: "ID", type: type), FieldDescriptor(name: "Note", type: .wideString, size: 10)],
                                rows: keys.map { [$0, .wide("n")] }))
        }
        let elements = [
            keyed("Unique", .largeUInt, [.largeUInt(1), .largeUInt(2)]),
            keyed("Huge", .largeUInt, [.largeUInt(.max), .largeUInt(5)]),
            keyed("Twice", .integer, [.integer(1), .integer(1)]),
            keyed("Missing", .wideString, [.wide("a"), nil]),
        ]
        let document = BriefcaseDocument(container: .bin2, file: BriefcaseFile(stream: Bin2Stream(elements: elements)))
        let db = dir.appendingPathComponent("keys.sqlite").path
        try SQLiteTesting.export(document, to: db)
        #expect(try SQLiteTesting.sqlite3(db, "SELECT name, pk FROM pragma_table_info('Unique') UNION ALL SELECT name, pk FROM pragma_table_info('Huge') UNION ALL SELECT name, pk FROM pragma_table_info('Twice') UNION ALL SELECT name, pk FROM pragma_table_info('Missing')")
                == "ID|1\nNote|0\nID|0\nNote|0\nID|0\nNote|0\nID|0\nNote|0\n")
        #expect(try SQLiteTesting.sqlite3(db, "SELECT typeof(ID), ID FROM Huge ORDER BY rowid") == "real|1.84467440737096e+19\ninteger|5\n")
        #expect(try SQLiteTesting.sqlite3(db, "SELECT current_table, row_ids FROM _briefcase_elements ORDER BY position")
                == "Unique|key\nHuge|position\nTwice|position\nMissing|position\n")
        let (back, edits) = try SQLiteTesting.read(db)
        #expect(edits.isEmpty)
        #expect(back == document)
        // An edit beside the approximate REAL keeps the exact LargeUInt: a new full delta before the table.
        try SQLiteTesting.sqlite3(db, "UPDATE Huge SET Note = 'x' WHERE rowid = 1")
        let (edited, _) = try SQLiteTesting.read(db)
        let delta = Delta(name: "Huge", loggedFields: [LoggedField(name: "ID", type: .largeUInt), LoggedField(name: "Note", type: .wideString)],
                          keyFields: ["ID"], reducedDeltaFlag: 0, changes: [
                              DeltaChange(type: .update, recordID: 1100, oldValues: [.largeUInt(.max), .wide("n")], newValues: [.largeUInt(.max), .wide("x")]),
                          ])
        #expect(edited.file.stream.elements == [elements[0], .delta(delta)] + elements[1...])
    }

    /// Rows go 64 to an INSERT statement, the rest one at a time, and fewer to a statement when
    /// 64 rows would pass SQLite's limit of parameters: 130 rows of 600 fields (54 rows to a
    /// statement under SQLite's default limit of 32766 parameters, one under the 999 of SQLite
    /// before 3.32) all arrive, in order, as SQLite's own count and sums say.
    @Test func manyRowsOfAWideTable() throws {
        let dir = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fields = (0..<600).map { FieldDescriptor(name: ByteString(utf8: "F\($0)"), type: .integer) }
        let rows: [Row] = (0..<130).map { row in (0..<600).map { .integer(Int64(row * 1000 + $0)) } }
        let document = BriefcaseDocument(container: .bin2, file: BriefcaseFile(stream: Bin2Stream(elements: [.table(Table(name: "Wide", fields: fields, rows: rows))])))
        let db = dir.appendingPathComponent("wide.sqlite").path
        try SQLiteTesting.export(document, to: db)
        // Row r holds r * 1000 + column: F0 sums to 1000 × (0 + … + 129), F599 to that + 130 × 599.
        #expect(try SQLiteTesting.sqlite3(db, "SELECT count(*), sum(F0), sum(F599), min(rowid), max(rowid) FROM Wide")
                == "130|8385000|8462870|1|130\n")
        #expect(try SQLiteTesting.sqlite3(db, "SELECT count(*) FROM Wide WHERE F0 != (rowid - 1) * 1000 OR F599 != (rowid - 1) * 1000 + 599") == "0\n")
        #expect(try SQLiteTesting.read(db).0 == document)
    }

    /// A keyless table with pending changes: the current rows get rowids 1, 2, … in order (a
    /// deleted row's place closed up, the inserted row last), an edit found by that rowid.
    @Test func keylessCurrentRowsAfterTheDelta() throws {
        let dir = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fields = [FieldDescriptor(name: "N", type: .integer), FieldDescriptor(name: "S", type: .wideString, size: 5)]
        let table = Table(name: "T", fields: fields, rows: [[.integer(1), .wide("a")], [.integer(2), .wide("b")], [.integer(3), .wide("c")], [.integer(4), .wide("d")]])
        let logged = fields.map { LoggedField(name: $0.name, type: $0.type) }
        let delta = Delta(name: "T", loggedFields: logged, reducedDeltaFlag: 0, changes: [
            DeltaChange(type: .delete, recordID: 1100, oldValues: [.integer(2), .wide("b")], newValues: [nil, nil]),
            DeltaChange(type: .update, recordID: 1101, oldValues: [.integer(3), .wide("c")], newValues: [.integer(3), .wide("C")]),
            DeltaChange(type: .insert, recordID: 1102, oldValues: [nil, nil], newValues: [.integer(5), .wide("e")]),
        ])
        let document = BriefcaseDocument(container: .bin2, file: BriefcaseFile(stream: Bin2Stream(elements: [.table(table), .delta(delta)])))
        let db = dir.appendingPathComponent("keyless.sqlite").path
        try SQLiteTesting.export(document, to: db)
        #expect(try SQLiteTesting.sqlite3(db, "SELECT rowid, N, S FROM T ORDER BY rowid") == "1|1|a\n2|3|C\n3|4|d\n4|5|e\n")
        // Stored rows 2 (deleted) and 3 (updated): the rows the changes touch, as stored.
        #expect(try SQLiteTesting.sqlite3(db, "SELECT rowid, N, S FROM _briefcase_stored_0 ORDER BY rowid") == "2|2|b\n3|3|c\n")
        #expect(try SQLiteTesting.read(db).0 == document)
        try SQLiteTesting.sqlite3(db, "UPDATE T SET S = 'D' WHERE rowid = 3")
        let (edited, edits) = try SQLiteTesting.read(db)
        #expect(edits == [SQLiteSource.TableEdits(table: "T", updates: 1)])
        let after = try #require(edited.file.stream.elements[1].asDelta)
        #expect(after.changes.count == 4)
        #expect(after.changes.last == DeltaChange(type: .update, recordID: 1103, oldValues: [.integer(4), .wide("d")], newValues: [.integer(4), .wide("D")]))
    }

    /// A pending insert that repeats a key: SQLite refuses the primary key, the table is made
    /// again without one (rowids by position), and everything still comes back.
    @Test func pendingChangesThatBreakTheKey() throws {
        let dir = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let schema = Schema(fields: [[SchemaProperty("Name", "ID"), SchemaProperty("InPrimaryKey", "True")],
                                     [SchemaProperty("Name", "S"), SchemaProperty("InPrimaryKey", "False")]])
        let fields = [FieldDescriptor(name: "ID", type: .integer), FieldDescriptor(name: "S", type: .wideString, size: 5)]
        let table = Table(name: "K", schema: schema, fields: fields, rows: [[.integer(1), .wide("a")], [.integer(2), .wide("b")]])
        let delta = Delta(name: "K", loggedFields: fields.map { LoggedField(name: $0.name, type: $0.type) }, keyFields: ["ID"],
                          reducedDeltaFlag: 0, changes: [
                              DeltaChange(type: .insert, recordID: 1100, oldValues: [nil, nil], newValues: [.integer(2), .wide("c")]),
                          ])
        let document = BriefcaseDocument(container: .bin2, file: BriefcaseFile(stream: Bin2Stream(elements: [.delta(delta), .table(table)])))
        let db = dir.appendingPathComponent("dup.sqlite").path
        try SQLiteTesting.export(document, to: db)
        #expect(try SQLiteTesting.sqlite3(db, "SELECT name, pk FROM pragma_table_info('K')") == "ID|0\nS|0\n")
        #expect(try SQLiteTesting.sqlite3(db, "SELECT rowid, ID, S FROM K ORDER BY rowid") == "1|1|a\n2|2|b\n3|2|c\n")
        #expect(try SQLiteTesting.sqlite3(db, "SELECT row_ids FROM _briefcase_elements WHERE kind = 'table'") == "position\n")
        let (back, edits) = try SQLiteTesting.read(db)
        #expect(edits.isEmpty)
        #expect(back == document)
    }

    /// Many deletions in a large keyless table: every current row keeps its place (rowid = its
    /// position), in time linear in the rows (one copy per range between deleted rows).
    @Test func manyDeletionsInAKeylessTable() throws {
        let dir = try SQLiteTesting.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fields = [FieldDescriptor(name: "N", type: .integer)]
        let table = Table(name: "Big", fields: fields, rows: (0..<20_000).map { [.integer(Int64($0))] })
        let deletes = stride(from: 0, to: 20_000, by: 10).enumerated().map { index, n in
            DeltaChange(type: .delete, recordID: Int32(1100 + index), oldValues: [.integer(Int64(n))], newValues: [nil])
        }
        let delta = Delta(name: "Big", loggedFields: [LoggedField(name: "N", type: .integer)], reducedDeltaFlag: 0, changes: deletes)
        let document = BriefcaseDocument(container: .bin2, file: BriefcaseFile(stream: Bin2Stream(elements: [.delta(delta), .table(table)])))
        let db = dir.appendingPathComponent("big.sqlite").path
        try SQLiteTesting.export(document, to: db)
        // Rows 1…9 first (0 deleted), then 11…19, …: position p holds n = p + p / 9 + 1.
        #expect(try SQLiteTesting.sqlite3(db, "SELECT count(*), sum(rowid = (N - N / 10)) FROM Big") == "18000|18000\n")
        #expect(try SQLiteTesting.read(db).0 == document)
    }
}
