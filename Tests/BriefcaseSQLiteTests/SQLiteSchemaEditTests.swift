import Foundation
import Testing
import BriefcaseKit
import BriefcaseSQLite
import BriefcaseTestSupport

/// Edits of a database's schema made with SQL, as GUI editors and scripts make them
/// (Spec/sqlite-mapping.md §5): each is carried as the pending change it is, or refused naming
/// the table and the column — never guessed. orders.bin2 (Sources/FixtureMaker/main.swift): table
/// Orders (ID key, Customer, Amount Currency, Shipped DateTime); current rows Alice (1, 12.5),
/// Bob (2, 8) and Dora (4, 5) after its delta of 3 changes.
@Suite(.enabled(if: SQLiteTesting.sqlite3Present, "sqlite3 is not installed (apt-get install sqlite3)"))
struct SQLiteSchemaEditTests {
    /// orders.bin2 exported, `sql` run on it with sqlite3; the error reading it back: the
    /// database's data is not what the mapping allows (`invalidData`).
    static func refusal(_ sql: String, fixture: String = "orders.bin2", sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let error = try #require(throws: BriefcaseError.self, "\(sql)", sourceLocation: sourceLocation) { _ = try SQLiteEditTests.edited(fixture, sql) }
        #expect(error.kind == .invalidData, "\(sql): \(error)", sourceLocation: sourceLocation)
        return error.description
    }

    @Test(arguments: [
        // A column dropped or renamed: never its name as a value (SQLite's double-quoted string fallback).
        ("ALTER TABLE Orders DROP COLUMN Customer", "table 'Orders' has no column 'Customer'"),
        ("ALTER TABLE Orders RENAME COLUMN Amount TO Total", "table 'Orders' has no column 'Amount'"),
        // A column added, filled or not.
        ("ALTER TABLE Orders ADD COLUMN Note TEXT; UPDATE Orders SET Note = 'x'", "table 'Orders' has a column 'Note' that is not one of the table's fields"),
        ("ALTER TABLE Orders ADD COLUMN Twice INTEGER AS (ID * 2)", "table 'Orders' has a column 'Twice' that is not one of the table's fields"),
        // A declared type changed (as DB Browser does it: a new table, the rows copied, renamed).
        ("""
         CREATE TABLE t (ID INTEGER NOT NULL, Customer TEXT, Amount REAL, Shipped DATETIME, PRIMARY KEY (ID));
         INSERT INTO t SELECT * FROM Orders; DROP TABLE Orders; ALTER TABLE t RENAME TO Orders
         """, "table 'Orders' column 'Amount' is declared REAL, not TEXT"),
        // The table renamed, dropped, replaced by a view or a virtual table.
        ("ALTER TABLE Orders RENAME TO Orders2", "table 'Orders' is not in the database"),
        ("DROP TABLE Orders", "table 'Orders' is not in the database"),
        ("ALTER TABLE Orders RENAME TO o; CREATE VIEW Orders AS SELECT * FROM o", "table 'Orders' is a view now"),
        ("DROP TABLE Orders; CREATE VIRTUAL TABLE Orders USING fts5(ID, Customer, Amount, Shipped)", "table 'Orders' is a virtual table now"),
        // A column computed by an expression in the field's place.
        ("""
         CREATE TABLE t (ID INTEGER NOT NULL, Customer TEXT, Amount TEXT AS ('1'), Shipped DATETIME, PRIMARY KEY (ID));
         INSERT INTO t (ID, Customer, Shipped) SELECT ID, Customer, Shipped FROM Orders; DROP TABLE Orders; ALTER TABLE t RENAME TO Orders
         """, "column 'Amount' is generated"),
        // The mapping's own tables: names, kinds, positions, bytes.
        ("UPDATE _briefcase_elements SET name = 'Invoices' WHERE position = 1", "_briefcase_elements.current_table at position 1 is 'Orders'; the mapping names the table 'Invoices'"),
        ("UPDATE _briefcase_elements SET name = 'Invoices', current_table = 'Invoices' WHERE position = 1", "_briefcase_elements.name at position 1 is 'Invoices'; the element's bytes name it 'Orders'"),
        ("UPDATE _briefcase_elements SET kind = 'delta', current_table = NULL, row_ids = NULL WHERE position = 1", "does not hold one delta"),
        ("UPDATE _briefcase_elements SET position = 7 WHERE position = 1", "_briefcase_elements.position: expected 1"),
        ("UPDATE _briefcase_elements SET current_table = '_briefcase_fields' WHERE position = 1", "the mapping names the table 'Orders'"),
        ("UPDATE _briefcase_elements SET row_ids = 'position' WHERE position = 1; UPDATE Orders SET Customer = 'Al' WHERE ID = 1",
         "column 'ID' is its INTEGER PRIMARY KEY now"),
        // The bytes are not for editing: their checksum tells.
        ("UPDATE _briefcase_elements SET bin2 = substr(bin2, 1, 20) WHERE position = 1", "_briefcase_elements.bin2 at position 1 is not the element's bytes as written"),
        ("UPDATE _briefcase_elements SET bin2 = (SELECT bin2 FROM _briefcase_elements WHERE position = 0) WHERE position = 1", "_briefcase_elements.bin2 at position 1 is not the element's bytes as written"),
        ("UPDATE _briefcase_elements SET checksum = 'x' WHERE position = 0", "_briefcase_elements.checksum at position 0: expected an integer"),
        // Both bytes and checksum moved: the bytes are a delta's, not the table's.
        ("UPDATE _briefcase_elements SET (bin2, checksum) = (SELECT bin2, checksum FROM _briefcase_elements WHERE position = 0) WHERE position = 1", "does not hold one table"),
        ("UPDATE _briefcase_elements SET rows = 9 WHERE position = 1", "_briefcase_elements.rows at position 1 is 9; the element holds 3"),
        ("DROP TABLE _briefcase_elements; CREATE VIEW _briefcase_elements AS SELECT 1 AS position", "_briefcase_elements is a view, not a table"),
        ("ALTER TABLE _briefcase_properties DROP COLUMN value_bytes", "table _briefcase_properties has no column value_bytes"),
        // orders.bin2 came as a bare Bin2 stream: no head to carry a property or padding (found by fuzzing).
        ("UPDATE _briefcase SET value = x'00ff' WHERE key = 'header_padding'", "which holds no properties and no header padding; found 0 properties and 2 bytes of padding"),
        ("INSERT INTO _briefcase_properties VALUES (0, 'a', 'b', x'61', x'62')", "found 1 properties and 0 bytes of padding"),
        // A value the field cannot hold: a date .NET cannot hold.
        ("UPDATE Orders SET Shipped = 1e300 WHERE ID = 1", "field 'Shipped': 1e+300 is not a date .NET can hold"),
        ("UPDATE Orders SET Shipped = '0000-12-31' WHERE ID = 1", "field 'Shipped': '0000-12-31' is not a date and time"),
    ])
    func schemaEditsThatCannotBeCarriedAreRefused(sql: String, message: String) throws {
        let error = try Self.refusal(sql)
        #expect(error.contains(message), "\(sql): \(error)")
    }

