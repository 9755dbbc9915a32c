/// A change of a delta that could not be applied to the stored rows.
public struct DeltaApplicationProblem: Sendable, Equatable, CustomStringConvertible {
    /// The position of the change in the delta; nil for a problem of the whole delta.
    public var changeIndex: Int?
    /// The change's record id.
    public var recordID: Int32?
    /// What went wrong.
    public var message: String

    /// `change N (record id R): message`.
    public var description: String {
        var prefix = ""
        if let changeIndex { prefix += "change \(changeIndex)" }
        if let recordID { prefix += " (record id \(recordID))" }
        return prefix.isEmpty ? message : prefix + ": " + message
    }
}

/// What replaying one change did (`Table.replaying(_:)`).
package struct ChangeReplay: Sendable, Equatable {
    /// What a change did to the rows.
    package enum Outcome: Sendable, Equatable {
        /// The change inserted, updated or deleted a row.
        case inserted, updated, deleted
        /// The change matched no row or several, carried nothing to match on, or has an unknown type.
        case notApplied
    }
    /// What the change did.
    public var outcome: Outcome
    /// The row slot the change touched (see `DeltaReplay.slots`); nil when not applied.
    public var slot: Int?
    /// The row before the change (nil for an insert or when not applied).
    public var before: Row?
    /// The row after the change (nil for a delete or when not applied).
    public var after: Row?
}

/// The result of replaying a delta over a table's rows, change by change.
public struct DeltaReplay: Sendable {
    /// One entry per change, in order.
    package var changes: [ChangeReplay]
    /// Every row that existed at some point: slots `0..<rows.count` are the stored rows, then one
    /// slot per applied insert, in change order. nil = deleted.
    public var slots: [Row?]
    /// Changes that could not be applied, and why.
    public var problems: [DeltaApplicationProblem]
    /// With `replaying(_:resolving:)`: the changes that did not fit the rows, in change order.
    package var conflicts: [ReplayConflict] = []

    /// The rows once every change is replayed (stored order, inserted rows appended).
    public var rows: [Row] { slots.compactMap { $0 } }
}

extension Table {
    /// The rows as they are once `delta` is replayed over the stored (original) rows: inserted
    /// rows appended, updated rows changed, deleted rows left out.
    ///
    /// A change finds its row by the delta's key fields (or, when it has none, the schema's
    /// `InPrimaryKey` fields), comparing the change's old key values (new ones when absent);
    /// a table with no key at all is matched on every logged old value the change carries.
    /// Changes that match no row, or several, are not applied and are reported as problems.
    public func applying(_ delta: Delta) -> (rows: [Row], problems: [DeltaApplicationProblem]) {
        let replay = replaying(delta)
        return (replay.rows, replay.problems)
    }

    /// `applying(_:)`, reporting for each change which row it touched and how (same rules).
    public func replaying(_ delta: Delta) -> DeltaReplay {
        replaying(delta, resolving: nil)
    }

    /// The same, each change that does not fit the rows classed as a conflict (Spec/fold.md §2)
    /// and then omitted or applied anyway as `resolution` says; nil: no conflict is looked for,
    /// an insert always goes in and an update or delete applies to the row its key finds.
    package func replaying(_ delta: Delta, resolving resolution: ReplayResolution?) -> DeltaReplay {
        var problems: [DeltaApplicationProblem] = []
        var conflicts: [ReplayConflict] = []
        // Logged field position → table column (the first of that name; a dictionary, not a
        // scan of the fields per logged field).
        var columnByName: [[UInt8]: Int] = [:]
        for (column, field) in fields.enumerated() where columnByName[nameKey(field.name)] == nil {
            columnByName[nameKey(field.name)] = column
        }
        let columns: [Int?] = delta.loggedFields.map { columnByName[nameKey($0.name)] }
        for (i, column) in columns.enumerated() where column == nil {
            problems.append(DeltaApplicationProblem(message: "logged field '\(delta.loggedFields[i].name)' is not a column of the table; its values are ignored"))
        }
        let keyLogged = keyPositions(delta)
        var rows: [Row?] = self.rows.map { $0 }
        var lookup = RowLookup(rows: rows, keyColumns: keyLogged?.compactMap { columns[$0] })
        var replays: [ChangeReplay] = []
        replays.reserveCapacity(delta.changes.count)

        let keyColumns = keyLogged?.compactMap { columns[$0] }
        for (index, change) in delta.changes.enumerated() {
            let notApplied = ChangeReplay(outcome: .notApplied, slot: nil, before: nil, after: nil)
            func problem(_ message: String) {
                problems.append(DeltaApplicationProblem(changeIndex: index, recordID: change.recordID, message: message))
                if resolution != nil { conflicts.append(ReplayConflict(kind: .notFound, changeIndex: index, row: nil, message: message)) }
            }
            switch change.type {
            case .insert:
                var row = Row(repeating: nil, count: fields.count)
                for (i, column) in columns.enumerated() {
                    if let column, i < change.newValues.count { row[column] = change.newValues[i] }
                }
                // CONFLICT: a row holds the key already; replaced, it goes first.
                if let resolution, let keyColumns, !keyColumns.isEmpty {
                    let holders = lookup.matches(keyColumns.map { ($0, row[$0]) }, in: rows).sorted()
                    if let first = holders.first {
                        conflicts.append(ReplayConflict(kind: .conflict, changeIndex: index, row: rows[first],
                                                        message: "a row holds its key already"))
                        guard resolution == .replace else { replays.append(notApplied); continue }
                        for slot in holders {
                            lookup.remove(rows[slot]!, at: slot)
                            rows[slot] = nil
                        }
                    }
                }
                rows.append(row)
                lookup.add(row, at: rows.count - 1)
                replays.append(ChangeReplay(outcome: .inserted, slot: rows.count - 1, before: nil, after: row))
            case .update, .delete:
                // (table column, expected value) pairs that identify the row.
                var criteria: [(column: Int, value: Value?)] = []
                if let keyLogged {
                    for position in keyLogged {
                        guard let column = columns[position] else { continue }
                        let value = position < change.oldValues.count ? change.oldValues[position] : nil
                        let fallback = position < change.newValues.count ? change.newValues[position] : nil
                        criteria.append((column, value ?? fallback))
                    }
                } else {
                    for (i, column) in columns.enumerated() {
                        if let column, i < change.oldValues.count, let old = change.oldValues[i] { criteria.append((column, old)) }
                    }
                }
                guard !criteria.isEmpty else {
                    problem("\(change.type) carries no key or old values to find its row; not applied")
                    replays.append(notApplied)
                    continue
                }
                let matches = lookup.matches(criteria, in: rows)
                guard matches.count == 1, let match = matches.first else {
                    problem("\(change.type) matches \(matches.isEmpty ? "no row" : "\(matches.count) rows"); not applied")
                    replays.append(notApplied)
                    continue
                }
                let before = rows[match]
                // DATA: the row holds other values than the change's old ones where it changes them.
                if let resolution, let differing = Self.differingOldValues(change, delta, columns: columns, keyLogged: keyLogged, row: before!) {
                    conflicts.append(ReplayConflict(kind: .data, changeIndex: index, row: before, message: differing))
                    guard resolution == .replace else { replays.append(notApplied); continue }
                }
                if change.type == .delete {
                    lookup.remove(before!, at: match)
                    rows[match] = nil
                    replays.append(ChangeReplay(outcome: .deleted, slot: match, before: before, after: nil))
                } else {
                    for (i, column) in columns.enumerated() {
                        guard let column, i < change.newValues.count else { continue }
                        if let value = change.newValues[i] {
                            rows[match]![column] = value
                        } else if !delta.isReduced {
                            // A full delta carries every logged field: absent means NULL.
                            rows[match]![column] = nil
                        }
                    }
                    lookup.replace(before!, with: rows[match]!, at: match)
                    replays.append(ChangeReplay(outcome: .updated, slot: match, before: before, after: rows[match]))
                }
            default:
                problem("unknown change type \(change.type.rawValue); not applied")
                replays.append(notApplied)
            }
        }
        return DeltaReplay(changes: replays, slots: rows, problems: problems, conflicts: conflicts)
    }

