import BriefcaseKit
import Foundation
import Testing
import BriefcaseTestSupport

/// Issue 11, item 8 (Spec/robustness.md §8.8): whatever `convert` writes, `convert` reads back.
/// Each seeded document (`RoundTripDocument`) is written as JSON by the library's encoder; for
/// every output format, `convert doc.json out` either refuses — exit 1, one line, and only where
/// the document cannot be stored in that format — or writes `out`, and then `convert out
/// back.json` must succeed and give the document again, byte for byte, up to what the format
/// does not carry by design:
///
/// - json, snapshot: nothing; back.json is doc.json.
/// - dabriefcase: the container (a bin2 document comes back as `dabriefcase`, with `properties: []`).
/// - bin2: the container; a document with properties or header padding is refused (a bare stream
///   holds neither).
/// - folder: refused when a property name holds a character XML cannot carry (its plist could
///   not be read back); else the container; the header padding (a table file has none,
///   `Properties.plist` holds only the properties); and the element order: each table's dataset
///   and delta are one file, the files are read in file-name order (Spec/folder-briefcase.md
///   §2.3, §2.4), computed here from the names the generator gave.
///
/// Every third document goes through gzip (`out.json.gz` …; not a folder).
///
/// Binary outputs are read back with the document's `--encoding`: a binary file stores bytes,
/// and without it the reader guesses a code page, which changes how the JSON shows them.
struct RoundTripPropertyTests {
    enum Format: String, CaseIterable {
        case dabriefcase, bin2, folder, json, snapshot
        var fileName: String {
            switch self {
            case .dabriefcase: return "out.daBriefcase"
            case .bin2: return "out.bin2"
            case .folder: return "out.briefcase"
            case .json: return "out.json"
            case .snapshot: return "out.snapshot.json"
            }
        }
        var isBinary: Bool { [.dabriefcase, .bin2, .folder].contains(self) }
    }

