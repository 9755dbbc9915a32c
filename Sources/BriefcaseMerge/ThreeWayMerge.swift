import BriefcaseKit

/// A three-way merge of briefcases (Spec/merge.md §1–3): what LOCAL and REMOTE each changed since
/// BASE, put together with the Datastore's rules.
public enum ThreeWayMerge {
    /// The rules by field, and the one for every other field.
    public struct Rules: Sendable {
        /// The rule of fields no `byField` entry names (`remote` by default, as the Datastore's).
        public var defaultRule: MergeRule
        /// Rules for single fields: (table, field, rule), names in ASCII letters without case.
        public var byField: [(table: ByteString, field: ByteString, rule: MergeRule)]

        /// `defaultRule` for every field but those `byField` names.
        public init(defaultRule: MergeRule = .remote, byField: [(table: ByteString, field: ByteString, rule: MergeRule)] = []) {
            self.defaultRule = defaultRule
            self.byField = byField
        }

        /// The rule of `field` of `table`.
        public func rule(table: ByteString, field: ByteString) -> MergeRule {
            let tableKey = nameKey(table), fieldKey = nameKey(field)
            return byField.last { nameKey($0.table) == tableKey && nameKey($0.field) == fieldKey }?.rule ?? defaultRule
        }
    }

    /// Something both sides changed, and how it was resolved (one line of `--report`).
    public struct Conflict: Sendable, Equatable {
        /// The table.
        public var table: ByteString
        /// The table's key fields.
        public var keyFields: [FieldDescriptor]
        /// The row's values of them.
        public var key: [Value?]
        /// The field both changed; nil for a row one side deleted while the other updated it.
        public var field: FieldDescriptor?
        /// BASE's value of the field (nil for a row conflict, or NULL).
        public var base: Value?
        /// LOCAL's value.
        public var local: Value?
        /// REMOTE's value.
        public var remote: Value?
        /// The rule applied (nil for a row conflict).
        public var rule: MergeRule?
        /// What was kept: `local`, `remote`, `sum`, `deleted` — or `remote` for a rule that fell back.
        public var outcome: String
    }

    /// The merged briefcase and the conflicts resolved on the way.
    public struct Result: Sendable {
        /// BASE's stored rows with pending changes that take them to the merged rows (or, with
        /// `asStored`, the merged rows stored); everything else BASE's.
        public var document: BriefcaseDocument
        /// Every conflict, in table and row order.
        public var conflicts: [Conflict]
    }

    /// Merges the changes LOCAL and REMOTE made to BASE's tables: rows paired by primary key in
    /// each side's current rows (stored rows with pending changes applied); a row changed on one
    /// side takes that side's; one changed on both follows the Datastore's row cases and then,
    /// field by field, `rules`. Errors: a table of BASE that a side lacks, or whose fields differ,
    /// a table without a key, a key two rows hold, a value the merged row cannot take.
    ///
    /// `jobs` above 1 merges tables on that many threads (the result is the same as with one).
    public static func merge(base: BriefcaseDocument, local: BriefcaseDocument, remote: BriefcaseDocument,
                             rules: Rules = Rules(), asStored: Bool = false, jobs: Int = 1) throws(BriefcaseError) -> Result {
        let plan = try merge(base: BriefcaseTables(base), local: BriefcaseTables(local), remote: BriefcaseTables(remote),
                             rules: rules, asStored: asStored, jobs: jobs)
        var result = base
        result.file.stream.elements = plan.edits.applied(to: base.file.stream.elements)
        return Result(document: result, conflicts: plan.conflicts)
    }

    /// What merging gives, before anything is written: BASE's elements to edit — pending deltas
    /// replaced or added (or, `asStored`, tables' rows stored and deltas dropped) — and the
    /// conflicts.
    package struct Plan: Sendable {
        package var edits: ElementEdits
        package var conflicts: [Conflict]
        /// Whether all that LOCAL's and REMOTE's merged tables hold other than BASE's bytes —
        /// their deltas, their stored rows that are not BASE's — keeps to the code page
        /// `sidesChecked` stands for (true when nothing was checked).
        package var sidesHold = (local: true, remote: true)
    }

