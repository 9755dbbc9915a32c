import BriefcaseKit

/// What `_briefcase_properties` and `_briefcase_elements` hold, read and checked: every entry must
/// agree with the element its bytes hold and with the names the mapping gives (Spec/sqlite-mapping.md §5).
extension SQLiteSource {
    /// The properties in order. A `name` or `value` edited with SQL (its text no longer the text of
    /// its bytes) is carried: the text is written in the code page (refused when it cannot be);
    /// `notes` says which.
    func properties(codePage: CodePage, notes: inout [String]) throws(BriefcaseError) -> [BriefcaseProperty] {
        _ = try database.realTable(SQLiteMapping.propertiesTable, columns: Self.propertyColumns)
        var properties: [BriefcaseProperty] = []
        let statement = try database.prepare("SELECT name, value, name_bytes, value_bytes FROM _briefcase_properties ORDER BY position")
        while try statement.step() {
            var parts: [ByteString] = []
            for (column, label) in [(0, "name"), (1, "value")] {
                guard case .blob(let bytes) = statement.value(at: column + 2) else {
                    throw invalid("\(SQLiteMapping.propertiesTable): \(label)_bytes must be a blob (the \(label) as stored), found \(statement.value(at: column + 2).typeName)")
                }
                let stored = ByteString(bytes)
                guard case .text(let text) = statement.value(at: column) else {
                    throw invalid("\(SQLiteMapping.propertiesTable): \(label) must be text, found \(statement.value(at: column).typeName)")
                }
                guard text != codePage.decodeForDisplay(stored) else { parts.append(stored); continue }
                guard let encoded = codePage.encode(text) else {
                    throw invalid("\(SQLiteMapping.propertiesTable): the \(label) '\(text)' cannot be written in code page \(codePage.name)")
                }
                notes.append("property '\(column == 0 ? text : codePage.decodeForDisplay(parts[0]))': \(label) set to '\(text)' (edited in \(SQLiteMapping.propertiesTable))")
                parts.append(encoded)
            }
            properties.append(BriefcaseProperty(name: parts[0], value: parts[1]))
        }
        return properties
    }

    /// The entries of `_briefcase_elements` in stream order, checked: positions 0, 1, 2, …, kinds,
    /// and the current-rows table of each table the name the mapping gives it (version 3:
    /// `SQLiteNames`; before: the table's own name, or none).
    func entries() throws(BriefcaseError) -> [Entry] {
        let shape = try database.realTable(SQLiteMapping.elementsTable, columns: Self.elementColumns + (version >= 3 ? ["checksum"] : []))
        guard !shape.withoutRowID, let rowID = ["rowid", "_rowid_", "oid"].first(where: { shape.column($0) == nil }) else {
            throw invalid("\(SQLiteMapping.elementsTable) has no rowid (the mapping's table has one: its elements' bytes are read by it)")
        }
        let table = SQLiteMapping.elementsTable
        var entries: [Entry] = []
        let checksum = version >= 3 ? "checksum" : "NULL"
        let statement = try database.prepare("SELECT \(rowID), position, kind, name, current_table, row_ids, rows, changes, \(checksum) FROM \(table) ORDER BY position")
        while try statement.step() {
            let expected = entries.count
            guard let row = statement.value(at: 0).integer else { throw invalid("\(table): a row without a rowid") }
            guard let position = statement.value(at: 1).integer, position == expected else {
                throw invalid("\(table).position: expected \(expected) (positions are 0, 1, 2, … in stream order), found \(statement.value(at: 1))")
            }
            guard let kindName = statement.value(at: 2).text, let kind: ElementKind = kindName == "table" ? .table : kindName == "delta" ? .delta : nil else {
                throw invalid("\(table).kind at position \(position): expected 'table' or 'delta', found \(statement.value(at: 2))")
            }
            guard let name = statement.value(at: 3).text else {
                throw invalid("\(table).name at position \(position): expected text, found \(statement.value(at: 3))")
            }
            let current = statement.value(at: 4), rowIDs = statement.value(at: 5)
            guard current == .null || current.text != nil, rowIDs == .null || rowIDs == .text("key") || rowIDs == .text("position") else {
                throw invalid("\(table) at position \(position): current_table must be text or NULL and row_ids 'key', 'position' or NULL, found \(current) and \(rowIDs)",
                              element: name)
            }
            guard kind == .table || current == .null, (current == .null) == (rowIDs == .null) else {
                throw invalid("\(table) at position \(position): \(kind == .delta ? "a delta has no current_table" : "current_table and row_ids go together"), found \(current) and \(rowIDs)",
                              element: name)
            }
            let count = statement.value(at: kind == .table ? 6 : 7).integer
            guard version < 3 || statement.value(at: 8).integer != nil else {
                throw invalid("\(table).checksum at position \(position): expected an integer (the CRC-32 of bin2), found \(statement.value(at: 8))", element: name)
            }
            entries.append(Entry(rowID: row, position: expected, kind: kind, name: name, currentTable: current.text,
                                 rowIDsAreKeys: rowIDs == .text("key"), count: count, checksum: statement.value(at: 8).integer))
        }
        try checkNames(&entries)
        return entries
    }

