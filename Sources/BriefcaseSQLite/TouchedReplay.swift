import BriefcaseKit

/// A table's pending delta replayed over the stored rows it can touch only (Spec/sqlite-mapping.md
/// §4): the rows whose key some change looks up. A keyed delta finds each change's row by the
/// key values the change carries, so a stored row whose key no change names is matched by no
/// change and is a current row as it is stored — read from its bytes, never made values. The
/// replay over the rows it can touch gives what the replay over every row gives for them: every
/// row a change's lookup could match is among them (two alike included, which the change then
/// does not apply to, as over the whole table).
///
/// Nil — the whole table replayed — when its rows are values already, when the delta finds rows
/// by their old values (no key), when a key field is no column of the table, or when the changes
/// are a quarter as many as the rows or more.
struct TouchedReplay {
    /// The stored rows' places the replay ran over, ascending.
    let places: [Int]
    /// The replay over those rows (slot j is stored row `places[j]`; then the inserted rows).
    let replay: DeltaReplay

    init?(_ table: Table, _ delta: Delta) {
        // (Where the changes are many beside the rows, looking for their rows costs more than it saves.)
        guard let view = table.rows.storedView, delta.changes.count * 4 < view.count,
              let positions = table.keyPositions(delta) else { return nil }
        var columnByName: [[UInt8]: Int] = [:]
        for (column, field) in table.fields.enumerated() where columnByName[nameKey(field.name)] == nil {
            columnByName[nameKey(field.name)] = column
        }
        let keyColumns = positions.compactMap { columnByName[nameKey(delta.loggedFields[$0].name)] }
        guard keyColumns.count == positions.count else { return nil }
        // The key each change looks its row up by (`Table.replaying`: its old key values, a new
        // one where the old is absent).
        var named = Set<[Value?]>()
        for change in delta.changes where change.type == .update || change.type == .delete {
            named.insert(positions.map { position in
                (position < change.oldValues.count ? change.oldValues[position] : nil)
                    ?? (position < change.newValues.count ? change.newValues[position] : nil)
            })
        }
        let reader = view.columns(keyColumns)
        places = (0 ..< view.count).filter { named.contains(reader.values(row: $0)) }
        let touched = Table(name: table.name, schema: table.schema, fields: table.fields, rows: places.map(view.row))
        replay = touched.replaying(delta)
    }

    /// The current rows, in the order of the whole table's replay: each stored row (its
    /// replayed values where the replay ran over it, gone where deleted), then the inserted ones.
    func currentRows(of table: Table) -> InsertedRows {
        var sources: [CurrentRowSource] = []
        sources.reserveCapacity(table.rows.count)
        var values: [Row] = []
        var next = 0
        for slot in 0 ..< table.rows.count {
            if next < places.count && places[next] == slot {
                if let row = replay.slots[next] {
                    sources.append(.value(values.count))
                    values.append(row)
                }
                next += 1
            } else {
                sources.append(.stored(slot))
            }
        }
        for row in replay.slots.dropFirst(places.count).compactMap({ $0 }) {
            sources.append(.value(values.count))
            values.append(row)
        }
        return .patched(table.rows, storages: table.fields.map(\.type.storage), sources: sources, values: values)
    }

    /// The stored rows the replay updated or deleted (`_briefcase_stored_N`), ascending.
    var touchedSlots: [Int] {
        SQLiteTableWriter.touchedSlots(replay, storedRows: places.count).map { places[$0] }
    }
}

/// A table's current rows — its stored rows with its pending delta replayed, as the current-rows
/// table holds them — and the stored rows the replay updated or deleted (`_briefcase_stored_N`):
/// the replay over the rows the delta can touch (`TouchedReplay`) where it applies, else over
/// every row. What `SQLiteTableWriter` writes and `OnDemandDatabase` reads.
struct ReplayedTable {
    let current: InsertedRows
    let touchedSlots: [Int]

    /// `delta` nil or without changes: the stored rows as they are.
    init(_ table: Table, delta: Delta?) {
        guard let delta, !delta.changes.isEmpty else {
            (current, touchedSlots) = (InsertedRows(table), [])
            return
        }
        if let touched = TouchedReplay(table, delta) {
            (current, touchedSlots) = (touched.currentRows(of: table), touched.touchedSlots)
        } else {
            let replay = table.replaying(delta)
            (current, touchedSlots) = (.values(replay.rows), SQLiteTableWriter.touchedSlots(replay, storedRows: table.rows.count))
        }
    }
}

/// Where a current row comes from: a stored row as it is, or values made by the replay.
enum CurrentRowSource {
    case stored(Int)
    case value(Int)
}
