import Foundation
import Testing
@testable import BriefcaseKit

/// `StoredRows`: the rows of a table one at a time, the same rows and errors as decoding the
/// element whole.
struct StoredRowsTests {
    /// Every table row by row equals the decoded table, for every fixture (damaged ones: the
    /// same error) and the real samples, from a file and from memory.
    @Test func rowByRowEqualsTheDecodedTable() throws {
        var inputs: [(String, [UInt8], ContainerFormat)] = []
        let names = try FileManager.default.contentsOfDirectory(atPath: TestPaths.fixtures.path).filter { $0.hasSuffix(".daBriefcase") || $0.hasSuffix(".bin2") }
        for name in names { inputs.append((name, try TestPaths.fixture(name), name.hasSuffix(".bin2") ? .bin2 : .dabriefcase)) }
        for name in TestPaths.sampleNames { if let bytes = TestPaths.sample(name) { inputs.append((name, bytes, .dabriefcase)) } }
        let dir = try BriefcaseTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var tablesSeen = 0
        for (name, bytes, container) in inputs {
            let path = dir + "/" + name
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            guard let fromFile = try? BriefcaseElements.open(path, as: container) else { continue } // a broken index
            for elements in [fromFile, try BriefcaseElements(bytes: bytes, as: container)] {
                for (i, stored) in elements.elements.enumerated() where stored.kind == .table {
                    var ignored: [DecodingWarning] = []
                    let whole = Result { () throws(BriefcaseError) -> Table in
                        guard case .table(let table) = try elements.decode(i, warnings: &ignored, reusingMemory: false) else { fatalError() }
                        return table
                    }
                    let rowByRow = Result { () throws(BriefcaseError) -> (TableHead, [Row]) in
                        let rows = try elements.storedRows(i)
                        var cursor = rows.makeIterator()
                        var result: [Row] = []
                        while let row = try cursor.nextRow() { result.append(row) }
                        return (rows.head, result)
                    }
                    switch (whole, rowByRow) {
                    case (.success(let table), .success(let (head, rows))):
                        var bare = table
                        bare.rows = []
                        #expect(head.table == bare, "\(name) element \(i)")
                        #expect(rows == table.rows, "\(name) element \(i)")
                        tablesSeen += 1
                    case (.failure(let expected), .failure(let actual)):
                        #expect(actual == expected, "\(name) element \(i)")
                    default:
                        Issue.record("\(name) element \(i): \(whole) vs \(rowByRow)")
                    }
                }
            }
        }
        #expect(tablesSeen > 20)
    }

    /// Rows spanning many windows, and rows larger than a window.
    @Test func rowsAcrossWindowsAndLargerThanOne() throws {
        let dir = try BriefcaseTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fields = [FieldDescriptor(name: "ID", type: .integer), FieldDescriptor(name: "Text", type: .wideString, size: 200),
                      FieldDescriptor(name: "Blob", type: .blob)]
        var rows: [Row] = (0..<60_000).map { [.integer(Int64($0)), .wide("row \($0)"), $0 % 7 == 0 ? nil : .blob(ByteString([UInt8](repeating: UInt8($0 % 251), count: $0 % 40)))] }
        rows.insert([.integer(-1), nil, .blob(ByteString([UInt8](repeating: 7, count: 3 << 20)))], at: 30_000)  // 3 MiB: three windows
        let table = Table(name: "Big", fields: fields, rows: rows)
        let path = dir + "/big.daBriefcase"
        try Data(try BriefcaseFileCodec.encode(BriefcaseFile(stream: Bin2Stream(elements: [.table(table)])))).write(to: URL(fileURLWithPath: path))

        let briefcase = try Briefcase.openFile(path)
        let stored = try briefcase.storedRows(ofTableAt: 0)
        #expect(stored.head.rowCount == rows.count)
        var count = 0
        let fileSize = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(fileSize > 4 << 20)
        for result in stored {
            if count == 1 {
                // Laziness: one row in, the rows read so far are one window, not the table.
                #expect(briefcase.bytesRead <= StoredRowCursor.windowSize + 256 << 10, "read \(briefcase.bytesRead) of \(fileSize)")
            }
            let row = try result.get()
            #expect(row == rows[count])
            count += 1
        }
        #expect(count == rows.count)
        #expect(briefcase.tableDecodeCount == 0, "nothing decoded whole")
    }

    @Test func aTableInMemoryOrStoredOnlyAsADelta() throws {
        let briefcase = Briefcase(newAt: "/nonexistent/x.daBriefcase", kind: .file)
        let id = FieldDescriptor(name: "ID", type: .integer)
        briefcase.addTable(BriefcaseTable(dataset: Table(name: "A", fields: [id], rows: [[.integer(1)], [nil]])))
        briefcase.addTable(BriefcaseTable(dataset: nil, delta: Delta(name: "B", loggedFields: [LoggedField(name: "ID", type: .integer)])))
        #expect(Array(try briefcase.storedRows(ofTableAt: 0)).map { try? $0.get() } == [[.integer(1)], [nil]])
        let delta = try briefcase.storedRows(ofTableAt: 1)
        #expect(delta.head.fields == [id] && delta.head.rowCount == 0)
        let error = try #require(throws: BriefcaseError.self) { try briefcase.storedRows(ofTableAt: 2) }
        #expect(error.kind == .invalidModel && error.message.hasPrefix("no table at index 2") && error.file == "/nonexistent/x.daBriefcase", "\(error)")
    }
}
