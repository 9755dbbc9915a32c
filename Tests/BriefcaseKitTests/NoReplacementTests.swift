import Foundation
import Testing
@testable import BriefcaseKit
#if canImport(Glibc)
import Glibc
#endif

/// Every library writer makes its output new and never writes into or replaces what is at its
/// path unless asked to (`replacing: true`); something that appears while it writes is kept
/// (Spec/robustness.md §6.1).
struct NoReplacementTests {
    static func scratch() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("no-replacement-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// The names in `dir` (hidden ones too), sorted.
    static func names(_ dir: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
    }

    /// Expects `body` to fail with the "exists" error naming `path`.
    static func expectExists(_ path: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("\(path) was written over", sourceLocation: sourceLocation)
        } catch let error as BriefcaseError {
            #expect(error.isOutputExists && error.file == path, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func anAtomicOutputDoesNotReplaceWhatAppearedAfterItBegan() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/out.bin"
        let intruders: [(String, (String) throws -> Void)] = [
            ("file", { try Data("mine".utf8).write(to: URL(fileURLWithPath: $0)) }),
            ("folder", { try FileManager.default.createDirectory(atPath: $0, withIntermediateDirectories: false) }),
            ("dangling link", { try FileManager.default.createSymbolicLink(atPath: $0, withDestinationPath: dir + "/nowhere") }),
        ]
        for (what, make) in intruders {
            var output = try AtomicOutput(path: path)
            try output.write([1, 2, 3])
            try make(path)
            Self.expectExists(path) { try output.commit() }
            var info = stat()
            #expect(lstat(path, &info) == 0, "\(what) gone")
            if what == "file" { #expect(FileManager.default.contents(atPath: path) == Data("mine".utf8)) }
            let left = try Self.names(dir)
            #expect(left == ["out.bin"], "\(what): \(left)")
            try FileManager.default.removeItem(atPath: path)
        }
        // Asked to replace, it does.
        try Data("mine".utf8).write(to: URL(fileURLWithPath: path))
        Self.expectExists(path) { _ = try AtomicOutput(path: path) }
        var output = try AtomicOutput(path: path, replacing: true)
        try output.write([1, 2, 3])
        try output.commit()
        #expect(FileManager.default.contents(atPath: path) == Data([1, 2, 3]))
        #expect(try Self.names(dir) == ["out.bin"])
    }

    @Test func everyWriterRefusesAnExistingPathUnlessAskedToReplace() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fixture = try TestPaths.fixture("all-types.daBriefcase")
        let source = dir + "/source.daBriefcase"
        try FileIO.writeAtomically(fixture, to: source)
        let mine = Data("mine".utf8)
        let writers: [(name: String, write: (String, Bool) throws -> Void)] = [
            ("FileIO.writeAtomically", { try FileIO.writeAtomically([1], to: $0, replacing: $1) }),
            ("Gzip.writeFileAtomically", { try Gzip.writeFileAtomically([1], to: $0, replacing: $1) }),
            ("Briefcase.write(to:as: .file)", { try Briefcase.open(source).write(to: $0, as: .file, replacing: $1) }),
            ("Briefcase.write(to:as: .folder)", { try Briefcase.open(source).write(to: $0, as: .folder, replacing: $1) }),
            ("BriefcaseElements.writeFolder(to:)", {
                _ = try BriefcaseElements.open(source, as: .dabriefcase).writeFolder(to: $0, encoding: nil, skipDamaged: false, replacing: $1)
            }),
            ("FolderSink", {
                var sink = FolderSink(path: $0, replacing: $1)
                _ = try BriefcaseElements.open(source, as: .dabriefcase).read(into: &sink, encoding: nil, skipDamaged: false)
            }),
        ]
        for (name, write) in writers {
            // A file of the user's: kept as it is.
            let file = dir + "/file-\(name.filter(\.isLetter))"
            try mine.write(to: URL(fileURLWithPath: file))
            Self.expectExists(file) { try write(file, false) }
            #expect(FileManager.default.contents(atPath: file) == mine, "\(name) changed the file")
            // A folder of the user's: nothing written into it.
            let folder = dir + "/folder-\(name.filter(\.isLetter))"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            try mine.write(to: URL(fileURLWithPath: folder + "/notes.txt"))
            Self.expectExists(folder) { try write(folder, false) }
            #expect(try Self.names(folder) == ["notes.txt"], "\(name) wrote into the folder")
            // A new path: made; asked to replace, the writer writes.
            let new = dir + "/new-\(name.filter(\.isLetter))"
            try write(new, false)
            #expect(FileIO.exists(new), "\(name)")
            try write(new, true)
        }
        let hidden = try Self.names(dir).filter { $0.hasPrefix(".") }
        #expect(hidden.isEmpty, "left behind: \(hidden)")
        // Saving back where it was opened from is replacement by nature.
        let briefcase = try Briefcase.open(source)
        try briefcase.write()
        #expect(try FileIO.read(source) == fixture)
    }

    /// A folder that a writer made and then failed in is removed; one it was asked to write into
    /// keeps every file it did not write.
    @Test func aFolderWriterRemovesOnlyWhatItMade() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let damaged = dir + "/damaged.daBriefcase"
        try FileIO.writeAtomically(try TestPaths.fixture("damaged-truncated-row.daBriefcase"), to: damaged)
        let elements = try BriefcaseElements.open(damaged, as: .dabriefcase)
        // damaged-truncated-row: row 1's Name length, at 83 of table T, runs past the element.
        let made = try #require(throws: BriefcaseError.self) { _ = try elements.writeFolder(to: dir + "/new.briefcase", encoding: nil, skipDamaged: false) }
        #expect(made.kind == .invalidData && made.offset == 83 && made.element == "T", "\(made)")
        #expect(!FileIO.exists(dir + "/new.briefcase"))
        let existing = dir + "/existing.briefcase"
        try FileManager.default.createDirectory(atPath: existing, withIntermediateDirectories: false)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: existing + "/T.daBriefcase"))
        try Data("mine".utf8).write(to: URL(fileURLWithPath: existing + "/Properties.plist"))
        let into = try #require(throws: BriefcaseError.self) { _ = try elements.writeFolder(to: existing, encoding: nil, skipDamaged: false, replacing: true) }
        #expect(into == made, "\(into)")
        #expect(try Self.names(existing) == ["Properties.plist", "T.daBriefcase"])
        #expect(FileManager.default.contents(atPath: existing + "/T.daBriefcase") == Data("mine".utf8))
    }
}
