/// One operation on a list field: `LP`, `LI`, `LD` or `LM` (`FieldOperation`'s list cases).
public enum ListOperation: Hashable, Sendable {
    /// `LP`: replace the element at `at`.
    case put(at: Int, DatastoreAtom)
    /// `LI`: insert so the atom ends up at index `before`.
    case insert(before: Int, DatastoreAtom)
    /// `LD`: remove the element at `at`.
    case delete(at: Int)
    /// `LM`: remove the element at `from` and re-insert it so it ends up at `to`.
    case move(from: Int, to: Int)

    /// The list operation `operation` is; nil for `P`, `D` and `LC`.
    public init?(_ operation: FieldOperation) {
        switch operation {
        case .listPut(let at, let atom): self = .put(at: at, atom)
        case .listInsert(let before, let atom): self = .insert(before: before, atom)
        case .listDelete(let at): self = .delete(at: at)
        case .listMove(let from, let to): self = .move(from: from, to: to)
        case .put, .delete, .listCreate: return nil
        }
    }

    /// The same as a field operation.
    public var fieldOperation: FieldOperation {
        switch self {
        case .put(let at, let atom): .listPut(at: at, atom)
        case .insert(let before, let atom): .listInsert(before: before, atom)
        case .delete(let at): .listDelete(at: at)
        case .move(let from, let to): .listMove(from: from, to: to)
        }
    }
}

/// Operational transform of two concurrent operations on one list (Spec/merge.md §4): Dropbox's
/// Datastore resolved a local, unsynced operation against a remote one the server accepted
/// first by transforming each to apply after the other, so that both orders give the same list.
/// Written from the published rules (`../shared/reference/datastore-format.md` §7) and held to
/// Dropbox's 16,910 published vectors (`ListTransformTests`).
public enum ListTransform {
    /// `local` and `remote` transformed: `local` to apply after `remote`, `remote` after `local`
    /// (nil: the operation is dropped). `localWins` decides two puts at one index (the field's
    /// rule; `remote`, the default, makes it false).
    ///
    /// The rules: a delete beats a put of its element; two deletes of one element drop both; two
    /// inserts at one index put the remote one first, as does a remote insert where a local move
    /// lands from after it; two moves of one element keep the remote one; a moved element keeps
    /// the neighbour it moved next to — the one before it when it moved right, after it when it
    /// moved left — unless the other operation moved that neighbour, and then keeps the other.
    public static func transform(local: ListOperation, remote: ListOperation,
                                 localWins: Bool = false) -> (local: ListOperation?, remote: ListOperation?) {
        switch (local, remote) {
        case (.put(let a, _), .put(let b, _)):
            guard a == b else { return (local, remote) }
            return localWins ? (local, nil) : (nil, remote)
        case (.put(let a, let x), .insert(let b, _)):
            return (.put(at: a >= b ? a + 1 : a, x), remote)
        case (.insert(let a, _), .put(let b, let y)):
            return (local, .put(at: b >= a ? b + 1 : b, y))
        case (.put(let a, let x), .delete(let b)):
            return a == b ? (nil, remote) : (.put(at: a > b ? a - 1 : a, x), remote)
        case (.delete(let a), .put(let b, let y)):
            return a == b ? (local, nil) : (local, .put(at: b > a ? b - 1 : b, y))
        case (.insert(let a, let x), .insert(let b, let y)):
            // At one index the local insert lands after the remote one.
            return a < b ? (local, .insert(before: b + 1, y)) : (.insert(before: a + 1, x), remote)
        case (.insert(let a, let x), .delete(let b)):
            return (.insert(before: a > b ? a - 1 : a, x), .delete(at: b >= a ? b + 1 : b))
        case (.delete(let a), .insert(let b, let y)):
            return (.delete(at: a >= b ? a + 1 : a), .insert(before: b > a ? b - 1 : b, y))
        case (.delete(let a), .delete(let b)):
            if a == b { return (nil, nil) }
            return (.delete(at: a > b ? a - 1 : a), .delete(at: b > a ? b - 1 : b))
        case (.put(let a, let x), .move(let f, let t)):
            return (.put(at: moved(a, f, t), x), remote)
        case (.move(let f, let t), .put(let b, let y)):
            return (local, .put(at: moved(b, f, t), y))
        case (.delete, .move):
            return deleteAgainstMove(delete: local, move: remote)
        case (.move, .delete):
            let (d, m) = deleteAgainstMove(delete: remote, move: local)
            return (m, d)
        case (.insert(let a, let x), .move(let f, let t)):
            let point = insertionPoint(a, f, t, insertFirst: false)
            return (.insert(before: point, x), .move(from: f >= a ? f + 1 : f, to: t >= point ? t + 1 : t))
        case (.move(let f, let t), .insert(let b, let y)):
            let point = insertionPoint(b, f, t, insertFirst: true)
            return (.move(from: f >= b ? f + 1 : f, to: t >= point ? t + 1 : t), .insert(before: point, y))
        case (.move(let f1, let t1), .move(let f2, let t2)):
            return moveAgainstMove(f1, t1, f2, t2)
        }
    }

