import Foundation
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
    let bytes = try export.serialized()
    let back = try SnapshotImport(parsing: bytes)
    return (export, String(decoding: bytes, as: UTF8.self), back)
}

/// The snapshot document of a briefcase, parsed back.
func snapshotDocument(_ export: SnapshotExport) throws -> SnapshotDocument {
    try SnapshotDocument(parsing: try export.serialized())
}
