import JSONCore
import BriefcaseJSON
import BriefcaseKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything the commands print to standard output goes through `write`, which reports a failed
/// write (a full disk, a closed descriptor) as an error, so the command exits 2 instead of
/// pretending it succeeded (Spec/robustness.md §8.9). A broken pipe still ends the process quietly
/// through SIGPIPE, as `cat` and `jq` do.
enum StandardOutput {
    /// Call once, first thing. Descriptors 0–2 that the caller closed (`>&-`) are taken by
    /// /dev/null, so no file we open later becomes "standard output" by accident. Descriptor 1 is
    /// opened read-only: every write to it then fails with EBADF, as it would on the closed one.
    static func protectStandardDescriptors() {
        for (fd, mode) in [(Int32(0), O_RDONLY), (1, O_RDONLY), (2, O_WRONLY)] where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            let opened = open("/dev/null", mode | O_CLOEXEC)
            if opened >= 0 && opened != fd {
                dup2(opened, fd)
                close(opened)
            }
        }
    }

    static func write(_ text: String) throws(BriefcaseError) {
        var output = try AtomicOutput(path: "-")
        try output.write(Array(text.utf8))
    }
}

/// Standard output for the JSON writer and the row printers.
struct StandardOutputSink: ByteSink {
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
        var output = try AtomicOutput(path: "-")
        try output.write(bytes)
    }
}
