import ArgumentParser
import BriefcaseKit
import BriefcaseSQLite

/// The inputs of `query` and the connection its SQL runs in (Spec/sqlite-mapping.md §6): one
/// input is the connection's own database, its tables unqualified; several (or one named with
/// `--as`) are each a schema of one connection, named after the file's stem or as `--as` says,
/// their tables reachable qualified (`a.Orders`) and, where only one input has a table of that
/// name, unqualified too (SQLite looks a name up in each schema in turn).
struct QueryInputs {
    /// Each input's path and schema name (nil: the connection's own database).
    let inputs: [(path: String, name: String?)]

    /// `paths` named after their stems, then `named` (`--as NAME=PATH`) as given; the schema
    /// names a collision changed are told (`notes`).
    init(paths: [String], named: [(name: String, path: String)]) throws {
        guard paths.count != 1 || !named.isEmpty else {
            inputs = [(paths[0], nil)]
            return
        }
        try Self.checkNames(named.map(\.name))
        var taken = Set(["main", "temp"] + named.map { $0.name.lowercased() })
        var inputs: [(path: String, name: String?)] = []
        for path in paths {
            let stem = Self.schemaName(path)
            var name = stem, n = 2
            while !taken.insert(name.lowercased()).inserted {
                name = "\(stem)_\(n)"
                n += 1
            }
            if name != stem { Console.note("\(path): schema \(name) (\(stem) is taken)") }
            inputs.append((path, name))
        }
        self.inputs = inputs + named.map { ($0.path, $0.name) }
    }

    /// Refuses `--as` names that are SQLite's own (`main`, `temp`) or given twice (SQLite
    /// compares them without ASCII case).
    static func checkNames(_ names: [String]) throws {
        var taken: Set<String> = ["main", "temp"]
        for name in names where !taken.insert(name.lowercased()).inserted {
            throw ValidationError("--as \(name): the schema name \(name) is \(["main", "temp"].contains(name.lowercased()) ? "SQLite's own" : "given twice")")
        }
    }

    /// `--as NAME=PATH` read: NAME an SQL identifier (letters, digits, _; not a digit first).
    static func named(_ text: String) throws -> (name: String, path: String) {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex, text.index(after: equals) != text.endIndex else {
            throw ValidationError("--as takes NAME=PATH; not '\(TerminalText.escaped(text))'")
        }
        let name = String(text[..<equals])
        guard isIdentifier(name) else {
            throw ValidationError("--as \(TerminalText.escaped(name)): a schema name is letters, digits and _, not starting with a digit")
        }
        return (name, String(text[text.index(after: equals)...]))
    }

    /// The schema name of an input: its file's name without directories and without the
    /// extensions of its format (`.snapshot.json`, `.daBriefcase`, `.gz`, …), every character
    /// that is not a letter, a digit or _ made _, and _ put before a leading digit; `stdin` for -.
    static func schemaName(_ path: String) -> String {
        guard path != "-" else { return "stdin" }
        var name = Substring(path)
        while name.hasSuffix("/") { name.removeLast() }
        if let slash = name.lastIndex(of: "/") { name = name[name.index(after: slash)...] }
        var text = Gzip.removingSuffix(String(name))
        if let suffix = FileFormat.extensions.first(where: { text.lowercased().hasSuffix($0.suffix) })?.suffix, text.count > suffix.count {
            text.removeLast(suffix.count)
        }
        var result = String(text.unicodeScalars.map { isWordCharacter($0) ? Character($0) : "_" })
        if result.isEmpty { result = "input" }
        if result.first!.isASCII && result.first!.isNumber { result = "_" + result }
        return result
    }

    private static func isWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_")
    }