    /// Where the element at `position` is once the element at `from` moved to `to`.
    static func moved(_ position: Int, _ from: Int, _ to: Int) -> Int {
        if position == from { return to }
        let removed = position > from ? position - 1 : position
        return removed >= to ? removed + 1 : removed
    }

    /// An insertion index (before the element at `before`) once the element at `from` moved to
    /// `to`: still before that element, or — when it was the moved one — where the moved one was.
    /// Where the moved element lands right before that element from further on, an insert that
    /// goes first (`insertFirst`, the remote one) stays before it.
    static func insertionPoint(_ before: Int, _ from: Int, _ to: Int, insertFirst: Bool) -> Int {
        if before == from { return before == 0 ? 0 : moved(before - 1, from, to) + 1 }
        let point = moved(before, from, to)
        return insertFirst && from > before && point == to + 1 ? to : point
    }

    /// A delete (of `at`) against a move (`from` → `to`): the delete follows the element; a move
    /// of the deleted element is dropped. Returns (the delete, the move), transformed.
    static func deleteAgainstMove(delete: ListOperation, move: ListOperation) -> (ListOperation?, ListOperation?) {
        guard case .delete(let at) = delete, case .move(let from, let to) = move else { return (delete, move) }
        if at == from { return (.delete(at: to), nil) }
        let deleted = moved(at, from, to)
        return (.delete(at: deleted), .move(from: from > at ? from - 1 : from, to: deleted < to ? to - 1 : to))
    }

    /// Local move of X (`f1` → `t1`) against remote move of Z (`f2` → `t2`).
    static func moveAgainstMove(_ f1: Int, _ t1: Int, _ f2: Int, _ t2: Int) -> (local: ListOperation?, remote: ListOperation?) {
        if f1 == f2 {
            // One element moved twice: the remote move stands, unless it moved nothing.
            if f2 == t2 && f1 != t1 { return (.move(from: f1, to: t1), nil) }
            return (nil, f2 == t2 ? nil : .move(from: t1, to: t2))
        }
        let from = moved(f1, f2, t2), to: Int
        if f1 == t1 {
            to = from
        } else {
            // The position of the element at original `index` once Z moved, X left out.
            func withoutX(_ index: Int) -> Int {
                let position = moved(index, f2, t2)
                return from < position ? position - 1 : position
            }
            // X's neighbours where it landed, as original indices: before it and after it.
            let previous = (t1 - 1) + (t1 - 1 >= f1 ? 1 : 0), next = t1 + (t1 >= f1 ? 1 : 0)
            if t1 > f1 {
                to = previous == f2 ? withoutX(next) : withoutX(previous) + 1
            } else if next == f2 {
                to = t1 == 0 ? 0 : withoutX(previous) + 1
            } else {
                to = withoutX(next)
            }
        }
        return (.move(from: from, to: to), .move(from: moved(f2, f1, t1), to: moved(t2, from, to)))
    }
}
