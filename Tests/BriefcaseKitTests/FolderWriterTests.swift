import Foundation
import Testing
import BriefcaseTestSupport
@testable import BriefcaseKit

/// Every way a folder briefcase is written (the lazy `Briefcase`, raw copies or decoded tables;
/// the element-by-element conversion, from a single file or from a folder) against the input's
/// own elements, put together by hand (`HandStream`): each table file is a `DABRC600` file
/// without properties holding that table's elements as the input had them, positions moved.
struct FolderWriterTests {
    /// The valid single-file fixtures and the real samples.
    static var inputs: [(name: String, bytes: [UInt8])] {
        var result: [(String, [UInt8])] = TestPaths.validFixtureNames.filter { $0.hasSuffix(".daBriefcase") }.compactMap { name in
            (try? TestPaths.fixture(name)).map { (name, $0) }
        }
        for name in TestPaths.sampleNames { if let bytes = TestPaths.sample(name) { result.append((name, bytes)) } }
        return result
    }

    /// Checks the folder at `folder` against the input's elements: every element is in exactly
    /// one table file, in the input's order, and each file is exactly those elements moved.
    static func expectTableFiles(_ folder: String, hold elements: [HandStream.Element], _ what: String) throws {
        var seen = 0
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".daBriefcase") }
        for file in files {
            let bytes = try FileIO.read(folder + "/" + file)
            let held = HandStream.elements(bytes, streamStart: 16).map { element in (element.kind, element.name) }
            let mine = elements.filter { element in held.contains { $0 == (element.kind, element.name) } }
            #expect(mine.count == held.count, "\(what)/\(file): an element the input does not have")
            #expect(bytes == HandStream.singleFile(mine), "\(what)/\(file)")
            seen += mine.count
        }
        #expect(seen == elements.count, "\(what): \(elements.count - seen) elements are in no table file")
    }

    @Test func everyWayOfWritingAFolderHoldsTheInputsElements() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folder-writer-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(Self.inputs.count == 6 + (TestPaths.samplesPresent ? 2 : 0))
        for (name, bytes) in Self.inputs {
            let elements = HandStream.elements(bytes, streamStart: HandStream.dataOffset(bytes))
            // The oracle needs each element's kind and name to find it (true of every input here).
            #expect(Set(elements.map { "\($0.kind) \($0.name)" }).count == elements.count, "\(name)")
            let path = dir + "/" + name
            try FileIO.writeAtomically(bytes, to: path)

            try Briefcase.open(path).write(to: path + ".raw.briefcase", as: .folder)
            try Self.expectTableFiles(path + ".raw.briefcase", hold: elements, "\(name) copied raw")

            let loaded = try Briefcase.open(path)
            for i in 0..<loaded.tableCount { _ = try loaded.table(at: i) }
            try loaded.write(to: path + ".loaded.briefcase", as: .folder)
            try Self.expectTableFiles(path + ".loaded.briefcase", hold: elements, "\(name) decoded")

            _ = try BriefcaseElements.open(path, as: .dabriefcase).writeFolder(to: path + ".streamed.briefcase", encoding: nil, skipDamaged: false)
            try Self.expectTableFiles(path + ".streamed.briefcase", hold: elements, "\(name) element by element")

            // A folder read element by element (its table files all start at offset 28) into another.
            let folder = BriefcaseElements(try Briefcase.openFolder(path + ".raw.briefcase"))
            _ = try folder.writeFolder(to: path + ".again.briefcase", encoding: nil, skipDamaged: false)
            try Self.expectTableFiles(path + ".again.briefcase", hold: elements, "\(name) folder to folder")
            for copy in ["loaded", "streamed", "again"] {
                #expect(try FileIO.read(path + ".\(copy).briefcase/Properties.plist") == FileIO.read(path + ".raw.briefcase/Properties.plist"))
            }
        }
    }
}
