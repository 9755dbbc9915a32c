import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Temporaries a killed `convert` left are removed by the next conversion to the same output,
/// and those of a conversion still running never are (Spec/robustness.md §6.2).
struct StaleTemporaryTests {
    typealias Running = OutputRaceTests.Running

    /// The id of a process that has ended (and so names no live process for a while).
    static func deadProcessID() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    @Test(arguments: ["out.json", "out.briefcase"])
    func aKilledRunsTemporaryIsRemovedByTheNextRunAndALiveRunsIsKept(output: String) throws {
        let dir = try CLITests.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try InterruptTests.writeLargeDocument(to: dir.appendingPathComponent("big.json"), tables: 150)
        let small = CLITests.fixtures.appendingPathComponent("all-types.daBriefcase").path
        let url = dir.appendingPathComponent(output)

        // kill -9 while writing: its temporary stays, named with its process id.
        let killed = try Running(["convert", "big.json", output], in: dir)
        let leftover = try #require(killed.waitFor(".\(output).tmp-\(killed.process.processIdentifier)-"))
        kill(killed.process.processIdentifier, SIGKILL)
        _ = killed.finish()
        #expect(try OutputRaceTests.names(in: dir, prefix: ".") == [leftover])

        // A run still going, and what only looks stale: a dead process's id whose lock is held
        // (a process id reused in another namespace), a live process's id whose lock is free, an
        // aside folder (the user's only copy, maybe), and names of other outputs or other tools.
        let alive = try Running(["convert", "big.json", output, "--force"], in: dir)
        let live = try #require(alive.waitFor(".\(output).tmp-\(alive.process.processIdentifier)-"))
        let dead = try Self.deadProcessID()
        let locked = ".\(output).tmp-\(dead)-aB3dE6", unlocked = ".\(output).tmp-\(getpid())-Zz9yY8"
        let kept = [locked, unlocked, ".\(output).old-1B2C3D", ".other.json.tmp-\(dead)-abcdef", ".\(output).tmp-abcdef",
                    ".\(output).tmp-\(dead)-abcdefg", "x\(output).tmp-\(dead)-abcdef"]
        for name in kept { try Data("x".utf8).write(to: dir.appendingPathComponent(name)) }
        let fd = open(dir.appendingPathComponent(locked).path, O_RDONLY)
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX | LOCK_NB) == 0)
        // A dead process's folder too, with files in it.
        let deadFolder = ".\(output).tmp-\(dead)-Qq1Ww2"
        try FileManager.default.createDirectory(at: dir.appendingPathComponent(deadFolder).appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: dir.appendingPathComponent(deadFolder).appendingPathComponent("T.daBriefcase"))

        let next = try CLITests.run(["convert", small, output], directory: dir)
        #expect(next.status == 0, "\(next.stderr)")
        let names = Set(try OutputRaceTests.names(in: dir))
        #expect(!names.contains(leftover) && !names.contains(deadFolder), "the stale ones are left: \(names)")
        for name in kept { #expect(names.contains(name), "\(name) was removed") }
        if alive.process.isRunning { #expect(names.contains(live), "a running conversion's temporary was removed") }
        kill(alive.process.processIdentifier, SIGTERM)
        _ = alive.finish()
        #expect(FileManager.default.fileExists(atPath: url.path))
    }
}
