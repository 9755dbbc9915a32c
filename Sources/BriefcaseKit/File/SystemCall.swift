#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The C library's calls under names that the `read`/`write` methods of the types calling them do
// not shadow (swift-nio's idiom): taken once here, whichever module — Glibc, Musl, Darwin — holds them.
private let sysRead = read
private let sysWrite = write

/// `read(2)` and `write(2)` for types whose own `read`/`write` hide the C library's.
package enum SystemCall {
    package static func read(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        sysRead(descriptor, buffer, count)
    }

    package static func write(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
        sysWrite(descriptor, buffer, count)
    }

    /// Writes all of `bytes` to `descriptor` (a write interrupted by a signal goes on); false when
    /// the descriptor refuses them.
    package static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = sysWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            offset += n
        }
        return true
    }
}
