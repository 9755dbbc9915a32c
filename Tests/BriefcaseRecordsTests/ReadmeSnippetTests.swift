import BriefcaseTestSupport
import Foundation
import Testing
@testable import BriefcaseRecords

/// The documentation's BriefcaseRecords snippets — the README's, and the DocC article's — run on
/// fixtures: each region between `// MARK: snippet of FILE` and `// MARK: end` must appear in
/// FILE as written (dedented). DocumentationTests type-checks each snippet whole with its imports;
/// here its statements run and what they do is checked.
struct ReadmeSnippetTests {
    // MARK: snippet of README.md
    struct Entry: Codable {
        var ID: Int64?          // Optional: the field may be NULL
        var Name: String?
        var Score: Double?
    }
    // MARK: end

    struct Customer: Codable, Equatable {
        var id: Int64
        var name: String
        var balance: Decimal
        var since: Date?
    }

    @Test func readmeSnippetReadsEditsAndSaves() throws {
        let scratch = try Scratch()
        let path = scratch.path + "/nulls.daBriefcase"
        try FileManager.default.copyItem(atPath: SamplePaths.fixtures.appendingPathComponent("nulls.daBriefcase").path, toPath: path)
        let before = try RecordBriefcase(path: path).table("Mixed")
        // MARK: snippet of README.md
        let briefcase = try RecordBriefcase(path: path)
        var table = try briefcase.table("Mixed")
        let entries = try table.rows(as: Entry.self)            // current rows: the pending changes applied
        print(table.fields.map(\.name), entries.count)

        try table.update(key: ["ID": 1], setting: ["Name": "renamed"])   // recorded as a pending change
        try briefcase.setTable(table)                           // check the delta, hand the table back
        try briefcase.save()                                    // only this table is written anew
        // MARK: end
        #expect(entries.count == (try before.rows(as: Entry.self)).count)
        let saved = try RecordBriefcase(path: path).table("Mixed")
        #expect(try saved.rows(as: Entry.self).first { $0.ID == 1 }?.Name == "renamed")
        #expect(saved.changes.count == before.changes.count + 1, "the edit is one more pending change")
        #expect(try saved.rows(as: Entry.self, .stored).map(\.Name) == (try before.rows(as: Entry.self, .stored)).map(\.Name),
                "the stored rows stay as they were")
    }

    @Test func articleSnippetsCompileAndRun() throws {
        let scratch = try Scratch()
        let path = scratch.path + "/Customers.daBriefcase"
        let customers = [Customer(id: 1, name: "Ada", balance: Decimal(string: "10.50")!, since: nil),
                         Customer(id: 2, name: "Grace", balance: 0, since: Date(timeIntervalSince1970: 0))]
        // MARK: snippet of Sources/BriefcaseRecords/BriefcaseRecords.docc/BriefcaseRecords.md
        let briefcase = RecordBriefcase(newAt: path)                       // kind: .folder for a folder
        let table = try RecordTable(name: "Customers", rows: customers, primaryKey: ["id"])
        try briefcase.setTable(table)
        try briefcase.save()
        // MARK: end
        #expect(try RecordBriefcase(path: path).table("Customers").rows(as: Customer.self) == customers)

        // MARK: snippet of Sources/BriefcaseRecords/BriefcaseRecords.docc/BriefcaseRecords.md
        var seen: [Customer] = []
        for result in try briefcase.storedRecords(of: "Customers") {   // one row in memory at a time
            let customer = try result.get().decode(as: Customer.self)
            seen.append(customer)
        }
        // MARK: end
        #expect(seen == customers)

        // MARK: snippet of Sources/BriefcaseRecords/BriefcaseRecords.docc/BriefcaseRecords.md
        do {
            let record = try briefcase.table("Customers").record(at: 0)
            _ = try record.value("balance", as: Bool.self)
        } catch {                                                  // a RecordError
            print(error)   // Customers: row 0, field 'balance': a datDecimal value cannot be read as Bool
        }
        // MARK: end
        #expect(throws: RecordError(.typeMismatch, "a datDecimal value cannot be read as Bool", table: "Customers", row: 0, field: "balance")) {
            try briefcase.table("Customers").record(at: 0).value("balance", as: Bool.self)
        }
    }

    @Test func theDocumentationHoldsEveryRegion() throws {
        let (missing, count) = try DocumentedSnippets.missing(from: "Tests/BriefcaseRecordsTests/ReadmeSnippetTests.swift")
        for region in missing { Issue.record("\(region.file) lacks this snippet:\n\(region.text)") }
        #expect(count == 5)
    }
}
