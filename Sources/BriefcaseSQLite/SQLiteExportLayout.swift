import BriefcaseKit

/// The SQL names `convert … x.sqlite` gives a briefcase's current-rows tables and their columns
/// (Spec/sqlite-mapping.md §2), and its values as SQL literals (§3): what a script of SQL
/// statements written for that database needs (`briefcase diff --format sql`).
public struct SQLiteExportLayout: Sendable {
    /// A table element's current-rows table.
    public struct CurrentTable: Sendable {
        /// The SQL table's name (a derived `POSITION:NAME` where SQLite cannot take the table's own).
        public var name: String
        /// Its columns, one per field, in field order.
        public var columns: [String]
        /// How SQL names a row's rowid there (`rowid`, or another name when fields took it).
        public var rowID: String
    }

    private var tables: [(key: [UInt8], position: Int, table: CurrentTable?)] = []
    private let image: ValueImage

    /// The layout of `stream`'s tables, names decoded in `codePage` (the database's).
    public init(_ stream: Bin2Stream, codePage: CodePage) {
        image = ValueImage(codePage: codePage)
        var names = SQLiteNames()
        for (position, element) in stream.elements.enumerated() {
            guard case .table(let table) = element else { continue }
            let name = names.table(named: codePage.decodeForDisplay(table.name), at: position)
            let layout = CurrentTableLayout(table: table, codePage: codePage)
            tables.append((nameKey(table.name), position, layout.refusal == nil
                ? CurrentTable(name: name, columns: layout.columns, rowID: layout.rowIDName) : nil))
        }
    }

    /// The current-rows table of the first table named `name` (ASCII letters without case); nil
    /// when there is no such table or it has none (no fields).
    public func table(named name: ByteString) -> CurrentTable? {
        let key = nameKey(name)
        return tables.first { $0.key == key }?.table ?? nil
    }

    /// The current-rows table of the table element at `position` in the stream; nil when that
    /// element is not a table or has none.
    public func table(at position: Int) -> CurrentTable? {
        tables.first { $0.position == position }?.table ?? nil
    }

    /// `value` as an SQL literal of the value the current-rows table holds for it: NULL, an
    /// integer, a real (infinities as ±9e999), text in single quotes, a blob as `X'…'`.
    public func literal(_ value: Value?) -> String { image.sql(value).literal }

    /// `identifier` quoted for SQL.
    public static func quote(_ identifier: String) -> String { SQLiteDatabase.quote(identifier) }

}