    /// Checks each table's current_table against the name the mapping gives it, and notes which
    /// tables a new delta could be given to (`Entry.takesNewDelta`).
    private func checkNames(_ entries: inout [Entry]) throws(BriefcaseError) {
        var names = SQLiteNames()
        var tablesBefore: [String: Int] = [:], deltasBefore: [String: Int] = [:]
        for index in entries.indices {
            let entry = entries[index], key = entry.name.asciiLowercased
            guard entry.kind == .table else {
                deltasBefore[key, default: 0] += 1
                continue
            }
            let first = tablesBefore[key, default: 0] == 0
            entries[index].takesNewDelta = deltasBefore[key, default: 0] == tablesBefore[key, default: 0]
            tablesBefore[key, default: 0] += 1
            let derived = names.table(named: entry.name, at: entry.position)
            guard let current = entry.currentTable else { continue }
            if version >= 3 {
                guard current == derived else {
                    throw invalid("\(SQLiteMapping.elementsTable).current_table at position \(entry.position) is '\(current)'; the mapping names the table '\(derived)'",
                                  element: entry.name)
                }
            } else {
                // Versions 1 and 2 gave a table its own name, or none.
                guard current == entry.name, first, !SQLiteMapping.isReserved(current), !current.utf8.contains(0) else {
                    throw invalid("\(SQLiteMapping.elementsTable).current_table at position \(entry.position) is '\(current)'; expected '\(entry.name)' or NULL",
                                  element: entry.name)
                }
            }
        }
    }

    /// Each table's delta, as every reader pairs them (`ElementPairing`, by the names as
    /// `_briefcase_elements` gives them): table position → delta entry.
    static func deltasOfTables(_ entries: [Entry]) -> [Int: Entry] {
        var pairing = ElementPairing()
        for entry in entries { pairing.add(entry.kind, key: Array(entry.name.asciiLowercased.utf8)) }
        var pairs: [Int: Entry] = [:]
        for entry in entries where entry.kind == .table {
            if let delta = pairing.partner[entry.position] { pairs[entry.position] = entries[delta] }
        }
        return pairs
    }

    /// The element of an entry, from its exact bytes, checked against its entry.
    func element(_ entry: Entry, codePage: CodePage) throws(BriefcaseError) -> Element {
        let bytes = try elementBytes(entry)
        var warnings: [DecodingWarning] = []
        let document: BriefcaseDocument
        do throws(BriefcaseError) {
            document = try BriefcaseDocument.decode(bytes, as: .bin2, warnings: &warnings)
        } catch {
            throw located(error, entry)
        }
        guard document.file.stream.elements.count == 1, let element = document.file.stream.elements.first, element.kind == entry.kind else {
            throw invalid("\(SQLiteMapping.elementsTable).bin2 does not hold one \(entry.kind.label)", element: entry.name)
        }
        switch element {
        case .table(let table): try check(entry, name: table.name, count: table.rows.count, fields: table.fields.count, codePage: codePage)
        case .delta(let delta): try check(entry, name: delta.name, count: delta.changes.count, fields: 0, codePage: codePage)
        }
        return element
    }

    /// The head and count of the element, read from its bytes without decoding a row.
    func summary(_ entry: Entry, codePage: CodePage) throws(BriefcaseError) -> ElementSummary {
        let bytes = try elementBytes(entry)
        let summary: ElementSummary
        do throws(BriefcaseError) {
            let elements = try BriefcaseElements(bytes: bytes, as: .bin2)
            guard elements.elements.count == 1 else { throw BriefcaseError(.invalidData, "does not hold one element") }
            summary = try elements.summary(0)
            guard summary.kind == entry.kind else { throw BriefcaseError(.invalidData, "does not hold one \(entry.kind.label)") }
        } catch {
            throw located(error, entry)
        }
        try check(entry, name: summary.name, count: entry.kind == .table ? summary.rowCount : summary.changeCount,
                  fields: summary.table?.fields.count ?? 0, codePage: codePage)
        return summary
    }

    private func elementBytes(_ entry: Entry) throws(BriefcaseError) -> [UInt8] {
        guard let bytes = try database.readBlob(table: SQLiteMapping.elementsTable, column: "bin2", rowID: entry.rowID) else {
            throw invalid("\(SQLiteMapping.elementsTable).bin2 is not a blob", element: entry.name)
        }
        // The element's bytes as written, not edited: an edit of them is refused, never carried
        // (an element edited byte by byte may decode to what no app wrote).
        if let checksum = entry.checksum, SQLiteMapping.checksum(bytes) != checksum {
            throw invalid("\(SQLiteMapping.elementsTable).bin2 at position \(entry.position) is not the element's bytes as written (its checksum differs): they are not for editing; edit the table's rows instead, or export again",
                          element: entry.name)
        }
        return bytes
    }

    private func located(_ error: BriefcaseError, _ entry: Entry) -> BriefcaseError {
        var located = error
        located.message = "\(SQLiteMapping.elementsTable).bin2 (offset in the element's bytes): " + error.message
        located.file = path
        return located.inElement(entry.name)
    }

    /// An entry agrees with its element: its name, its count of rows or changes, and a
    /// current-rows table exactly when the table has fields (version 3; before, perhaps none).
    private func check(_ entry: Entry, name: ByteString, count: Int, fields: Int, codePage: CodePage) throws(BriefcaseError) {
        let table = SQLiteMapping.elementsTable
        let decoded = codePage.decodeForDisplay(name)
        guard decoded == entry.name else {
            throw invalid("\(table).name at position \(entry.position) is '\(entry.name)'; the element's bytes name it '\(decoded)'", element: decoded)
        }
        guard entry.count == nil || entry.count == Int64(count) else {
            throw invalid("\(table).\(entry.kind == .table ? "rows" : "changes") at position \(entry.position) is \(entry.count!); the element holds \(count)",
                          element: decoded)
        }
        if entry.currentTable != nil && fields == 0 {
            throw invalid("\(table).current_table at position \(entry.position) names a table, but the table has no fields", element: decoded)
        }
        if version >= 3 && entry.kind == .table && entry.currentTable == nil && fields > 0 {
            throw invalid("\(table).current_table at position \(entry.position) is NULL; every table with fields has its current rows in SQL", element: decoded)
        }
    }
}
