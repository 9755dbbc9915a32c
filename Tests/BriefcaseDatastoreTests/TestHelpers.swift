import Foundation
import Testing
import BriefcaseTestSupport
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit
@testable import BriefcaseDatastore

/// The well-formed fixtures (as in Tests/BriefcaseKitTests/TestSupport.swift).
let validFixtureNames = [
    "all-types.daBriefcase", "nulls.daBriefcase", "empty-table.daBriefcase", "empty-delta.daBriefcase",
    "gbk.daBriefcase", "orders.bin2", "unsafe-names.daBriefcase",
]

struct Loaded {
    var bytes: [UInt8]
    var document: BriefcaseDocument
    var codePage: CodePage
}

/// A fixture or real sample decoded the way the CLI does it (code page detected).
func load(_ bytes: [UInt8], name: String) throws -> Loaded {
    var warnings: [DecodingWarning] = []
    let container: ContainerFormat = name.hasSuffix(".bin2") ? .bin2 : .dabriefcase
    let document = try BriefcaseDocument.decode(bytes, as: container, warnings: &warnings)
    return Loaded(bytes: bytes, document: document, codePage: CodePage.detect(in: document.file).codePage)
}

func fixture(_ name: String) throws -> Loaded {
    let url = SamplePaths.fixtures.appendingPathComponent(name)
    guard let data = FileManager.default.contents(atPath: url.path) else {
        throw BriefcaseError(.io, "fixture \(url.path) is missing; run `swift run briefcase-fixtures Fixtures`")
    }
    return try load([UInt8](data), name: name)
}

/// briefcase → snapshot bytes → briefcase.
func roundTrip(_ loaded: Loaded) throws -> (export: SnapshotExport, text: String, back: SnapshotImport) {
    let export = try SnapshotExport(loaded.document, codePage: loaded.codePage)
    let back = try SnapshotImport(parsing: export.bytes)
    return (export, String(decoding: export.bytes, as: UTF8.self), back)
}

/// Expects `actual == expected`, naming the first differing byte and its context when not.
func expectSameBytes(_ actual: [UInt8], _ expected: [UInt8], _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
    guard actual != expected else { return }
    let at = zip(actual, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(actual.count, expected.count)
    let context = { (bytes: [UInt8]) in String(decoding: bytes[max(0, at - 80)..<min(bytes.count, at + 80)], as: UTF8.self) }
    let message = "\(what): \(actual.count) bytes, expected \(expected.count); first difference at byte \(at):\n"
        + "  actual:   \(context(actual))\n  expected: \(context(expected))"
    Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
}
