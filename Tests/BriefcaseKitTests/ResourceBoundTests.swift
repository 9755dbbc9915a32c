import Foundation
import Testing
import BriefcaseTestSupport
@testable import BriefcaseKit

/// Work that grows with what a file declares stays proportional to the file's size: inputs a
/// few hundred KB long, built to make name matching or delta replay compare everything with
/// everything, are handled in well under a second (each took minutes before; Spec/robustness.md,
/// "Resource bounds"). The fuzz targets cannot find these: libFuzzer's inputs stay a few KB long.
@Suite struct ResourceBoundTests {
    static let limit: Duration = .seconds(5)

    /// `n` deltas with distinct names (count-only layout: 4-byte bodies), as a bare stream.
    static func manyDeltas(_ n: Int) throws -> [UInt8] {
        let elements = (0 ..< n).map { Element.delta(Delta(name: ByteString(utf8: "d\($0)"), loggedFields: [], layout: .countOnly)) }
        return try Bin2Encoder.encode(Bin2Stream(elements: elements))
    }

    static func timed<T>(_ body: () throws -> T) rethrows -> (T, Duration) {
        let clock = ContinuousClock()
        let start = clock.now
        let result = try body()
        return (result, clock.now - start)
    }

    /// Validation checks names for duplicates through a dictionary (it compared every pair).
    @Test func validatingManyElementsIsLinear() throws {
        let bytes = try Self.manyDeltas(20_000)
        let (report, time) = Self.timed { Validator.validate(bytes: bytes, container: .bin2, path: "many.bin2") }
        #expect(report.valid, "\(report.errors.prefix(3))")
        #expect(time < Self.limit, "validate took \(time)")
        // Duplicates are still found, whichever letter case.
        let duplicated = Bin2Stream(elements: ["Orders", "Items", "oRDERS"].map {
            Element.delta(Delta(name: ByteString(utf8: $0), loggedFields: [], layout: .countOnly))
        })
        let again = Validator.validate(bytes: try Bin2Encoder.encode(duplicated), container: .bin2, path: "dup.bin2")
        #expect(again.errors.filter { $0.check == .duplicateName }.count == 1)
    }

    /// Opening a single file groups elements into tables through a dictionary (it searched every
    /// group for each element).
    @Test func openingManyElementsIsLinear() throws {
        let stream = Bin2Stream(elements:
            (0 ..< 20_000).map { Element.delta(Delta(name: ByteString(utf8: "d\($0)"), loggedFields: [], layout: .countOnly)) })
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("many-\(getpid()).daBriefcase").path
        try Data(try BriefcaseFileCodec.encode(BriefcaseFile(stream: stream))).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (briefcase, time) = try Self.timed { try Briefcase.openFile(path, codePage: .utf8) }
        #expect(briefcase.tableCount == 20_000)
        #expect(time < Self.limit, "open took \(time)")
    }

    /// A table of `rows` rows (ID = 0, 1, …) and a delta of `changes` updates of IDs that do not
    /// exist (each one used to be compared with every row).
    static func replayInput(rows: Int, changes: Int, keyed: Bool) -> (Table, Delta) {
        let table = Table(name: "T", fields: [FieldDescriptor(name: "ID", type: .integer)],
                          rows: (0 ..< rows).map { [.integer(Int64($0))] })
        let delta = Delta(name: "T", loggedFields: [LoggedField(name: "ID", type: .integer)], keyFields: keyed ? ["ID"] : [],
                          changes: (0 ..< changes).map {
                              DeltaChange(type: .update, recordID: Int32($0), oldValues: [.integer(-1 - Int64($0))], newValues: [nil])
                          })
        return (table, delta)
    }

    @Test(arguments: [true, false])
    func replayingADeltaDoesNotScanEveryRow(keyed: Bool) {
        let (table, delta) = Self.replayInput(rows: 50_000, changes: 10_000, keyed: keyed)
        let ((rows, problems), time) = Self.timed { table.applying(delta) }
        #expect(rows.count == 50_000)
        #expect(problems.count == 10_000 && problems.allSatisfy { $0.message.contains("matches no row") })
        #expect(time < Self.limit, "applying took \(time)")
    }

    /// The same rules as before: the row found by key (or by old values), several matches
    /// counted, rows found again after an update changed their key.
    @Test(arguments: [true, false])
    func replayMatchesAsBefore(keyed: Bool) {
        let fields = [FieldDescriptor(name: "ID", type: .integer), FieldDescriptor(name: "Name", type: .string)]
        let table = Table(name: "T", fields: fields, rows: [
            [.integer(1), .ansiString("a")], [.integer(2), .ansiString("b")], [.integer(2), .ansiString("c")],
        ])
        let logged = [LoggedField(name: "id", type: .integer), LoggedField(name: "NAME", type: .string)]
        let delta = Delta(name: "T", loggedFields: logged, keyFields: keyed ? ["ID"] : [], changes: [
            DeltaChange(type: .update, recordID: 1, oldValues: [.integer(1), nil], newValues: [.integer(5), .ansiString("x")]),
            DeltaChange(type: .update, recordID: 2, oldValues: [.integer(5), nil], newValues: [nil, .ansiString("y")]),
            DeltaChange(type: .delete, recordID: 3, oldValues: [.integer(2), nil], newValues: [nil, nil]),
            DeltaChange(type: .insert, recordID: 4, oldValues: [nil, nil], newValues: [.integer(7), .ansiString("z")]),
            DeltaChange(type: .delete, recordID: 5, oldValues: [.integer(7), nil], newValues: [nil, nil]),
        ])
        let (rows, problems) = table.applying(delta)
        #expect(rows == [[.integer(5), .ansiString("y")], [.integer(2), .ansiString("b")], [.integer(2), .ansiString("c")]])
        #expect(problems.count == 1 && problems[0].changeIndex == 2 && problems[0].message.contains("matches 2 rows"))
    }

    /// A delta logging many fields against a table with many columns: names are matched through
    /// a dictionary, in validation and in replay (each logged field scanned every column).
    @Test func manyLoggedFieldsAgainstManyColumns() throws {
        let n = 20_000
        let table = Table(name: "T", fields: (0 ..< n).map { FieldDescriptor(name: ByteString(utf8: "c\($0)"), type: .integer) })
        let delta = Delta(name: "T", loggedFields: (0 ..< n).map { LoggedField(name: ByteString(utf8: "x\($0)"), type: .integer) },
                          changes: [])
        let bytes = try Bin2Encoder.encode(Bin2Stream(elements: [.table(table), .delta(delta)]))
        let (report, validateTime) = Self.timed { Validator.validate(bytes: bytes, container: .bin2, path: "wide.bin2") }
        #expect(report.errors.contains { $0.check == .loggedFields })
        #expect(validateTime < Self.limit, "validate took \(validateTime)")
        let ((_, problems), applyTime) = Self.timed { table.applying(delta) }
        #expect(problems.count == n)
        #expect(applyTime < Self.limit, "applying took \(applyTime)")
    }
}
