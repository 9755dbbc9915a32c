import Foundation

extension CLITests {
    /// Runs `script` with /bin/sh, the built executable in `$BRIEFCASE`, for what only a shell can
    /// arrange: closed descriptors, /dev/full, resource limits (`ulimit`), FIFOs.
    static func shell(_ script: String, in directory: URL? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        var environment = ProcessInfo.processInfo.environment
        environment["BRIEFCASE"] = executable.path
        process.environment = environment
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        final class Box: @unchecked Sendable { var data = Data() }
        let stderrBox = Box()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { stderrBox.data = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: [UInt8](stdoutData), stderr: String(decoding: stderrBox.data, as: UTF8.self))
    }
}