    private static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy(isWordCharacter)
    }

    /// The connection: each input opened (an SQLite database read-only and checked) or read on
    /// demand (a briefcase: its tables of rows are virtual tables, each read when a statement
    /// first reads it, `OnDemandDatabase`), then held under its schema name.
    func open(options: InputOptions) throws -> QueryConnection {
        try connect(try inputs.map { path, _ in
            if let read = try Self.onDemand(path, options: options) { return read }
            let (database, readOnly) = try Self.database(path, options: options)
            return .database(database, readOnly: readOnly)
        })
    }

    /// The same inputs, those whose 8-bit strings contradicted the code page their heads suggest
    /// read whole — as `convert` reads them, every string looked at — into databases in memory.
    func reopen(_ connection: QueryConnection) throws -> QueryConnection {
        try connect(try connection.opened.map { input in
            guard case .onDemand(let database, let tables, _) = input, database.contradictsHeads else { return input }
            return .database(try tables.written(), readOnly: false)
        })
    }

    /// One connection over the opened inputs: the one input's own, or each input a schema.
    private func connect(_ opened: [OpenedQueryInput]) throws -> QueryConnection {
        var parts: [(name: String, database: SQLiteDatabase)] = []
        for ((path, name), input) in zip(inputs, opened) {
            guard let name else {
                Self.addChangeViews(input.database, of: path, into: input.readOnly ? "temp" : "main")
                return QueryConnection(database: input.database, opened: opened)
            }
            parts.append((name, input.database))
        }
        let onDemand: [(name: String, tables: VirtualTables)] = zip(inputs, opened).compactMap { input, opened in
            guard case .onDemand(let database, _, _) = opened else { return nil }
            return (input.name!, database.virtualTables)
        }
        let combined = try SQLiteDatabase.combining(parts, virtualTables: onDemand.isEmpty ? nil : VirtualTables.combining(onDemand))
        for (path, name) in inputs { Self.addChangeViews(combined, of: path, reading: name!, into: name!) }
        return QueryConnection(database: combined, opened: opened)
    }

    /// A briefcase's database read on demand, and how to tell what reading it met; nil for an
    /// SQLite input, or a briefcase whose heads do not all read (reading it whole tells why).
    private static func onDemand(_ path: String, options: InputOptions) throws -> OpenedQueryInput? {
        guard try options.format(of: path) != .sqlite else { return nil }
        let input = try TablesInput(path, options: options)
        let head: BriefcaseHead
        var tell: () -> Void = {}
        switch input.reading {
        case .whole(let document, let codePage):
            head = BriefcaseHead(container: document.container, codePage: codePage, properties: document.file.properties,
                                 headerPadding: document.file.headerPadding)
        case .elements(let source, let opened):
            let detection = input.compared.headsDetection?.detection
            head = OnDemandDatabase.head(of: opened.elements, tables: input.compared, encoding: opened.given)
            tell = {
                var report = ElementConversionReport(codePage: head.codePage)
                report.detection = detection
                report.warnings = input.compared.warningsSoFar
                source.report(report, textOutput: true, folderNote: opened.folderNote, spooled: opened.spooled)
            }
        }
        guard let database = try OnDemandDatabase.open(input.compared, head: head) else { return nil }
        for note in database.notes { Console.note("\(path): \(note)") }
        return .onDemand(database, input, tell: tell)
    }

    /// Each table's pending changes as a view of plain columns (`<table>_changes`); what could
    /// not be made told on standard error.
    private static func addChangeViews(_ database: SQLiteDatabase, of path: String, reading source: String = "main",
                                       into target: String) {
        // The views are a convenience: a database whose mapping they cannot be made of is queried without them.
        do {
            for note in try database.addChangeViews(reading: source, into: target) { Console.note("\(path): \(note)") }
        } catch {
            Console.note("\(path): no <table>_changes views: \(error.message)")
        }
    }

    /// One input as a database, and whether it is the input itself opened read-only.
    private static func database(_ path: String, options: InputOptions) throws -> (SQLiteDatabase, readOnly: Bool) {
        let format = try options.format(of: path)
        if format == .sqlite {
            try GzipInput.refuseFolder(.sqlite, path)
            guard try FileIO.readPrefix(path, count: 16).elementsEqual(FileFormat.sqliteSignature) else {
                throw BriefcaseError(.invalidData, "not an SQLite 3 database (it does not start with 'SQLite format 3')", offset: 0, file: path)
            }
            return (try QueryCommand.openReadable(path), true)
        }
        var sink = SQLiteSink(path: nil)
        try options.source(path, format: format).readNamingInput(into: &sink, textOutput: true)
        return (sink.database!, false)
    }
}

/// One input of `query`, opened.
enum OpenedQueryInput {
    /// A briefcase read on demand, the input it reads, and how to tell what reading it met.
    case onDemand(OnDemandDatabase, TablesInput, tell: () -> Void)
    /// An SQLite input opened read-only, or a briefcase written into a database in memory.
    case database(SQLiteDatabase, readOnly: Bool)

    var database: SQLiteDatabase {
        switch self {
        case .onDemand(let read, _, _): return read.database
        case .database(let database, _): return database
        }
    }

    var readOnly: Bool { if case .database(_, true) = self { true } else { false } }
}

/// The connection `query` runs its statement in, and its inputs as opened.
struct QueryConnection {
    let database: SQLiteDatabase
    let opened: [OpenedQueryInput]

    private var onDemand: [OnDemandDatabase] {
        opened.compactMap { if case .onDemand(let read, _, _) = $0 { read } else { nil } }
    }
    /// The first error reading a table met.
    var failure: BriefcaseError? { onDemand.lazy.compactMap(\.failure).first }
    /// Whether a string of a table read contradicts the code page its briefcase's heads suggest.
    var contradictsHeads: Bool { onDemand.contains { $0.contradictsHeads } }

    /// Tells what reading each input on demand met (its warnings, its code page).
    func tell() {
        for case .onDemand(_, _, let tell) in opened { tell() }
    }
}
