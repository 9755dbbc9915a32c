import BriefcaseKit

/// Pending changes made stored rows (Spec/fold.md): what Delphi's `TClientDataSet.MergeChangeLog`
/// does to a dataset, for a whole briefcase.
public enum BriefcaseFold {
    /// A briefcase folded, and what did not fit on the way.
    public struct Result: Sendable {
        /// The briefcase: each table's rows as its pending changes leave them, no delta left;
        /// every other element and property as it was.
        public var document: BriefcaseDocument
        /// The changes that did not fit, in stream order (left out, or applied by `replace`).
        public var conflicts: [ChangeConflict]
        /// What a delta as a whole could not carry over (a logged field that is no column of its
        /// table: its values are left out), as `table 'NAME': …` lines.
        public var notes: [String]
    }

    /// `document` with the pending changes of each table replayed into its stored rows — the rows
    /// `briefcase cat` shows — and its deltas removed; a change that does not fit (§2) is a
    /// conflict, handled as `resolution` says (`abort` leaves it out too: the caller writes
    /// nothing when there is a conflict).
    public static func fold(_ document: BriefcaseDocument, onConflict resolution: ConflictResolution = .abort) -> Result {
        let elements = document.file.stream.elements
        let pairing = ElementPairing(elements)
        var kept: [Element] = []
        var conflicts: [ChangeConflict] = [], notes: [String] = []
        kept.reserveCapacity(elements.count)
        for (i, element) in elements.enumerated() {
            switch element {
            case .table(var table):
                guard let mate = pairing.partner[i], case .delta(let delta) = elements[mate] else {
                    kept.append(element)
                    continue
                }
                let classed = ClassedReplay(delta, over: table, resolution: resolution)
                conflicts += classed.conflicts
                notes += classed.notes
                table.rows = Rows(classed.replay.rows)
                kept.append(.table(table))
            case .delta(let delta):
                // A table's delta is folded with its table; one without a table has no rows to go to.
                guard pairing.partner[i] == nil else { continue }
                conflicts += ChangeConflict.notFound(delta, "no table of this name holds rows for it")
            }
        }
        var folded = document
        folded.file.stream.elements = kept
        return Result(document: folded, conflicts: conflicts, notes: notes)
    }

}