    /// Schema edits that keep what the briefcase needs are carried: columns in another order, a
    /// column's name in another case, the table rebuilt WITHOUT ROWID on its key.
    @Test func schemaEditsThatKeepTheFieldsAreCarried() throws {
        let (document, edits) = try SQLiteEditTests.edited("orders.bin2", """
            CREATE TABLE t (Shipped DATETIME, amount TEXT, Customer TEXT, ID INTEGER NOT NULL, PRIMARY KEY (ID)) WITHOUT ROWID;
            INSERT INTO t SELECT Shipped, Amount, Customer, ID FROM Orders; DROP TABLE Orders; ALTER TABLE t RENAME TO Orders;
            UPDATE Orders SET Customer = 'Alicia' WHERE ID = 1;
            """)
        #expect(edits == [SQLiteSource.TableEdits(table: "Orders", inserts: 0, updates: 1, deletes: 0)])
        let delta = try #require(document.file.stream.elements[0].asDelta, "no delta first")
        // The reduced delta (key ID) gains an update of Alice: the key and the changed field.
        #expect(delta.changes.count == 4)
        #expect(delta.changes.last == DeltaChange(type: .update, recordID: 1103, oldValues: [.integer(1), .wide("Alice"), nil, nil],
                                                  newValues: [.integer(1), .wide("Alicia"), nil, nil]))
    }

    /// A property edited in `_briefcase_properties` is carried (its text wins over its bytes);
    /// one the code page cannot hold is refused.
    @Test func propertiesEditedAsTextAreCarried() throws {
        let fixture = "gbk.daBriefcase"
        let original = try SQLiteEditTests.original(fixture)
        let first = try #require(original.file.properties.first, "gbk.daBriefcase has no property")
        let (document, edits) = try SQLiteEditTests.edited(fixture, "UPDATE _briefcase_properties SET value = '数据' WHERE position = 0")
        // 数据 in GBK: ca fd be dd (the fixture maker's bytes of 数据库原理 start so).
        #expect(document.file.properties.first?.value == ByteString([0xca, 0xfd, 0xbe, 0xdd]))
        #expect(document.file.properties.first?.name == first.name)
        #expect(Array(document.file.properties.dropFirst()) == Array(original.file.properties.dropFirst()))
        #expect(edits.first?.notes.first?.contains("value set to '数据'") == true, "\(edits)")
        #expect(try Self.refusal("UPDATE _briefcase_properties SET value = '😀' WHERE position = 0", fixture: fixture)
            .contains("cannot be written in code page gbk"))
    }

    /// NaN shows as the text 'NaN', so NULL written over it is NULL, and 'NaN' written is NaN
    /// (all-types.daBriefcase: AutoInc 0 holds a NaN Float; AutoInc 1 holds 0.0).
    @Test func nanAndNullAreTwoValues() throws {
        let (document, edits) = try SQLiteEditTests.edited("all-types.daBriefcase",
                                                           "UPDATE AllTypes SET Float = NULL WHERE AutoInc = 0; UPDATE AllTypes SET Float = 'NaN' WHERE AutoInc = 1")
        #expect(edits.map(\.updates) == [2])
        let table = try #require(document.file.stream.table(named: "AllTypes"))
        let delta = try #require(document.file.stream.delta(named: "AllTypes"))
        let rows = table.applying(delta).rows
        let column = try #require(table.fields.firstIndex(where: { $0.name == ByteString(utf8: "Float") }))
        let id = try #require(table.fields.firstIndex(where: { $0.name == ByteString(utf8: "AutoInc") }))
        func float(_ autoInc: Int64) -> Value?? { rows.first { $0[id] == .integer(autoInc) }.map { $0[column] } }
        #expect(float(0) == .some(nil))
        let nan: Double? = if case .float(let nan)?? = float(1) { nan } else { nil }
        #expect(try #require(nan, "AutoInc 1's Float is not a float").isNaN)
    }
}
