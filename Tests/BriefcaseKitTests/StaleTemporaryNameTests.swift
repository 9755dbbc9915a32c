import Foundation
import Testing
@testable import BriefcaseKit
#if canImport(Glibc)
import Glibc
#endif

/// The names of temporary outputs and which of them `TemporaryPaths.removeStale` removes
/// (Spec/robustness.md §6.2).
struct StaleTemporaryNameTests {
    @Test func theNamesOfTemporariesAreRecognisedExactly() {
        #expect(TemporaryPaths.writer(ofTemporaryNamed: ".out.json.tmp-123-aB3dE6", base: "out.json") == 123)
        #expect(TemporaryPaths.writer(ofTemporaryNamed: ".out.json.tmp-123-aB3dE6", base: nil) == 123)
        #expect(TemporaryPaths.writer(ofTemporaryNamed: ".a.tmp-1.tmp-7-xxxxxx", base: "a.tmp-1") == 7)
        for (name, base) in [(".out.json.tmp-123-aB3dE6", "out"), (".out.json.tmp-123-aB3dE", "out.json"),
                             (".out.json.tmp-aB3dE6", "out.json"), (".out.json.old-123-aB3dE6", "out.json"),
                             ("out.json.tmp-123-aB3dE6", "out.json"), (".out.json.tmp-0-aB3dE6", "out.json"),
                             (".out.json.tmp-12-aB3-E6", "out.json"), (".a.tmp-1.tmp-7-xxxxxx", "a")] as [(String, String?)] {
            #expect(TemporaryPaths.writer(ofTemporaryNamed: name, base: base) == nil, "\(name) for \(base ?? "any")")
        }
        // What an AtomicOutput makes is such a name.
        let template = TemporaryPaths.string(TemporaryPaths.template(in: "/d", for: "x.json"))
        #expect(template == "/d/.x.json.tmp-\(getpid())-XXXXXX")
    }

    @Test func onlyTemporariesOfDeadUnlockedWritersAreRemoved() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stale-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        let dead = process.processIdentifier
        let stale = [".o.tmp-\(dead)-aaaaaa", ".o.tmp-\(dead)-folder"]
        let kept = [".o.tmp-\(dead)-locked", ".o.tmp-\(getpid())-living", ".o.old-\(dead)-aaaaaa", ".p.tmp-\(dead)-aaaaaa", "o"]
        for name in stale + kept where name != ".o.tmp-\(dead)-folder" { try Data().write(to: URL(fileURLWithPath: dir + "/" + name)) }
        try FileManager.default.createDirectory(atPath: dir + "/.o.tmp-\(dead)-folder/inner", withIntermediateDirectories: true)
        let fd = open(dir + "/.o.tmp-\(dead)-locked", O_RDONLY)
        defer { close(fd) }
        TemporaryPaths.hold(fd)
        TemporaryPaths.removeStale(in: dir, of: "o")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == kept.sorted())
    }
}
