#if canImport(Glibc)
import Glibc
#endif
import BriefcaseKit
import JSONCore
import Foundation

/// Clocks, resource usage and child processes: the measuring side of the benchmark.
enum System {
    /// CLOCK_MONOTONIC in nanoseconds.
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// CPU time (user + system) of this process in nanoseconds.
    static func cpuTime(children: Bool = false) -> UInt64 {
        var usage = rusage()
        getrusage(children ? RUSAGE_CHILDREN.rawValue : RUSAGE_SELF.rawValue, &usage)
        func ns(_ t: timeval) -> UInt64 { UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_usec) * 1000 }
        return ns(usage.ru_utime) + ns(usage.ru_stime)
    }

    /// Peak resident set size in bytes (`ru_maxrss` is in KiB on Linux).
    static func peakRSS(children: Bool = false) -> Int {
        var usage = rusage()
        getrusage(children ? RUSAGE_CHILDREN.rawValue : RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss) * 1024
    }

    /// The path of the running executable (the bench re-executes itself for each measurement).
    static var executablePath: String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Runs `arguments[0]` with `arguments`, standard output captured (standard error passed
    /// through, or to /dev/null with `quietErrors`). Returns the exit status and what it printed.
    static func run(_ arguments: [String], stdoutTo path: String? = nil, quietErrors: Bool = false) -> (status: Int32, output: String) {
        var pipeFDs: [Int32] = [0, 0]
        if path == nil { precondition(pipe(&pipeFDs) == 0, "pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let path {
            posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        } else {
            posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
            posix_spawn_file_actions_addclose(&actions, pipeFDs[0])
            posix_spawn_file_actions_addclose(&actions, pipeFDs[1])
        }
        if quietErrors { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        argv.append(nil)
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ)
        if path == nil { close(pipeFDs[1]) }
        guard spawned == 0 else {
            if path == nil { close(pipeFDs[0]) }
            return (127, "cannot start \(arguments[0]): \(String(cString: strerror(spawned)))")
        }
        var output: [UInt8] = []
        if path == nil {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(pipeFDs[0], $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                output += chunk[0..<n]
            }
            close(pipeFDs[0])
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exitCode: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (exitCode, String(decoding: output, as: UTF8.self))
    }

    /// Removes a file or a folder tree (scratch outputs).
    static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    static func fileSize(_ path: String) -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else { return 0 }
        return Int(info.st_size)
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// Writes to standard error.
    static func log(_ text: String) {
        FileHandle.standardError.write((text + "\n").data(using: .utf8)!)
    }

    static func fail(_ text: String) -> Never {
        log("briefcase-bench: " + text)
        exit(2)
    }
}

/// A `ByteSink` into a file as `briefcase convert` writes one (`AtomicOutput`: a temporary file
/// written behind to disk as it grows, fsync'd and renamed into place by `close()`), so that the
/// figures are the CLI's, disk included.
struct FileSink {
    let output: SharedAtomicOutput
    let path: String

    init(path: String) {
        self.path = path
        do { output = try SharedAtomicOutput(path: path, replacing: true) } catch { System.fail("cannot create \(path): \(error)") }
    }

    func write(_ buffer: UnsafeRawBufferPointer) {
        do { try output.append(buffer) } catch { System.fail("\(error)") }
    }

    /// Flushes the file to disk and puts it in its place.
    func close() {
        do { try output.commit() } catch { System.fail("\(error)") }
    }
}

/// Sizes like `10MB`, `1GB`, `512KB`, `300000000` (decimal units: 1 MB = 10^6 bytes).
func parseSize(_ text: String) -> Int? {
    let upper = text.uppercased().trimmingCharacters(in: .whitespaces)
    let units: [(String, Double)] = [("GIB", 1_073_741_824), ("MIB", 1_048_576), ("KIB", 1024), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3), ("G", 1e9), ("M", 1e6), ("K", 1e3), ("B", 1)]
    for (suffix, factor) in units where upper.hasSuffix(suffix) {
        guard let number = Double(upper.dropLast(suffix.count)) else { return nil }
        return Int(number * factor)
    }
    return Int(upper)
}

/// `10MB`, `1GB`, … for a size that `parseSize` read.
func sizeLabel(_ bytes: Int) -> String {
    if bytes >= 1_000_000_000 && bytes % 1_000_000_000 == 0 { return "\(bytes / 1_000_000_000)GB" }
    if bytes >= 1_000_000 && bytes % 1_000_000 == 0 { return "\(bytes / 1_000_000)MB" }
    if bytes >= 1_000 && bytes % 1_000 == 0 { return "\(bytes / 1_000)KB" }
    return "\(bytes)B"
}
