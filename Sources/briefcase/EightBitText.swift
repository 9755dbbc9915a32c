import BriefcaseKit
import BriefcaseMerge

/// 8-bit text, whose meaning depends on a code page: what `apply` and `merge` look for before
/// carrying a briefcase's values into another's (Spec/fold.md §5, Spec/merge.md §3).
enum EightBitText {
    /// The first 8-bit string with a byte beyond ASCII among `values`, as text for a message.
    static func firstNonASCII(_ values: some Sequence<Value?>) -> String? {
        for case .ansiString(let text)? in values where !text.bytes.allSatisfy({ $0 < 0x80 }) {
            return String(decoding: text.bytes, as: UTF8.self)
        }
        return nil
    }

    /// The same among the values of `elements`: the changes of deltas, the rows of tables.
    static func firstNonASCII(in elements: some Sequence<Element>) -> String? {
        for element in elements {
            switch element {
            case .delta(let delta):
                for change in delta.changes {
                    if let text = firstNonASCII(change.oldValues) ?? firstNonASCII(change.newValues) { return text }
                }
            case .table(let table):
                for row in table.rows { if let text = firstNonASCII(row) { return text } }
            }
        }
        return nil
    }

    /// The same among what a merge carries into its output or its report: the elements it
    /// writes in place of BASE's, and its conflicts' names and values.
    static func firstNonASCII(in plan: ThreeWayMerge.Plan) -> String? {
        if let text = firstNonASCII(in: plan.edits.byElement.values.joined().compactMap { $0 }) { return text }
        for conflict in plan.conflicts {
            let names = [conflict.table, conflict.field?.name].compactMap { $0 }.map { Value.ansiString($0) }
            if let text = firstNonASCII(names + conflict.key + [conflict.base, conflict.local, conflict.remote]) { return text }
        }
        return nil
    }
}
