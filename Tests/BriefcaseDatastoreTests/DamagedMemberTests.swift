import JSONCore
import Foundation
import Testing
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit
@testable import BriefcaseDatastore

/// A damaged `briefcase` member is an error (or, where it still makes sense, a briefcase), never a trap.
struct DamagedMemberTests {
    /// Every node of `value`, as a path of keys and indices.
    static func paths(_ value: JSONValue, _ prefix: [JSONPath.Component] = []) -> [[JSONPath.Component]] {
        var result = [prefix]
        switch value {
        case .object(let object):
            for member in object.members { result += paths(member.value, prefix + [.key(member.key)]) }
        case .array(let items):
            for (i, item) in items.enumerated() { result += paths(item, prefix + [.index(i)]) }
        default:
            break
        }
        return result
    }

    /// `value` with the node at `path` replaced (nil: removed).
    static func replacing(_ value: JSONValue, at path: ArraySlice<JSONPath.Component>, with replacement: JSONValue?) -> JSONValue? {
        guard let first = path.first else { return replacement }
        switch (value, first) {
        case (.object(var object), .key(let key)):
            guard let child = object[key] else { return value }
            if let replaced = replacing(child, at: path.dropFirst(), with: replacement) {
                object[key] = replaced
            } else {
                object[key] = nil
            }
            return .object(object)
        case (.array(var items), .index(let i)):
            if let replaced = replacing(items[i], at: path.dropFirst(), with: replacement) {
                items[i] = replaced
            } else {
                items.remove(at: i)
            }
            return .array(items)
        default:
            return value
        }
    }

    @Test(arguments: ["orders.bin2", "empty-delta.daBriefcase", "all-types.daBriefcase"])
    func everyNodeDamaged(name: String) throws {
        let loaded = try fixture(name)
        let document = try SnapshotExport(loaded.document, codePage: loaded.codePage).snapshotDocument()
        let member = try #require(document.extras["briefcase"])
        let replacements: [JSONValue?] = [nil, .null, "x", .number("-1"), .number("99999999999"), .array([]), .object(JSONObject())]
        var outcomes = (ok: 0, refused: 0)
        for path in Self.paths(member) where !path.isEmpty {
            for replacement in replacements {
                var damaged = document
                damaged.extras["briefcase"] = Self.replacing(member, at: path[...], with: replacement)
                do {
                    let imported = try SnapshotImport(damaged)
                    _ = try? imported.document.encode()
                    outcomes.ok += 1
                } catch {
                    outcomes.refused += 1
                }
            }
        }
        #expect(outcomes.refused > 0)
    }
}
