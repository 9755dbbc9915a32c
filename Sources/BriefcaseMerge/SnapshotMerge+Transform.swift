import DatastoreKit

/// A local field operation on its way through the transform, with the field's value just before
/// it — on LOCAL at first, then the remote value it was made to follow — for `sum`.
struct LocalOperation {
    var field: String
    var operation: FieldOperation
    var old: DatastoreValue?
}

/// A local change on its way through the transform, with its place among LOCAL's changes.
struct LocalChange {
    enum Kind {
        case insert(DatastoreRecord)
        case update([LocalOperation])
        case delete
    }

    var kind: Kind
    var position: Int

    init(kind: Kind, position: Int) {
        self.kind = kind
        self.position = position
    }

    /// `change` at `position`, `before` being its record just before it on LOCAL.
    init(_ change: DatastoreChange, position: Int, before: DatastoreRecord?) {
        switch change {
        case .insert(_, _, let fields): kind = .insert(fields)
        case .update(_, _, let updates):
            kind = .update(updates.map { LocalOperation(field: $0.field, operation: $0.operation, old: before?[$0.field]) })
        case .delete: kind = .delete
        }
        self.position = position
    }

    func change(tableID: String, recordID: String) -> DatastoreChange {
        switch kind {
        case .insert(let fields): .insert(tableID: tableID, recordID: recordID, fields: fields)
        case .update(let operations):
            .update(tableID: tableID, recordID: recordID, updates: operations.map { FieldUpdate($0.field, $0.operation) })
        case .delete: .delete(tableID: tableID, recordID: recordID)
        }
    }
}

/// One record's LOCAL changes transformed to follow REMOTE's, as the Datastore's resolver did
/// (`../shared/reference/datastore-format.md` §7; Spec/merge.md §5), noting what conflicted.
struct RecordTransform {
    let tableID: String
    let recordID: String
    let rules: ThreeWayMerge.Rules
    /// One side updated the record while the other deleted it.
    private(set) var recordConflict = false
    /// The fields both changed in ways that do not both stand, in order, with the rule that decided.
    private(set) var fieldConflicts: [(field: String, rule: MergeRule?)] = []

    init(tableID: String, recordID: String, rules: ThreeWayMerge.Rules) {
        self.tableID = tableID
        self.recordID = recordID
        self.rules = rules
    }

    /// `local` transformed against each of `remote` in turn, each remote change transformed
    /// along the local ones to meet the next.
    mutating func transform(local: [LocalChange], remote: [DatastoreChange]) -> [LocalChange] {
        var local = local
        for change in remote {
            var current: DatastoreChange? = change
            var next: [LocalChange] = []
            for mine in local {
                guard let theirs = current else { next.append(mine); continue }
                let (mine2, theirs2) = pair(mine, theirs)
                if let mine2 { next.append(mine2) }
                current = theirs2
            }
            local = next
        }
        return local
    }

    /// One local change and one remote change of the record, each made to follow the other.
    private mutating func pair(_ mine: LocalChange, _ theirs: DatastoreChange) -> (LocalChange?, DatastoreChange?) {
        switch (mine.kind, theirs) {
        case (.update(let operations), .update(_, _, let updates)):
            return fields(operations, updates, position: mine.position)
        case (.insert(let fields), .insert(_, _, let theirFields)):
            // Two inserts of one record: both become puts of their fields, resolved field by field.
            return self.fields(fields.fields.map { LocalOperation(field: $0.name, operation: .put($0.value), old: nil) },
                               theirFields.fields.map { FieldUpdate($0.name, .put($0.value)) }, position: mine.position)
        case (.update, .delete):
            recordConflict = true  // a remote delete beats a local update
            return (nil, theirs)
        case (.delete, .update):
            recordConflict = true  // a local delete is kept against a remote update
            return (mine, nil)
        case (.delete, .delete):
            return (nil, nil)
        default:
            // An insert against an update or delete: both sides would have to start from a state
            // where the record is and is not. (The Datastore asserted; REMOTE's stands.)
            recordConflict = true
            return (nil, theirs)
        }
    }

