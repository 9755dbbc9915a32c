import Foundation
import Testing

/// Spec/robustness.md §8.2: only regular files are read as files. FIFOs, sockets and devices —
/// given directly, through a symlink, as a table file or as Properties.plist — are refused at once
/// (exit 2, "not a regular file") by every command; before, a FIFO blocked every command forever.
struct RegularFileTests {
    static let fixture = CLITests.fixtures.appendingPathComponent("nulls.daBriefcase").path

    /// Each command on `path`, under `timeout` so a regression fails instead of hanging the suite.
    static func everyCommand(on path: String, in directory: URL) throws -> [(String, CLITests.Result)] {
        try ["info", "validate", "cat --table Mixed", "convert --force -q OUT"].map { command in
            let words = command.split(separator: " ").map(String.init)
            let arguments = [words[0], "'\(path)'"] + words.dropFirst().map { $0 == "OUT" ? "'\(directory.path)/out.json'" : $0 }
            return (command, try CLITests.shell("timeout 20 \"$BRIEFCASE\" \(arguments.joined(separator: " "))", in: directory))
        }
    }

    static func expectRefused(_ path: String, _ reason: String, in directory: URL, naming name: String) throws {
        for (command, result) in try everyCommand(on: path, in: directory) {
            #expect(result.status == 2, "\(command) \(path) → \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("\(name): not a regular file (\(reason))"), "\(command) \(path): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(command) \(path): one line")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("out.json").path))
    }

    @Test func fifosSocketsAndDevicesAreRefusedAtOnce() throws {
        let dir = try CLITests.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(mkfifo(dir.appendingPathComponent("pipe").path, 0o600) == 0)
        #expect(mkfifo(dir.appendingPathComponent("pipe.daBriefcase").path, 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("link.json").path, withDestinationPath: "pipe")
        #expect(Self.bindSocket(at: dir.appendingPathComponent("s.daBriefcase").path), "cannot make a socket: \(String(cString: strerror(errno)))")
        try Self.expectRefused("pipe", "a FIFO", in: dir, naming: "pipe")
        try Self.expectRefused("pipe.daBriefcase", "a FIFO", in: dir, naming: "pipe.daBriefcase")
        try Self.expectRefused("link.json", "a FIFO", in: dir, naming: "link.json")
        try Self.expectRefused("s.daBriefcase", "a socket", in: dir, naming: "s.daBriefcase")
        try Self.expectRefused("/dev/zero", "a character device", in: dir, naming: "/dev/zero")
        try Self.expectRefused("/dev/null", "a character device", in: dir, naming: "/dev/null")
    }

    /// Binds a Unix-domain socket at `path` (left there when the descriptor is closed), as
    /// `socket.socket(AF_UNIX).bind(path)` does; false when it cannot.
    static func bindSocket(at path: String) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        if descriptor < 0 { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        if bytes.count >= MemoryLayout.size(ofValue: address.sun_path) { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        } == 0
    }

    @Test func aFIFOInsideAFolderIsRefusedAtOnce() throws {
        let dir = try CLITests.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (folder, fifo) in [("tables.briefcase", "Orders.daBriefcase"), ("props.briefcase", "Properties.plist")] {
            let path = dir.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Self.fixture, toPath: path.appendingPathComponent("Mixed.daBriefcase").path)
            #expect(mkfifo(path.appendingPathComponent(fifo).path, 0o600) == 0)
            try Self.expectRefused(folder, "a FIFO", in: dir, naming: "\(folder)/\(fifo)")
        }
    }

    /// A dangling Properties.plist symlink: convert used to skip it (exit 0) where validate said
    /// it cannot be opened (exit 2); now every command gives validate's answer.
    @Test func aDanglingPropertiesSymlinkGetsOneAnswer() throws {
        let dir = try CLITests.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let folder = dir.appendingPathComponent("x.briefcase")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: folder.appendingPathComponent("Mixed.daBriefcase").path)
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("Properties.plist").path, withDestinationPath: "gone.plist")
        for (command, result) in try Self.everyCommand(on: "x.briefcase", in: dir) {
            #expect(result.status == 2, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("x.briefcase/Properties.plist: no such file (a symbolic link to nothing)"), "\(command): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.json").path))
    }
}
