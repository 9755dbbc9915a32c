import BriefcaseKit

/// A delta replayed with its conflicts classed (`Table.replaying(_:resolving:)`), as `fold` and
/// `apply` replay one: the replay, its conflicts as `ChangeConflict`s, and what the delta as a
/// whole could not carry over, as `table 'NAME': …` lines.
struct ClassedReplay {
    let replay: DeltaReplay
    let conflicts: [ChangeConflict]
    let notes: [String]

    init(_ delta: Delta, over table: Table, resolution: ConflictResolution) {
        replay = table.replaying(delta, resolving: resolution == .replace ? .replace : .omit)
        conflicts = replay.conflicts.map { conflict in
            let kind: ChangeConflict.Kind = switch conflict.kind {
            case .data: .data
            case .notFound: .notFound
            case .conflict: .conflict
            }
            return ChangeConflict(kind: kind, table: table.name, changeIndex: conflict.changeIndex,
                                  change: delta.changes[conflict.changeIndex], row: conflict.row, message: conflict.message)
        }
        notes = replay.problems.filter { $0.changeIndex == nil }.map { "table '\(table.displayName)': \($0.message)" }
    }
}

extension ChangeConflict {
    /// Every change of `delta` as NOTFOUND: a delta whose table is not there.
    static func notFound(_ delta: Delta, _ message: String) -> [ChangeConflict] {
        delta.changes.enumerated().map { index, change in
            ChangeConflict(kind: .notFound, table: delta.name, changeIndex: index, change: change, row: nil, message: message)
        }
    }
}

extension Table {
    /// The name as messages show it (read as UTF-8).
    var displayName: String { String(decoding: name.bytes, as: UTF8.self) }
}
