// Applying deltas and changes to a snapshot, with the API's rules:
//
// - a delta applies only to the revision it names (`delta.rev == snapshot.rev`); afterwards the
//   snapshot is at `rev + 1`;
// - I needs an absent record; U and D need an existing one; a record left with no fields by U
//   still exists (only D removes a record);
// - per field: P sets; D removes (nothing happens if the field is absent); LC needs an absent
//   field; LP/LD need 0 ≤ index < count; LI needs 0 ≤ before ≤ count, and on an absent field
//   creates the list when before == 0; LM needs both indices < count; list operations on an
//   atom fail;
// - all or nothing: when any change fails, the snapshot is left exactly as it was.
//
// Error paths follow the wire form of what is applied: for a delta `$.rev`,
// `$.changes[4]` (the change), `$.changes[4][3].tags` (one field's operation).

import JSONCore

extension DatastoreSnapshot {
    /// Applies one delta atomically: checks `delta.rev == rev`, applies every change in order,
    /// then increments `rev`. Errors carry paths relative to the delta (`$.changes[2][3].tags`).
    public mutating func apply(_ delta: DatastoreDelta) throws(DatastoreError) {
        var log = UndoLog(self)
        do {
            try apply(delta, log: &log)
        } catch {
            rollBack(log)
            throw error
        }
        compactIfSparse()
    }

    /// Applies deltas in order, all or nothing. Errors carry paths relative to the array
    /// (`$[1].changes[0]`).
    public mutating func apply<S: Sequence>(_ deltas: S) throws(DatastoreError) where S.Element == DatastoreDelta {
        var log = UndoLog(self)
        for (index, delta) in deltas.enumerated() {
            do {
                try apply(delta, log: &log)
            } catch {
                rollBack(log)
                throw error.prefixed(by: .index(index))
            }
        }
        compactIfSparse()
    }

    /// A copy with `delta` applied.
    public func applying(_ delta: DatastoreDelta) throws(DatastoreError) -> DatastoreSnapshot {
        var copy = self
        try copy.apply(delta)
        return copy
    }

    /// Applies one change atomically without touching `rev`. Errors carry paths relative to the
    /// change (`$[3].tags`).
    public mutating func apply(_ change: DatastoreChange) throws(DatastoreError) {
        var log = UndoLog(self)
        do {
            try apply(change, at: .root, log: &log)
        } catch {
            rollBack(log)
            throw error
        }
        compactIfSparse()
    }

    // MARK: - Implementation

    struct UndoLog {
        enum Step {
            case appended(Key)
            case removed(Int, Entry)
            case replaced(Int, DatastoreRecord)
        }

        var steps: [Step] = []
        let rev: Int
        let tally: SizeTally

        init(_ snapshot: DatastoreSnapshot) {
            rev = snapshot.rev
            tally = snapshot.recordsTally
        }
    }

    mutating func rollBack(_ log: UndoLog) {
        for step in log.steps.reversed() {
            switch step {
            case .appended(let key):
                entries.removeLast()
                index[key] = nil
            case .removed(let position, let entry):
                entries[position] = entry
                index[entry.key] = position
            case .replaced(let position, let record):
                entries[position]!.record = record
            }
        }
        rev = log.rev
        recordsTally = log.tally
    }

    mutating func apply(_ delta: DatastoreDelta, log: inout UndoLog) throws(DatastoreError) {
        guard delta.rev == rev else {
            throw DatastoreError(.revisionMismatch,
                "the delta is for revision \(delta.rev), but the datastore is at revision \(rev)"
                    + (delta.rev < rev ? " (already applied?)" : " (deltas are missing before it)"),
                at: JSONPath.root.appending(key: "rev"))
        }
        guard rev < Int.max else {
            throw DatastoreError(.revisionMismatch, "the revision cannot go beyond \(Int.max)", at: JSONPath.root.appending(key: "rev"))
        }
        for (position, change) in delta.changes.enumerated() {
            try apply(change, at: JSONPath.root.appending(key: "changes").appending(index: position), log: &log)
        }
        rev += 1
    }

