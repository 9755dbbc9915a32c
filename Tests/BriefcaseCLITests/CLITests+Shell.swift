import Foundation

extension CLITests {
    /// Runs `script` with /bin/sh, the built executable in `$BRIEFCASE`, for what only a shell can
    /// arrange: closed descriptors, /dev/full, resource limits (`ulimit`), FIFOs.
    static func shell(_ script: String, in directory: URL? = nil) throws -> Result {
        try run(["-c", script], program: URL(fileURLWithPath: "/bin/sh"), environment: ["BRIEFCASE": executable.path], directory: directory)
    }
}
