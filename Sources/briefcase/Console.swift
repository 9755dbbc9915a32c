#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard error, one line per message.
enum Console {
    static func error(_ message: String) {
        write("briefcase: " + message + "\n")
    }

    static func warning(_ message: String) {
        write("briefcase: warning: " + message + "\n")
    }

    static func note(_ message: String) {
        write("briefcase: note: " + message + "\n")
    }

    /// Writes `text` as it is (a failure to write to standard error cannot be reported anywhere).
    static func write(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                #if canImport(Glibc)
                let n = Glibc.write(2, buffer.baseAddress! + offset, buffer.count - offset)
                #else
                let n = Darwin.write(2, buffer.baseAddress! + offset, buffer.count - offset)
                #endif
                if n <= 0 { return }
                offset += n
            }
        }
    }
}