    /// Two updates: fields one side touched pass; a field both touched is transformed.
    private mutating func fields(_ operations: [LocalOperation], _ updates: [FieldUpdate], position: Int) -> (LocalChange?, DatastoreChange?) {
        var theirs = updates
        var mine: [LocalOperation] = []
        for operation in operations {
            guard let index = theirs.firstIndex(where: { $0.field == operation.field }) else {
                mine.append(operation)
                continue
            }
            let (mine2, theirs2) = self.operation(operation, theirs[index].operation)
            if let mine2 { mine.append(mine2) }
            if let theirs2 { theirs[index].operation = theirs2 } else { theirs.remove(at: index) }
        }
        return (mine.isEmpty ? nil : LocalChange(kind: .update(mine), position: position),
                theirs.isEmpty ? nil : .update(tableID: tableID, recordID: recordID, updates: theirs))
    }

    /// Two operations on one field (the reference notes' tables): put and delete by the rule; a
    /// put or delete beats a list operation; a list creation gives way to the other side's list
    /// operations; two list operations by `ListTransform`.
    private mutating func operation(_ mine: LocalOperation, _ theirs: FieldOperation) -> (LocalOperation?, FieldOperation?) {
        let field = mine.field
        let rule = rules.rule(tableID: tableID, field: field)
        switch (mine.operation.wholeValue, theirs.wholeValue) {
        case (let localValue?, let remoteValue?):
            // (Two equal puts conflict in nothing, but a sum still adds LOCAL's change.)
            if mine.operation != theirs { note(field, rule) }
            if rule == .sum, case .put = mine.operation, case .put = theirs,
               let sum = MergeRule.datastoreSum(old: mine.old, local: localValue, remote: remoteValue) {
                return (LocalOperation(field: field, operation: .put(sum), old: remoteValue), .put(sum))
            }
            if rule.prefersLocal(localValue, remoteValue) {
                return (LocalOperation(field: field, operation: mine.operation, old: remoteValue), nil)
            }
            return (nil, theirs)
        case (_?, nil):
            note(field, nil)
            return (mine, nil)
        case (nil, _?):
            note(field, nil)
            return (nil, theirs)
        case (nil, nil):
            switch (mine.operation, theirs) {
            case (.listCreate, .listCreate): return (nil, nil)
            case (.listCreate, _): return (nil, theirs)
            case (_, .listCreate): return (mine, nil)
            default: break
            }
            let local = ListOperation(mine.operation)!, remote = ListOperation(theirs)!
            // Two puts of one element: the rule decides. Anything else one of them drops (a
            // delete or move of the element the other put, deleted or moved) conflicts.
            var localWins = false, samePlace = false
            if case .put(let a, let x) = local, case .put(let b, let y) = remote, a == b {
                localWins = rule.prefersLocal(.atom(x), .atom(y))
                samePlace = true
                if x != y { note(field, rule) }
            }
            let (local2, remote2) = ListTransform.transform(local: local, remote: remote, localWins: localWins)
            if !samePlace && local != remote && (local2 == nil || remote2 == nil) { note(field, nil) }
            return (local2.map { LocalOperation(field: field, operation: $0.fieldOperation, old: mine.old) }, remote2?.fieldOperation)
        }
    }

    private mutating func note(_ field: String, _ rule: MergeRule?) {
        if let index = fieldConflicts.firstIndex(where: { $0.field == field }) {
            if rule != nil { fieldConflicts[index].rule = rule }
        } else {
            fieldConflicts.append((field, rule))
        }
    }

    /// The conflicts, with each field's value in the three inputs and what it came to.
    func conflicts(base: DatastoreSnapshot, local: DatastoreSnapshot, remote: DatastoreSnapshot,
                   merged: DatastoreSnapshot) -> [SnapshotMerge.Conflict] {
        var result: [SnapshotMerge.Conflict] = []
        if recordConflict {
            result.append(SnapshotMerge.Conflict(tableID: tableID, recordID: recordID, field: nil, base: nil, local: nil, remote: nil,
                                                 rule: nil, outcome: "deleted"))
        }
        for (field, rule) in fieldConflicts {
            let b = base[tableID, recordID]?[field], l = local[tableID, recordID]?[field], r = remote[tableID, recordID]?[field]
            let now = merged[tableID, recordID]?[field]
            let outcome = now == r ? "remote" : now == l ? "local" : rule == .sum ? "sum" : "merged"
            result.append(SnapshotMerge.Conflict(tableID: tableID, recordID: recordID, field: field, base: b, local: l, remote: r,
                                                 rule: rule, outcome: outcome))
        }
        return result
    }
}

extension FieldOperation {
    /// What a put or delete leaves in the field (`.some(nil)` for a delete); nil for a list operation.
    var wholeValue: DatastoreValue?? {
        switch self {
        case .put(let value): .some(value)
        case .delete: .some(nil)
        default: nil
        }
    }
}
