import Foundation
import Testing

/// `convert` never loses a directory (Spec/robustness.md §8.1, Spec/folder-briefcase.md §6): an
/// OUTPUT that is the current directory, one of its ancestors or holds the input, or a
/// directory that is not a folder briefcase, is refused with exit 2 and left as it was.
struct DirectoryOutputTests {
    static let fixture = CLITests.fixtures.appendingPathComponent("all-types.daBriefcase").path

    /// Every path under `root` (hidden ones too) with its size, to compare before and after.
    static func listing(_ root: URL) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: root.path)
        var entries: [String] = []
        while let name = enumerator?.nextObject() as? String {
            let size = (try? FileManager.default.attributesOfItem(atPath: root.appendingPathComponent(name).path)[.size] as? Int) ?? -1
            entries.append("\(name) \(size)")
        }
        return entries.sorted()
    }

    /// A directory with a folder briefcase `a.briefcase` (plus a file of the user's beside it).
    static func makeBriefcaseFolder() throws -> URL {
        let dir = try CLITests.makeTemporaryDirectory()
        let made = try CLITests.run(["convert", fixture, dir.appendingPathComponent("a.briefcase").path])
        #expect(made.status == 0, "\(made.stderr)")
        try Data("mine".utf8).write(to: dir.appendingPathComponent("notes.txt"))
        return dir
    }

    static func expectRefused(_ arguments: [String], in directory: URL, root: URL, mentioning: String,
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = listing(root)
        let result = try CLITests.run(arguments, directory: directory)
        #expect(result.status == 2, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(mentioning), "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(listing(root) == before, "\(arguments) changed the directory", sourceLocation: sourceLocation)
    }

    @Test func theCurrentDirectoryAndItsAncestorsAreNeverReplaced() throws {
        let root = try Self.makeBriefcaseFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let inside = root.appendingPathComponent("a.briefcase")
        for output in [".", "./", "..", "../", inside.path, root.path, "/"] {
            try Self.expectRefused(["convert", Self.fixture, output, "--to", "folder", "--force"], in: inside, root: root,
                                   mentioning: "current directory")
        }
        // Without --force as well (the same answer, not "exists").
        try Self.expectRefused(["convert", Self.fixture, ".", "--to", "folder"], in: inside, root: root, mentioning: "current directory")
    }

    @Test func aDirectoryHoldingTheInputIsNotReplaced() throws {
        let root = try Self.makeBriefcaseFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        for input in ["a.briefcase", "a.briefcase/AllTypes.daBriefcase", "./a.briefcase/"] {
            try Self.expectRefused(["convert", input, "a.briefcase", "--force"], in: root, root: root, mentioning: "holds the input")
        }
    }

    @Test func aDirectoryThatIsNotAFolderBriefcaseIsRefusedNamingItsFirstForeignEntry() throws {
        let root = try CLITests.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let docs = root.appendingPathComponent("docs")
        try FileManager.default.createDirectory(at: docs.appendingPathComponent(".git"), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: docs.appendingPathComponent("Properties.plist"))
        try Data("y".utf8).write(to: docs.appendingPathComponent("b.txt"))
        for force in [["--force"], []] {
            try Self.expectRefused(["convert", Self.fixture, "docs", "--to", "folder"] + force, in: root, root: root,
                                   mentioning: "'docs' is not a folder briefcase (it holds '.git')")
        }
        try FileManager.default.removeItem(at: docs.appendingPathComponent(".git"))
        try Self.expectRefused(["convert", Self.fixture, "docs", "--to", "folder", "--force"], in: root, root: root, mentioning: "'b.txt'")
        // A directory named like a table file is not a table file.
        try FileManager.default.removeItem(at: docs.appendingPathComponent("b.txt"))
        try FileManager.default.createDirectory(at: docs.appendingPathComponent("T.daBriefcase"), withIntermediateDirectories: true)
        try Self.expectRefused(["convert", Self.fixture, "docs", "--to", "folder", "--force"], in: root, root: root, mentioning: "'T.daBriefcase'")
        // A single-file output never replaces a directory.
        try Self.expectRefused(["convert", Self.fixture, "docs", "--to", "json", "--force"], in: root, root: root, mentioning: "is a directory")
    }

    @Test func aFolderBriefcaseIsReplacedWithForce() throws {
        let root = try Self.makeBriefcaseFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("a.briefcase")
        // What our own writes leave behind does not make it foreign.
        try Data("z".utf8).write(to: folder.appendingPathComponent(".AllTypes.daBriefcase.tmp-ABC123"))
        let nulls = CLITests.fixtures.appendingPathComponent("nulls.daBriefcase").path
        let result = try CLITests.run(["convert", nulls, "a.briefcase", "--force"], directory: root)
        #expect(result.status == 0, "\(result.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(!names.contains("AllTypes.daBriefcase") && names.contains("Properties.plist"), "\(names)")
        let hidden = try FileManager.default.contentsOfDirectory(atPath: root.path).filter { $0.hasPrefix(".") }
        #expect(hidden.isEmpty, "left behind: \(hidden)")
    }
}