    /// The same of three briefcases read table by table (Spec/merge.md §3, "Speed and memory"):
    /// each of BASE's tables is read with the sides' tables of its name when it is merged — from
    /// a binary briefcase mapped, no copy — and let go after, so memory holds the tables being
    /// merged and what merging them gave (the rows that changed), never a whole briefcase.
    ///
    /// `sidesChecked`, BASE's code page as its heads say, is what each side's text that is not
    /// BASE's bytes is checked against on the way (`Plan.sidesHold`): with BASE's own strings
    /// keeping to it, a side that does too reads in BASE's code page, its strings never read twice.
    package static func merge(base: BriefcaseTables, local: BriefcaseTables, remote: BriefcaseTables,
                              rules: Rules = Rules(), asStored: Bool = false, jobs: Int = 1,
                              sidesChecked: StreamingCodePageDetection? = nil) throws(BriefcaseError) -> Plan {
        let baseTables = NamedTables(base), localTables = NamedTables(local), remoteTables = NamedTables(remote)
        // Each of BASE's tables with the sides' tables of its name.
        let work = baseTables.places.indices.map { i in
            let place = baseTables.places[i]
            return TableWork(place: place, sources: (base, local, remote),
                             local: localTables.place(named: place.name, baseTables.ordinals[i]),
                             remote: remoteTables.place(named: place.name, baseTables.ordinals[i]))
        }
        let outcomes: [TableWork.Outcome]
        if jobs > 1 && work.count > 1 {
            // Tables on `jobs` threads, taken in order: the same result, the same first error.
            let merging = WorkDoneAhead<Swift.Result<TableWork.Outcome, BriefcaseError>>(
                sizes: work.map(\.size), jobs: jobs, name: "briefcase merge", outputsAreSmall: true) {
                { n in Swift.Result { () throws(BriefcaseError) in try work[n].merge(rules: rules, asStored: asStored, checking: sidesChecked) } }
            }
            defer { merging.stop() }
            var taken: [TableWork.Outcome] = []
            for n in work.indices { taken.append(try merging.take(n).get()) }
            outcomes = taken
        } else {
            var taken: [TableWork.Outcome] = []
            for item in work { taken.append(try item.merge(rules: rules, asStored: asStored, checking: sidesChecked)) }
            outcomes = taken
        }
        var edits = ElementEdits()
        for (item, outcome) in zip(work, outcomes) {
            switch outcome.change {
            case .delta(let delta)?: edits.setDelta(delta, of: item.place)
            case .stored(let table)?: edits.store(table, at: item.place)
            case nil: break
            }
        }
        return Plan(edits: edits, conflicts: outcomes.flatMap(\.conflicts),
                    sidesHold: (outcomes.allSatisfy(\.sidesHold.local), outcomes.allSatisfy(\.sidesHold.remote)))
    }
}

/// One of BASE's tables to merge: its place, and the sides' tables of its name (nil: none).
struct TableWork: Sendable {
    let place: TablePlace
    let sources: (base: BriefcaseTables, local: BriefcaseTables, remote: BriefcaseTables)
    let local: TablePlace?
    let remote: TablePlace?

    /// The bytes of the three (how much work it is).
    var size: Int { place.size + (local?.size ?? 0) + (remote?.size ?? 0) }

    /// What merging it gave: its conflicts, and its pending delta (or, `asStored`, its rows stored).
    struct Outcome: Sendable {
        var conflicts: [ThreeWayMerge.Conflict]
        var change: Change?
        var sidesHold = (local: true, remote: true)
    }

    enum Change: Sendable {
        case delta(Delta)
        case stored(Table)
    }

    func merge(rules: ThreeWayMerge.Rules, asStored: Bool, checking: StreamingCodePageDetection?) throws(BriefcaseError) -> Outcome {
        let base = try sources.base.read(place)
        defer { sources.base.release(place) }
        let table = base.table!
        func refuse(_ message: String) -> BriefcaseError { BriefcaseError(.invalidModel, "table '\(table.displayName)': \(message)") }
        guard let local, let remote else { throw refuse("LOCAL and REMOTE must both have it (merge changes rows, not tables)") }
        let ours = try sources.local.read(local)
        defer { sources.local.release(local) }
        let theirs = try sources.remote.read(remote)
        defer { sources.remote.release(remote) }
        return try merge(table, base.delta, local: (ours.table!, ours.delta), remote: (theirs.table!, theirs.delta), rules: rules,
                         asStored: asStored, checking: checking, refuse: refuse)
    }

    private func merge(_ table: Table, _ own: Delta?, local: (table: Table, delta: Delta?), remote: (table: Table, delta: Delta?),
                       rules: ThreeWayMerge.Rules, asStored: Bool, checking: StreamingCodePageDetection?,
                       refuse: (String) -> BriefcaseError) throws(BriefcaseError) -> Outcome {
        guard local.table.fields == table.fields, remote.table.fields == table.fields else {
            throw refuse("LOCAL and REMOTE must have BASE's fields (merge changes rows, not schemas)")
        }
        let keys = table.primaryKeyColumns
        guard !keys.isEmpty else { throw refuse("it has no key (InPrimaryKey): rows cannot be paired") }
        // The rows that can differ — by their bytes, or touched by a pending change — when the
        // rows are bytes and the deltas find rows by the key; else every row.
        let changing = ChangingRows(base: (table, own), local: local, remote: remote, keys: keys)
        // A side's text that is not BASE's bytes: its delta, and its stored rows not BASE's.
        func holds(_ side: (table: Table, delta: Delta?), stored: Table?) -> Bool {
            guard let checking else { return true }
            return (side.delta.map { checking.holds(for: .delta($0)) } ?? true) && checking.holds(for: .table(stored ?? side.table))
        }
        let sidesHold = (holds(local, stored: changing?.localStored), holds(remote, stored: changing?.remoteStored))
        var tracker = ChangeTracker(table: changing?.base ?? table, delta: own)
        let merged = try TableMerge(table: table, keys: keys, rules: rules)
            .merge(base: tracker.rows, local: changing?.local ?? currentRows(local.table, local.delta),
                   remote: changing?.remote ?? currentRows(remote.table, remote.delta), refuse: refuse)
        do {
            try tracker.record(updates: merged.updates, deletes: merged.deletes, inserts: merged.inserts)
        } catch {
            throw refuse(error.message)
        }
        if asStored {
            var stored = table
            stored.rows = Rows(changing == nil ? tracker.rows : currentRows(table, tracker.pendingDelta))
            return Outcome(conflicts: merged.conflicts, change: .stored(stored), sidesHold: sidesHold)
        }
        return Outcome(conflicts: merged.conflicts, change: tracker.pendingDelta.map { .delta($0) }, sidesHold: sidesHold)
    }
}

