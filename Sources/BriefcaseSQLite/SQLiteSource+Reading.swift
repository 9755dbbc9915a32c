import BriefcaseKit

extension SQLiteSource {
    /// Reads the briefcase into `sink`: the elements in their order, each table's edits as its
    /// pending delta (a delta new to a table goes before it, as .NET writes them). Returns what
    /// the edits of each edited table became, and what was carried from `_briefcase_properties`.
    /// A sink that takes heads only (`info`) gets each element's head and count from its bytes:
    /// no row of any table is read, so the edits made with SQL are not looked for. On an error
    /// the sink is abandoned.
    @discardableResult
    public func read<Sink: BriefcaseSink>(into sink: inout Sink, encoding: CodePage? = nil) throws(BriefcaseError) -> [TableEdits] {
        do throws(BriefcaseError) {
            let codePage = try writtenCodePage()
            var propertyNotes: [String] = []
            let head = try head(encoding: encoding, written: codePage, notes: &propertyNotes)
            let entries = try entries()
            let carried = propertyNotes.isEmpty ? [] : [TableEdits(table: SQLiteMapping.propertiesTable, notes: propertyNotes)]
            if sink.needs.headsOnly {
                try sink.begin(head)
                for (index, entry) in entries.enumerated() { try sink.element(summary: try summary(entry, codePage: codePage), at: index) }
                try sink.finish()
                return carried
            }
            guard sink.needs.headsFirst else {
                try sink.begin(head)
                let edits = try stream(entries, codePage: codePage, into: &sink)
                try sink.finish()
                return carried + edits
            }
            let (plan, edits) = try plan(entries, codePage: codePage)
            // Heads as `info` reads them: a stored element's from its bytes, no row decoded.
            var heads: [Element] = []
            for step in plan {
                switch step {
                case .stored(let entry): heads.append(try summary(entry, codePage: codePage).head)
                case .edited(let delta): heads.append(Element.delta(delta).head)
                }
            }
            let order = try sink.prepare(heads: heads)
            try sink.begin(head)
            for index in order ?? Array(plan.indices) {
                switch plan[index] {
                case .stored(let entry): try sink.element(try element(entry, codePage: codePage), at: index)
                case .edited(let delta): try sink.element(.delta(delta), at: index)
                }
            }
            try sink.finish()
            return carried + edits
        } catch {
            sink.abandon()
            throw error
        }
    }

    /// An element to give: stored (by its entry), or a delta the edits made.
    enum Step {
        case stored(Entry)
        case edited(Delta)
    }

    /// The table of `entry` and the delta its changes go with (nil: none, or not this table's).
    private func tableAndDelta(_ entry: Entry, pairs: [Int: Entry], codePage: CodePage) throws(BriefcaseError) -> (Table, Delta?, Entry?)? {
        guard case .table(let table) = try element(entry, codePage: codePage) else { return nil }
        guard let deltaEntry = pairs[entry.position], case .delta(let delta) = try element(deltaEntry, codePage: codePage),
              namesMatch(delta.name, table.name) else { return (table, nil, nil) }
        return (table, delta, deltaEntry)
    }

    /// The elements to give, in order, with each edited table's delta replaced (or a new one
    /// before the table), and what the edits became.
    func plan(_ entries: [Entry], codePage: CodePage) throws(BriefcaseError) -> ([Step], [TableEdits]) {
        let pairs = Self.deltasOfTables(entries)
        var replaced: [Int: Delta] = [:], before: [Int: Delta] = [:]
        var allEdits: [TableEdits] = []
        for entry in entries where entry.kind == .table && entry.currentTable != nil {
            guard let (table, delta, deltaEntry) = try tableAndDelta(entry, pairs: pairs, codePage: codePage) else { continue }
            let (edited, edits) = try self.edits(of: table, delta: delta, entry: entry, codePage: codePage)
            if edits.hasEdits || !edits.notes.isEmpty { allEdits.append(edits) }
            guard let edited else { continue }
            if let deltaEntry { replaced[deltaEntry.position] = edited } else { before[entry.position] = edited }
        }
        var steps: [Step] = []
        for entry in entries {
            if let delta = before[entry.position] { steps.append(.edited(delta)) }
            steps.append(replaced[entry.position].map(Step.edited) ?? .stored(entry))
        }
        return (steps, allEdits)
    }

    /// The elements into a sink that takes them in stream order, each decoded once: a table is
    /// compared with its current rows when its delta comes (a delta before its table: the table
    /// is decoded then and kept for its turn), or at its own turn (its new delta handed over
    /// first, or kept for its delta's turn). What `plan` does for a sink that needs heads first.
    func stream<Sink: BriefcaseSink>(_ entries: [Entry], codePage: CodePage, into sink: inout Sink) throws(BriefcaseError) -> [TableEdits] {
        let pairs = Self.deltasOfTables(entries)
        // The tables compared for edits whose delta comes first: delta position → table entry.
        var tableOfEarlyDelta: [Int: Entry] = [:]
        for entry in entries where entry.kind == .table && entry.currentTable != nil {
            if let delta = pairs[entry.position], delta.position < entry.position { tableOfEarlyDelta[delta.position] = entry }
        }
        var held: [Int: Table] = [:], replacements: [Int: Delta] = [:]
        var allEdits: [TableEdits] = []
        var index = 0
        func hand(_ element: Element) throws(BriefcaseError) {
            try sink.element(element, at: index)
            index += 1
        }
        func note(_ edits: TableEdits) { if edits.hasEdits || !edits.notes.isEmpty { allEdits.append(edits) } }
        for entry in entries {
            switch entry.kind {
            case .delta:
                if let replacement = replacements.removeValue(forKey: entry.position) {
                    try hand(.delta(replacement))
                    continue
                }
                guard case .delta(var delta) = try element(entry, codePage: codePage) else { continue }
                if let tableEntry = tableOfEarlyDelta[entry.position], case .table(let table) = try element(tableEntry, codePage: codePage) {
                    held[tableEntry.position] = table
                    if namesMatch(delta.name, table.name) {
                        let (edited, edits) = try self.edits(of: table, delta: delta, entry: tableEntry, codePage: codePage)
                        note(edits)
                        if let edited { delta = edited }
                    } else {
                        note(try self.edits(of: table, delta: nil, entry: tableEntry, codePage: codePage).1)
                    }
                }
                try hand(.delta(delta))
            case .table:
                if let table = held.removeValue(forKey: entry.position) {
                    try hand(.table(table))
                    continue
                }
                guard case .table(let table) = try element(entry, codePage: codePage) else { continue }
                if entry.currentTable != nil {
                    var delta: Delta?, deltaEntry = pairs[entry.position]
                    if let later = deltaEntry, case .delta(let found) = try element(later, codePage: codePage), namesMatch(found.name, table.name) {
                        delta = found
                    } else {
                        deltaEntry = nil
                    }
                    let (edited, edits) = try self.edits(of: table, delta: delta, entry: entry, codePage: codePage)
                    note(edits)
                    if let edited {
                        if let deltaEntry { replacements[deltaEntry.position] = edited } else { try hand(.delta(edited)) }
                    } else if let deltaEntry, let delta {
                        replacements[deltaEntry.position] = delta  // decoded already: not again at its turn
                    }
                }
                try hand(.table(table))
            }
        }
        return allEdits
    }
}
