import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `convert` never replaces what it did not create (Spec/robustness.md §6.1): without --force an
/// output that appears while the conversion runs is kept and the conversion exits 2 with the
/// usual line; two conversions to one path give one winner; with --force a folder is replaced
/// only if what was swapped out is still a folder briefcase.
struct OutputRaceTests {
    /// A conversion running in the background, its standard error kept.
    struct Running {
        let process = Process()
        private let errors = Pipe()
        let directory: URL

        init(_ arguments: [String], in directory: URL) throws {
            self.directory = directory
            process.executableURL = CLITests.executable
            process.arguments = arguments
            process.currentDirectoryURL = directory
            process.standardOutput = FileHandle.nullDevice
            process.standardError = errors
            try process.run()
        }

        /// Waits until a name starting with `prefix` is in the directory (or the process ended);
        /// the name, if it appeared.
        @discardableResult
        func waitFor(_ prefix: String) -> String? {
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
                if let name = names.first(where: { $0.hasPrefix(prefix) }) { return name }
                if !process.isRunning { return nil }
                usleep(500)
            }
            return nil
        }

        /// Waits for the end: the exit status (-1 for a signal) and standard error.
        func finish() -> (status: Int32, stderr: String) {
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationReason == .exit ? process.terminationStatus : -1, text)
        }
    }

    /// The names in `directory` that start with `prefix`.
    static func names(in directory: URL, prefix: String = "") throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(prefix) }.sorted()
    }

    @Test func twoConvertsToOnePathWithoutForceGiveExactlyOneWinner() throws {
        let dir = try CLITests.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Two inputs whose outputs differ, each converted once alone for its bytes.
        var expected: [String: Data] = [:]
        for name in ["a", "b"] {
            try InterruptTests.writeLargeDocument(to: dir.appendingPathComponent("\(name).json"), tables: 60, prefix: name)
            #expect(try CLITests.run(["convert", "\(name).json", "\(name).daBriefcase"], directory: dir).status == 0)
            expected[name] = FileManager.default.contents(atPath: dir.appendingPathComponent("\(name).daBriefcase").path)
        }
        #expect(expected["a"] != expected["b"])
        for round in 0..<5 {
            let a = try Running(["convert", "a.json", "out.daBriefcase"], in: dir)
            let b = try Running(["convert", "b.json", "out.daBriefcase"], in: dir)
            let results = ["a": a.finish(), "b": b.finish()]
            let winners = results.filter { $0.value.status == 0 }.map(\.key)
            #expect(winners.count == 1, "round \(round): \(results)")
            for (name, result) in results where result.status != 0 {
                #expect(result.status == 2 && result.stderr == "briefcase: 'out.daBriefcase' exists; use --force to replace it\n",
                        "round \(round), \(name): \(result)")
            }
            if let winner = winners.first {
                #expect(FileManager.default.contents(atPath: dir.appendingPathComponent("out.daBriefcase").path) == expected[winner],
                        "round \(round): the output is not the winner's")
            }
            let left = try Self.names(in: dir, prefix: ".")
            #expect(left.isEmpty, "round \(round): left \(left)")
            try FileManager.default.removeItem(at: dir.appendingPathComponent("out.daBriefcase"))
        }
    }

    /// What a user might put at OUTPUT while a conversion runs.
    enum Intruder: CaseIterable {
        case file, folder, link

        func make(at url: URL) throws {
            switch self {
            case .file: try Data("mine".utf8).write(to: url, options: .withoutOverwriting)
            case .folder: try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
            case .link: try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: "elsewhere")
            }
        }

        func isThere(at url: URL) -> Bool {
            var info = stat()
            guard lstat(url.path, &info) == 0 else { return false }
            switch self {
            case .file: return FileManager.default.contents(atPath: url.path) == Data("mine".utf8)
            case .folder: return (info.st_mode & S_IFMT) == S_IFDIR && (try? FileManager.default.contentsOfDirectory(atPath: url.path))?.isEmpty == true
            case .link: return (info.st_mode & S_IFMT) == S_IFLNK
            }
        }
    }

    static let outputs = ["out.daBriefcase", "out.bin2", "out.json", "out.json.gz", "out.daBriefcase.gz", "out.snapshot.json", "out.briefcase", "out.sqlite"]

    @Test(arguments: outputs)
    func somethingPutAtTheOutputWhileConvertingIsKept(output: String) throws {
        let dir = try CLITests.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try InterruptTests.writeLargeDocument(to: dir.appendingPathComponent("big.json"), tables: 150)
        let limits = output.hasPrefix("out.snapshot") ? ["--ignore-limits"] : []
        for intruder in Intruder.allCases {
            let url = dir.appendingPathComponent(output)
            let running = try Running(["convert", "big.json", output] + limits, in: dir)
            #expect(running.waitFor(".\(output).tmp-") != nil, "\(output): no temporary output appeared")
            try intruder.make(at: url)
            let (status, stderr) = running.finish()
            let lines = stderr.split(separator: "\n").filter { !$0.hasPrefix("briefcase: warning:") }
            #expect(status == 2 && lines == ["briefcase: '\(output)' exists; use --force to replace it"], "\(output), \(intruder): \(status) \(stderr)")
            #expect(intruder.isThere(at: url), "\(output): the \(intruder) put there was replaced")
            let left = try Self.names(in: dir, prefix: ".")
            #expect(left.isEmpty, "\(output): left \(left)")
            try FileManager.default.removeItem(at: url)
        }
    }

    /// With --force a folder briefcase is replaced; one that something else was put into during
    /// the conversion (checked once swapped out) is put back, and the conversion refused.
    @Test func withForceAFolderThatStoppedBeingABriefcaseIsPutBack() throws {
        let dir = try CLITests.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try InterruptTests.writeLargeDocument(to: dir.appendingPathComponent("big.json"))
        let fixture = CLITests.fixtures.appendingPathComponent("all-types.daBriefcase").path
        let folder = dir.appendingPathComponent("out.briefcase")
        for intruder in ["notes.txt", nil] {
            #expect(try CLITests.run(["convert", fixture, "out.briefcase", "--force"], directory: dir).status == 0)
            let before = try Self.names(in: folder)
            let running = try Running(["convert", "big.json", "out.briefcase", "--force"], in: dir)
            #expect(running.waitFor(".out.briefcase.tmp-") != nil)
            if let intruder {
                try Data("mine".utf8).write(to: folder.appendingPathComponent(intruder))
            } else {
                // The folder replaced by a file of the same name.
                try FileManager.default.removeItem(at: folder)
                try Data("mine".utf8).write(to: folder)
            }
            let (status, stderr) = running.finish()
            #expect(status == 2 && stderr.split(separator: "\n").count == 1, "\(status) \(stderr)")
            if let intruder {
                #expect(stderr == "briefcase: out.briefcase: is not a folder briefcase (it holds '\(intruder)'); it is not replaced\n")
                #expect(try Self.names(in: folder) == (before + [intruder]).sorted())
                #expect(FileManager.default.contents(atPath: folder.appendingPathComponent(intruder).path) == Data("mine".utf8))
                try FileManager.default.removeItem(at: folder.appendingPathComponent(intruder))
            } else {
                #expect(stderr.contains("out.briefcase: was replaced by something that is not a folder"), "\(stderr)")
                #expect(FileManager.default.contents(atPath: folder.path) == Data("mine".utf8))
                try FileManager.default.removeItem(at: folder)
            }
            let left = try Self.names(in: dir, prefix: ".")
            #expect(left.isEmpty, "left \(left)")
        }
    }
}
