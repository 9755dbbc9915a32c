import BriefcaseTestSupport
import Foundation
import Testing
@testable import BriefcaseRecords

/// The README's "Link the library" snippets are compiled here and in Examples/RecordsExample:
/// each region between `// MARK: README "Link the library": …` and `// MARK: end` must appear
/// in README.md as written (dedented), so the README cannot drift from code that builds.
struct ReadmeSnippetTests {
    struct Customer: Codable, Equatable {
        var id: Int64
        var name: String
        var balance: Decimal
        var since: Date?
    }

    @Test func snippetsCompileAndRun() throws {
        let scratch = try Scratch()
        let path = scratch.path + "/Customers.daBriefcase"
        let customers = [Customer(id: 1, name: "Ada", balance: Decimal(string: "10.50")!, since: nil),
                         Customer(id: 2, name: "Grace", balance: 0, since: Date(timeIntervalSince1970: 0))]
        // MARK: README "Link the library": new table
        let briefcase = RecordBriefcase(newAt: path)               // kind: .folder for a folder
        let table = try RecordTable(name: "Customers", rows: customers, primaryKey: ["id"])
        try briefcase.setTable(table)
        try briefcase.save()
        // MARK: end
        #expect(try RecordBriefcase(path: path).table("Customers").rows(as: Customer.self) == customers)

        var seen: [Customer] = []
        // MARK: README "Link the library": large tables
        for result in try briefcase.storedRecords(of: "Customers") {   // one row in memory at a time
            let customer = try result.get().decode(as: Customer.self)
            seen.append(customer)
        }
        // MARK: end
        #expect(seen == customers)

        // MARK: README "Link the library": errors
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

    @Test func readmeHoldsEverySnippet() throws {
        let readme = try String(contentsOf: SamplePaths.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let sources = ["Tests/BriefcaseRecordsTests/ReadmeSnippetTests.swift", "Examples/RecordsExample/Sources/RecordsExample/main.swift"]
        var count = 0
        for source in sources {
            let text = try String(contentsOf: SamplePaths.repository.appendingPathComponent(source), encoding: .utf8)
            for snippet in Self.snippets(in: text) {
                #expect(readme.contains(snippet), "README.md lacks this snippet of \(source):\n\(snippet)")
                count += 1
            }
        }
        #expect(count == 6)
    }

    /// The marked regions of `text`, each dedented by its first line's indentation.
    static func snippets(in text: String) -> [String] {
        var result: [String] = [], current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("// MARK: README \"Link the library\"") {
                current = []
            } else if trimmed == "// MARK: end", let lines = current {
                let indent = lines.first?.prefix { $0 == " " }.count ?? 0
                result.append(lines.map { String($0.dropFirst(min(indent, $0.prefix { $0 == " " }.count))) }.joined(separator: "\n"))
                current = nil
            } else if current != nil {
                current!.append(line)
            }
        }
        return result
    }
}
