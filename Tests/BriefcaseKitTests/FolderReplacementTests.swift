import Foundation
import Testing
@testable import BriefcaseKit

/// `FolderReplacement` without an atomic exchange (Spec/folder-briefcase.md §6): the old folder
/// goes aside, the new one in, and when the new one cannot be moved in the old one is put back.
struct FolderReplacementTests {
    static func makeFolder(_ url: URL, file: String, text: String) throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url.appendingPathComponent(file))
    }

    static func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("replacement-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A scratch directory with an old folder briefcase `a.briefcase` and a finished new one beside it.
    static func oldAndNewFolders() throws -> (URL, URL, URL) {
        let dir = try scratch()
        let destination = dir.appendingPathComponent("a.briefcase"), finished = dir.appendingPathComponent(".a.briefcase.tmp-1")
        try makeFolder(destination, file: "Old.daBriefcase", text: "old")
        try makeFolder(finished, file: "New.daBriefcase", text: "new")
        return (dir, destination, finished)
    }

    @Test func withoutAnExchangeTheOldFolderIsPutBackWhenTheNewOneCannotMoveIn() throws {
        let (dir, destination, finished) = try Self.oldAndNewFolders()
        defer { try? FileManager.default.removeItem(at: dir) }
        // No exchange; the second rename (the new folder into place) fails.
        let finishedPath = finished.path
        let renames = FolderReplacement.Renames(exchange: { _, _ in false },
                                                move: { from, to in from == finishedPath ? false : rename(from, to) == 0 })
        let error = try #require(throws: BriefcaseError.self) { try FolderReplacement.replace(destination.path, with: finished.path, renames: renames) }
        #expect(error.kind == .io && error.file == destination.path
                && error.message.hasPrefix("cannot move the new folder into place (the old one was kept)"), "\(error)")
        #expect(try String(contentsOf: destination.appendingPathComponent("Old.daBriefcase"), encoding: .utf8) == "old")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(names == [".a.briefcase.tmp-1", "a.briefcase"], "\(names)") // nothing left aside
    }

    @Test func withoutAnExchangeTheNewFolderTakesThePlaceAndTheOldOneIsRemoved() throws {
        let (dir, destination, finished) = try Self.oldAndNewFolders()
        defer { try? FileManager.default.removeItem(at: dir) }
        let renames = FolderReplacement.Renames(exchange: { _, _ in false }, move: { rename($0, $1) == 0 })
        try FolderReplacement.replace(destination.path, with: finished.path, renames: renames)
        #expect(try FileManager.default.contentsOfDirectory(atPath: destination.path) == ["New.daBriefcase"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["a.briefcase"])
    }

    @Test func foreignEntriesAreNamedInNameOrder() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try FolderReplacement.foreignEntry(in: dir.path) == nil)
        for name in ["Properties.plist", "T.daBriefcase", "u.DABRIEFCASE", ".T.daBriefcase.tmp-x1Y2z3", ".DS_Store"] {
            try Data().write(to: dir.appendingPathComponent(name))
        }
        #expect(try FolderReplacement.foreignEntry(in: dir.path) == nil)
        try Data().write(to: dir.appendingPathComponent("z.txt"))
        try Data().write(to: dir.appendingPathComponent(".hidden"))
        #expect(try FolderReplacement.foreignEntry(in: dir.path) == ".hidden")
    }
}

extension FolderReplacementTests {
    /// What a replacement swaps out is checked again once out: a folder that got a file of
    /// someone else's, or a file put in the folder's place, is swapped back and the replacement
    /// refused; the new folder is still at its temporary name (for the caller to remove).
    @Test(arguments: [false, true])
    func whatWasSwappedOutIsPutBackUnlessItIsAFolderBriefcase(exchange: Bool) throws {
        for intruder in ["notes.txt", ""] {
            let (dir, destination, finished) = try Self.oldAndNewFolders()
            defer { try? FileManager.default.removeItem(at: dir) }
            if intruder.isEmpty {
                try FileManager.default.removeItem(at: destination)
                try Data("mine".utf8).write(to: destination)
            } else {
                try Data("mine".utf8).write(to: destination.appendingPathComponent(intruder))
            }
            let renames = exchange ? FolderReplacement.Renames.system
                : FolderReplacement.Renames(exchange: { _, _ in false }, move: FolderReplacement.Renames.system.move)
            let error = #expect(throws: BriefcaseError.self) { try FolderReplacement.replace(destination.path, with: finished.path, renames: renames) }
            let why = intruder.isEmpty ? "was replaced by something that is not a folder" : "is not a folder briefcase (it holds '\(intruder)')"
            #expect(error?.kind == .io && error?.file == destination.path && error?.message.hasPrefix(why) == true, "\(String(describing: error))")
            if intruder.isEmpty {
                #expect(FileManager.default.contents(atPath: destination.path) == Data("mine".utf8))
            } else {
                #expect(try FileManager.default.contentsOfDirectory(atPath: destination.path).sorted() == ["Old.daBriefcase", intruder])
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: finished.path) == ["New.daBriefcase"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == [".a.briefcase.tmp-1", "a.briefcase"])
        }
    }

    /// Without replacing, a folder is moved only where nothing is.
    @Test func withoutReplacingNothingThereIsReplaced() throws {
        let (dir, destination, finished) = try Self.oldAndNewFolders()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.removeItem(at: destination)
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: false)  // empty: still not ours
        do {
            try FolderReplacement.replace(destination.path, with: finished.path, replacing: false)
            Issue.record("replaced")
        } catch {
            #expect(error.isOutputExists)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: destination.path).isEmpty)
        try FileManager.default.removeItem(at: destination)
        try FolderReplacement.replace(destination.path, with: finished.path, replacing: false)
        #expect(try FileManager.default.contentsOfDirectory(atPath: destination.path) == ["New.daBriefcase"])
    }
}