    /// Where `row`, the row an update or delete found by its key, holds another value than the
    /// change's old one (Spec/fold.md §2): for an update, in the fields it changes (its new value
    /// carried and unlike its old); for a delete, in every field it carries an old value of (a
    /// full delta carries all, NULL included). Key fields found the row already. Nil: none.
    static func differingOldValues(_ change: DeltaChange, _ delta: Delta, columns: [Int?], keyLogged: [Int]?, row: Row) -> String? {
        let keys = Set(keyLogged ?? [])
        for (i, column) in columns.enumerated() {
            guard let column, !keys.contains(i) else { continue }
            let old = i < change.oldValues.count ? change.oldValues[i] : nil
            let new = i < change.newValues.count ? change.newValues[i] : nil
            let compared = change.type == .delete ? (!delta.isReduced || old != nil) : ((!delta.isReduced || new != nil) && new != old)
            if compared && row[column] != old {
                return "field '\(delta.loggedFields[i].name)' holds another value than the change's old one"
            }
        }
        return nil
    }

    /// Positions (in the delta's logged fields) of the key: the delta's key fields, else the
    /// schema's `InPrimaryKey` fields; nil when the table has no key. (`ChangeTracker` logs
    /// changes by the same key.)
    package func keyPositions(_ delta: Delta) -> [Int]? {
        var keyNames: [ByteString] = delta.keyFields
        if keyNames.isEmpty { keyNames = primaryKeyColumns.map { fields[$0].name } }
        var loggedByName: [[UInt8]: Int] = [:]
        for (position, logged) in delta.loggedFields.enumerated() where loggedByName[nameKey(logged.name)] == nil {
            loggedByName[nameKey(logged.name)] = position
        }
        let positions = keyNames.compactMap { loggedByName[nameKey($0)] }
        return positions.isEmpty ? nil : positions
    }
}

/// A change that does not fit the rows it is replayed over (`Table.replaying(_:resolving:)`),
/// classed as SQLite's session extension classes them (Spec/fold.md §2).
package struct ReplayConflict: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// An update or delete whose row, found by its key, holds other values than its old ones.
        case data
        /// An update or delete that finds no single row to apply to (none; several, in a table
        /// without a key; nothing to find one by), or a change of unknown type.
        case notFound
        /// An insert whose key a row holds already.
        case conflict
    }
    package var kind: Kind
    /// The change's place in its delta.
    package var changeIndex: Int
    /// The row the change met (DATA: the row it found; CONFLICT: the row holding the key).
    package var row: Row?
    package var message: String
}

/// What a replay that looks for conflicts does with one (the caller that aborts omits them, then
/// writes nothing).
package enum ReplayResolution: Sendable {
    /// The change is not applied.
    case omit
    /// DATA: applied anyway; CONFLICT: the row holding the key is removed, then the insert
    /// applied; NOTFOUND: there is nothing to replace, so it is omitted (as SQLite allows no
    /// REPLACE for it).
    case replace
}
