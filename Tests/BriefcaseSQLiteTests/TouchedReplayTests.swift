import Testing
@testable import BriefcaseSQLite
import BriefcaseKit
import BriefcaseTestSupport

/// `TouchedReplay` (the replay over the rows a keyed delta can touch) gives the current rows and
/// the touched stored rows that the replay over every row gives (`Table.replaying`, the
/// reference): random keyed tables with keys alike, changes that change keys, find no row or
/// two, insert keys there already, reduced and full deltas.
@Suite struct TouchedReplayTests {
    static func table(_ random: inout SplitMix) -> (Table, Delta) {
        let schema = Schema(fields: [[SchemaProperty("Name", "ID"), SchemaProperty("InPrimaryKey", "True")],
                                     [SchemaProperty("Name", "Name"), SchemaProperty("InPrimaryKey", "False")],
                                     [SchemaProperty("Name", "Amount"), SchemaProperty("InPrimaryKey", "False")]])
        let fields = [FieldDescriptor(name: "ID", type: .integer), FieldDescriptor(name: "Name", type: .wideString),
                      FieldDescriptor(name: "Amount", type: .integer)]
        let count = 100 + random.below(200)
        func key() -> Value? { random.chance(3) ? nil : .integer(Int64(random.below(count + 20))) }
        var rows: [Row] = []
        for r in 0 ..< count {
            // Mostly ID r; some alike, some NULL.
            let id: Value? = random.chance(5) ? key() : .integer(Int64(r))
            rows.append([id, .wideString(WideText.encode("n\(r)")), random.chance(10) ? nil : .integer(Int64(random.below(1000)))])
        }
        let reduced = random.chance(50)
        var changes: [DeltaChange] = []
        for k in 0 ..< random.below(count / 4) {
            let kind = [ChangeType.insert, .update, .delete][random.below(3)]
            let old: [Value?] = kind == .insert ? [nil, nil, nil] : [key(), nil, random.chance(30) ? .integer(1) : nil]
            var new: [Value?] = kind == .delete ? [nil, nil, nil] : [nil, .wideString(WideText.encode("c\(k)")), .integer(Int64(k))]
            if kind == .insert || random.chance(20) { new[0] = key() }  // inserts, and some updates, carry a (new) key
            changes.append(DeltaChange(type: kind, recordID: Int32(k), oldValues: old, newValues: new))
        }
        let logged = fields.map { LoggedField(name: $0.name, type: $0.type) }
        let delta = Delta(name: "T", loggedFields: logged, keyFields: ["ID"], reducedDeltaFlag: reduced ? 1 : 0, changes: changes)
        // Rows kept as bytes, as a table read from a file keeps them.
        let document = BriefcaseDocument(container: .bin2, file: BriefcaseFile(stream: Bin2Stream(elements: [
            .table(Table(name: "T", schema: schema, fields: fields, rows: rows))])))
        var warnings: [DecodingWarning] = []
        let read = try! BriefcaseDocument.decode(try! document.encode(), as: .bin2, warnings: &warnings)
        guard case .table(let stored)? = read.file.stream.elements.first else { fatalError("no table") }
        return (stored, delta)
    }

    @Test func givesWhatTheWholeReplayGives() throws {
        var random = SplitMix(seed: 29)
        var narrowed = 0
        for _ in 0 ..< 300 {
            let (table, delta) = Self.table(&random)
            #expect(table.rows.storedView != nil)
            let whole = table.replaying(delta)
            guard let touched = TouchedReplay(table, delta) else { continue }
            narrowed += 1
            let current = touched.currentRows(of: table)
            #expect((0 ..< current.count).map(current.row) == whole.rows)
            #expect(touched.touchedSlots == SQLiteTableWriter.touchedSlots(whole, storedRows: table.rows.count))
            #expect(touched.places.count <= table.rows.count)
        }
        #expect(narrowed > 200, "most random tables have few enough changes to be narrowed (\(narrowed))")
    }
}