    mutating func apply(_ change: DatastoreChange, at path: JSONPath, log: inout UndoLog) throws(DatastoreError) {
        try change.validate(at: path)
        let key = Key(tableID: change.tableID, recordID: change.recordID)
        switch change {
        case .insert(_, _, let fields):
            guard index[key] == nil else {
                throw DatastoreError(.recordExists,
                    "I: the record \(DatastoreSnapshot.describe(key)) already exists", at: path)
            }
            append(key, fields)
            log.steps.append(.appended(key))
        case .update(_, _, let updates):
            guard let position = index[key] else {
                throw DatastoreError(.recordNotFound,
                    "U: there is no record \(DatastoreSnapshot.describe(key))", at: path)
            }
            var record = entries[position]!.record
            for update in updates {
                try DatastoreSnapshot.apply(update.operation, to: &record, field: update.field,
                    at: path.appending(index: 3).appending(key: update.field))
            }
            log.steps.append(.replaced(position, replace(at: position, with: record)))
        case .delete:
            guard let position = index[key] else {
                throw DatastoreError(.recordNotFound,
                    "D: there is no record \(DatastoreSnapshot.describe(key))", at: path)
            }
            log.steps.append(.removed(position, remove(at: position)))
        }
    }

    /// Applies one field operation to a record (the API's per-field rules).
    static func apply(_ operation: FieldOperation, to record: inout DatastoreRecord, field: String, at path: JSONPath)
        throws(DatastoreError)
    {
        let name = JSONPath.quoted(field)
        let tag = operation.tag

        func currentList(creatingAbsent: Bool = false) throws(DatastoreError) -> [DatastoreAtom] {
            switch record[field] {
            case .list(let list):
                return list
            case .atom(let atom):
                throw DatastoreError(.notAList, "\(tag): the field \(name) holds \(article(atom.typeName)), not a list", at: path)
            case nil:
                if creatingAbsent { return [] }
                throw DatastoreError(.fieldNotFound, "\(tag): the record has no field \(name)", at: path)
            }
        }

        func check(_ index: Int, _ role: String, below limit: Int, count: Int) throws(DatastoreError) {
            guard index >= 0 && index < limit else {
                throw DatastoreError(.indexOutOfRange,
                    "\(tag): '\(role)' = \(index) is outside the list of \(count) element\(count == 1 ? "" : "s") "
                        + (limit == 0 ? "(no index is valid)" : "(valid: 0…\(limit - 1))"),
                    at: path)
            }
        }

        switch operation {
        case .put(let value):
            record[field] = value
        case .delete:
            record[field] = nil
        case .listCreate:
            if let existing = record[field] {
                throw DatastoreError(.fieldExists,
                    "LC: the field \(name) already exists (holding \(article(existing.typeName)))", at: path)
            }
            record[field] = .list([])
        case .listPut(let at, let atom):
            var list = try currentList()
            try check(at, "at", below: list.count, count: list.count)
            list[at] = atom
            record[field] = .list(list)
        case .listInsert(let before, let atom):
            if record[field] == nil && before != 0 {
                throw DatastoreError(.fieldNotFound,
                    "LI: the record has no field \(name); only index 0 creates a list (got \(before))", at: path)
            }
            var list = try currentList(creatingAbsent: true)
            try check(before, "before", below: list.count + 1, count: list.count)
            list.insert(atom, at: before)
            record[field] = .list(list)
        case .listDelete(let at):
            var list = try currentList()
            try check(at, "at", below: list.count, count: list.count)
            list.remove(at: at)
            record[field] = .list(list)
        case .listMove(let from, let to):
            var list = try currentList()
            try check(from, "from", below: list.count, count: list.count)
            try check(to, "to", below: list.count, count: list.count)
            let element = list.remove(at: from)
            list.insert(element, at: to)
            record[field] = .list(list)
        }
    }
}

private func article(_ typeName: String) -> String {
    switch typeName {
    case "integer": "an integer"
    case "list": "a list"
    case "bytes": "bytes"
    default: "a \(typeName)"
    }
}
