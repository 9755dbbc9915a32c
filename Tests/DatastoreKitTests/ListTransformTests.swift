import Foundation
import Testing
import JSONCore
@testable import DatastoreKit

/// `ListTransform` held to the 16,910 list-transform vectors Dropbox published with its
/// JavaScript Datastore SDK (`../shared/reference/datastore-ot/`, BSD 3-clause, its licence kept
/// beside it; read from there, never copied), as Dropbox checked them: each `[local, remote,
/// expected]` gives `transform(local, remote).local == expected`, and local then the transformed
/// remote gives the list that remote then the transformed local gives, from `[0, 1, …, 10]`.
struct ListTransformTests {
    static let vectors = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/reference/datastore-ot/list-ot-vectors.json")
    static let vectorsPresent = FileManager.default.fileExists(atPath: vectors.path)

    /// `["LP", 3, "a"]` and its kin (`[]`: no operation).
    static func operation(_ json: JSONValue) throws -> ListOperation? {
        guard case .array(let wrapper) = json else { throw Failure("not a list: \(json)") }
        guard let first = wrapper.first else { return nil }
        guard case .array(let parts) = first, case .string(let tag)? = parts.first else { throw Failure("not an operation: \(first)") }
        func int(_ i: Int) throws -> Int {
            guard i < parts.count, case .number(let text) = parts[i], let value = Int(text) else { throw Failure("no index \(i) in \(first)") }
            return value
        }
        func atom() throws -> DatastoreAtom {
            guard parts.count == 3, case .string(let text) = parts[2] else { throw Failure("no value in \(first)") }
            return .string(text)
        }
        switch tag {
        case "LP": return .put(at: try int(1), try atom())
        case "LI": return .insert(before: try int(1), try atom())
        case "LD": return .delete(at: try int(1))
        case "LM": return .move(from: try int(1), to: try int(2))
        default: throw Failure("unknown tag \(tag)")
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// `operation` applied to `list` as the vectors' README states it.
    static func apply(_ operation: ListOperation?, to list: [String]) -> [String] {
        var list = list
        switch operation {
        case .put(let at, .string(let value))?: list[at] = value
        case .insert(let before, .string(let value))?: list.insert(value, at: before)
        case .delete(let at)?: list.remove(at: at)
        case .move(let from, let to)?: list.insert(list.remove(at: from), at: to)
        default: break
        }
        return list
    }

    @Test(.enabled(if: vectorsPresent, "../shared/reference/datastore-ot is absent"))
    func dropboxVectors() throws {
        let json = try JSONParser.parse([UInt8](try Data(contentsOf: Self.vectors)))
        guard case .object(let templates) = json else { throw Failure("not an object of templates") }
        #expect(templates.count == 181)
        let start = (0 ... 10).map(String.init)
        var checked = 0, wrong: [String] = []
        for (name, value) in templates.members {
            guard case .array(let vectors) = value else { throw Failure("\(name): not a list") }
            for vector in vectors {
                guard case .array(let parts) = vector, parts.count == 3 else { throw Failure("\(name): not a triple") }
                let local = try Self.operation(parts[0]), remote = try Self.operation(parts[1]), expected = try Self.operation(parts[2])
                let (local2, remote2) = try #require(local.flatMap { l in remote.map { ListTransform.transform(local: l, remote: $0) } })
                let converges = Self.apply(remote2, to: Self.apply(local, to: start)) == Self.apply(local2, to: Self.apply(remote, to: start))
                if local2 != expected || !converges { wrong.append("\(name): \(vector)") }
                checked += 1
            }
        }
        #expect(checked == 16_910)
        #expect(wrong.isEmpty, "\(wrong.count) vectors fail, e.g. \(wrong.prefix(3))")
    }

    /// The rules the vectors leave to the field's rule: two puts at one index.
    @Test func twoPutsAtOneIndexFollowTheRule() {
        let local = ListOperation.put(at: 2, .string("l")), remote = ListOperation.put(at: 2, .string("r"))
        #expect(ListTransform.transform(local: local, remote: remote) == (nil, remote))
        #expect(ListTransform.transform(local: local, remote: remote, localWins: true) == (local, nil))
        #expect(ListOperation(.listMove(from: 1, to: 2)) == .move(from: 1, to: 2))
        #expect(ListOperation(.delete) == nil)
        #expect(ListOperation.insert(before: 0, .int(1)).fieldOperation == .listInsert(before: 0, .int(1)))
    }
}