    /// 36 documents (about 15 s on two cores in a debug build); `BRIEFCASE_ROUNDTRIP_SEEDS=400`
    /// for a longer search (400: about 2.5 min).
    @Test(arguments: 0..<(ProcessInfo.processInfo.environment["BRIEFCASE_ROUNDTRIP_SEEDS"].flatMap { UInt64($0) } ?? 36))
    func everyDocumentThatConvertWritesReadsBack(seed: UInt64) throws {
        let made = RoundTripDocument.make(seed: seed)
        let original = try RoundTripDocument.json(made.document, codePage: made.codePage)
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("doc.json").path
        try Data(original).write(to: URL(fileURLWithPath: input))

        for format in Format.allCases {
            // Every third document through gzip (a trailing .gz), which every format but a folder takes.
            let out = dir.appendingPathComponent(format.fileName + (seed % 3 == 0 && format != .folder ? ".gz" : "")).path
            let back = dir.appendingPathComponent("back-\(format.rawValue).json").path
            let refusals = (format.isBinary ? made.bin2Refusals : []) + (format == .bin2 ? made.bareStreamRefusal.map { [$0] } ?? [] : [])
                + (format == .folder ? made.folderRefusal.map { [$0] } ?? [] : [])
            let there = try CLITests.run(["convert", input, out])
            guard there.status == 0 else {
                #expect(there.status == 1, "seed \(seed), → \(format): exit \(there.status): \(there.stderr)")
                #expect(there.stderr.hasPrefix("briefcase: ") && there.stderr.filter { $0 == "\n" }.count == 1 && there.stderr.hasSuffix("\n"),
                        "seed \(seed), → \(format): one line: \(there.stderr)")
                #expect(refusals.contains { there.stderr.contains($0) }, "seed \(seed), → \(format): refused unexpectedly: \(there.stderr)")
                #expect(!FileManager.default.fileExists(atPath: out), "seed \(seed), → \(format): nothing written")
                continue
            }
            #expect(refusals.isEmpty, "seed \(seed), → \(format): written although it cannot be (\(refusals))")
            let encoding = format.isBinary ? ["--encoding", made.codePage.name] : []
            let again = try CLITests.run(["convert", out, back] + encoding)
            #expect(again.status == 0, "seed \(seed), \(format) → json: what convert wrote does not read back: \(again.stderr)")
            guard again.status == 0 else { continue }
            let expected = format == .json || format == .snapshot ? original
                : try RoundTripDocument.json(Self.expected(made, as: format), codePage: made.codePage)
            let actual = [UInt8](FileManager.default.contents(atPath: back) ?? Data())
            let same = actual == expected // (not inside #expect, which would print every byte)
            #expect(same, "seed \(seed), through \(format): \(Self.firstDifference(actual, expected))")
        }
    }

    /// The seeds of the property test make the edge shapes `RoundTripDocument` promises (so a
    /// change to the generator cannot quietly make the property test weaker).
    @Test func theDocumentsHoldEveryEdgeShape() {
        var seen = Set<String>()
        var typesWithValues = Set<UInt8>()
        for seed in UInt64(0)..<36 {
            let made = RoundTripDocument.make(seed: seed)
            let file = made.document.file
            seen.insert("container \(made.document.container)")
            seen.insert("code page \(made.codePage.name)")
            if !file.properties.isEmpty { seen.insert("properties") }
            if Set(file.properties.map(\.name)).count < file.properties.count { seen.insert("repeated property name") }
            if file.properties.contains(where: { $0.name.bytes.contains(1) }) { seen.insert("property name XML cannot carry") }
            if !file.headerPadding.isEmpty { seen.insert("header padding") }
            for (i, element) in file.stream.elements.enumerated() {
                switch element {
                case .table(let table):
                    if table.fields.isEmpty { seen.insert("no fields, \(min(table.rows.count, 4)) rows") }
                    if table.fields.isEmpty && table.rows.count > 4 { seen.insert("no fields, \(table.rows.count) rows") }
                    if !table.fields.isEmpty && table.rows.isEmpty { seen.insert("fields, no rows") }
                    if table.schema == nil { seen.insert("no schema, \(table.schemaEndWhenAbsent)") }
                    if table.schema?.parameters.isEmpty == false { seen.insert("schema parameters") }
                    if table.fields.contains(where: { $0.type.storage == nil }) { seen.insert("unknown type") }
                    for row in table.rows {
                        for (value, field) in zip(row, table.fields) where value != nil { typesWithValues.insert(field.type.rawValue) }
                    }
                case .delta(let delta):
                    seen.insert("delta \(delta.layout)".prefix(22).description)
                    if delta.changes.contains(where: { !$0.type.isKnown }) { seen.insert("unknown change type") }
                    if delta.changes.contains(where: { !$0.status.isKnown }) { seen.insert("unknown status") }
                    let tables = file.stream.elements.filter { $0.kind == .table && $0.name == delta.name }
                    if tables.isEmpty { seen.insert("orphan delta") }
                    if file.stream.elements[(i + 1)...].contains(where: { $0.kind == .table && $0.name == delta.name }) { seen.insert("delta first") }
                }
            }
        }
        let expected: Set<String> = [
            "container dabriefcase", "container bin2", "code page utf-8", "code page gbk", "properties", "header padding",
            "repeated property name", "property name XML cannot carry",
            "no fields, 0 rows", "no fields, 1 rows", "no fields, 3 rows", "no fields, 65536 rows", "no fields, 70000 rows",
            "fields, no rows", "no schema, zero", "no schema, position", "schema parameters", "unknown type",
            "delta full", "delta countOnly", "delta mismatchedCounts", "unknown change type", "unknown status", "orphan delta", "delta first",
        ]
        #expect(expected.subtracting(seen).isEmpty, "missing: \(expected.subtracting(seen).sorted())")
        #expect(Set(RandomBriefcase.types.map(\.rawValue)).subtracting(typesWithValues).isEmpty,
                "types without a value: \(Set(RandomBriefcase.types.map(\.rawValue)).subtracting(typesWithValues).sorted())")
    }

    /// The document a binary format gives back (see the type's comment).
    static func expected(_ made: RoundTripDocument, as format: Format) -> BriefcaseDocument {
        var document = made.document
        document.container = format == .bin2 ? .bin2 : .dabriefcase
        if format == .folder {
            document.file.headerPadding = .empty
            document.file.stream.elements = folderOrder(document.file.stream.elements, names: made.displayNames)
        }
        return document
    }

    /// Elements grouped as a folder writer groups them — an element joins the first group of the
    /// same name (ASCII case-insensitive) that has no element of its kind yet — and the groups in
    /// the order of their file names, `NAME.daBriefcase` (the generator's names need no escape).
    static func folderOrder(_ elements: [Element], names: [ByteString: String]) -> [Element] {
        var groups: [(name: String, elements: [Element])] = []
        for element in elements {
            let name = names[element.name]!
            if let g = groups.firstIndex(where: { group in
                group.name.lowercased() == name.lowercased() && !group.elements.contains { $0.kind == element.kind }
            }) {
                groups[g].elements.append(element)
            } else {
                groups.append((name, [element]))
            }
        }
        return groups.sorted { $0.name + ".daBriefcase" < $1.name + ".daBriefcase" }.flatMap(\.elements)
    }

    /// Where two JSON documents first differ, by line, for the failure message.
    static func firstDifference(_ actual: [UInt8], _ expected: [UInt8]) -> String {
        let a = String(decoding: actual, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let e = String(decoding: expected, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard let line = zip(a, e).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset else {
            return "same lines, \(a.count) against \(e.count) expected"
        }
        return "line \(line + 1): got \(a[line].prefix(300)) expected \(e[line].prefix(300))"
    }
}