/// A table's current rows: its stored rows with its pending changes replayed.
func currentRows(_ table: Table, _ delta: Delta?) -> [Row] {
    delta.map { table.applying($0).rows } ?? table.rows.array
}

/// One table's rows merged (Spec/merge.md §2): what to record over BASE's current rows.
struct TableMerge {
    let table: Table
    let keys: [Int]
    let rules: ThreeWayMerge.Rules

    struct Outcome: Sendable {
        var updates: [(position: Int, row: Row)] = []
        var deletes: [Int] = []
        var inserts: [Row] = []
        var conflicts: [ThreeWayMerge.Conflict] = []
    }

    init(table: Table, keys: [Int], rules: ThreeWayMerge.Rules) {
        self.table = table
        self.keys = keys
        self.rules = rules
    }

    func merge(base: [Row], local: [Row], remote: [Row], refuse: (String) -> BriefcaseError) throws(BriefcaseError) -> Outcome {
        func index(_ rows: [Row], _ side: String) throws(BriefcaseError) -> [[Value?]: Int] {
            var index: [[Value?]: Int] = [:]
            index.reserveCapacity(rows.count)
            for (position, row) in rows.enumerated() {
                if let first = index.updateValue(position, forKey: key(row)) {
                    throw refuse("two rows of \(side) hold one key (current rows \(first) and \(position)): rows cannot be paired")
                }
            }
            return index
        }
        let baseIndex = try index(base, "BASE"), localIndex = try index(local, "LOCAL"), remoteIndex = try index(remote, "REMOTE")
        var outcome = Outcome()
        for (position, row) in base.enumerated() {
            let k = key(row)
            let merged = resolve(k, row, localIndex[k].map { local[$0] }, remoteIndex[k].map { remote[$0] }, &outcome.conflicts)
            if let merged {
                if merged != row { outcome.updates.append((position, merged)) }
            } else {
                outcome.deletes.append(position)
            }
        }
        // Rows new on LOCAL (with REMOTE's of their key), in LOCAL's order; then those new on REMOTE alone.
        for row in local where baseIndex[key(row)] == nil {
            let k = key(row)
            if let merged = resolve(k, nil, row, remoteIndex[k].map { remote[$0] }, &outcome.conflicts) { outcome.inserts.append(merged) }
        }
        for row in remote where baseIndex[key(row)] == nil && localIndex[key(row)] == nil { outcome.inserts.append(row) }
        return outcome
    }

    func key(_ row: Row) -> [Value?] { keys.map { $0 < row.count ? row[$0] : nil } }

    var keyFields: [FieldDescriptor] { keys.map { table.fields[$0] } }

    /// The merged row of a key (nil: none), BASE's, LOCAL's and REMOTE's rows given (nil: absent).
    func resolve(_ key: [Value?], _ base: Row?, _ local: Row?, _ remote: Row?, _ conflicts: inout [ThreeWayMerge.Conflict]) -> Row? {
        if local == base { return remote }
        if remote == base || local == remote { return local }
        guard let local, let remote else {
            // One side deleted the row, the other updated it: the delete wins either way.
            conflicts.append(ThreeWayMerge.Conflict(table: table.name, keyFields: keyFields, key: key, field: nil, base: nil, local: nil, remote: nil,
                                                    rule: nil, outcome: "deleted"))
            return nil
        }
        // Both updated it, or both inserted it: field by field, BASE NULL where it had no row.
        var merged = remote
        for column in table.fields.indices where column < local.count && column < remote.count {
            let b = base.flatMap { column < $0.count ? $0[column] : nil }, l = local[column], r = remote[column]
            if l == r || l == b { continue }  // (merged holds REMOTE's)
            if r == b { merged[column] = l; continue }
            let field = table.fields[column]
            let rule = rules.rule(table: table.name, field: field.name)
            let (value, fellBack) = rule.resolve(base: b, local: l, remote: r, field: field)
            merged[column] = value
            let outcome = fellBack ? "remote" : rule == .sum ? "sum" : value == l && rule != .remote ? "local" : "remote"
            conflicts.append(ThreeWayMerge.Conflict(table: table.name, keyFields: keyFields, key: key, field: field, base: b, local: l, remote: r,
                                                    rule: rule, outcome: outcome))
        }
        return merged
    }
}
