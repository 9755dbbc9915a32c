#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import JSONCore
import Synchronization

/// Paths as the system takes them: bytes, which need not be UTF-8.
///
/// A Linux file name is any bytes but `/` and NUL; a Swift `String` holds only Unicode. The
/// command line's arguments reach Swift repaired (`CommandLine.arguments` turns every byte that
/// is not UTF-8 into U+FFFD), so a name such as `a\xFF.json` would become another name, and the
/// tool would open the wrong file or none. Instead, when some argument is not UTF-8, the tool
/// reads the raw arguments and lets each byte that is not part of valid UTF-8 stand as one
/// character of a range no argument holds otherwise — U+10FE80…U+10FEFF, private use in plane 16
/// (byte `b` is U+10FE00 + `b`; only 0x80…0xFF can be out of UTF-8) — and turns those back into
/// the exact bytes wherever a path reaches the system (`systemPath(_:)`). Paths made from such a
/// path (a temporary file beside it, a table file inside it) keep the characters, and names the
/// system gives back (`readdir`, `mkstemp`, `realpath`) are read the same way (`string(_:)`).
/// `TerminalText` shows each of them as `\xHH` (Spec/robustness.md §9.4).
///
/// The mapping is off until `standForBytes()` is called (by the command line tool, before any
/// thread starts, only when an argument was not UTF-8): a library user's paths are UTF-8 as
/// given, and those characters mean themselves.
package enum SystemPath {
    /// Byte `b` (0x80…0xFF) stands as U+10FE00 + `b`.
    static let base: UInt32 = 0x10FE00

    private static let mapping = Atomic<Bool>(false)

    /// True once `standForBytes()` was called: the characters U+10FE80…U+10FEFF stand for bytes.
    package static var standsForBytes: Bool { mapping.load(ordering: .relaxed) }

    /// Turns the mapping on, for the rest of the process.
    package static func standForBytes() { mapping.store(true, ordering: .relaxed) }

    /// The byte `scalar` stands for, when the mapping is on and it stands for one.
    @inline(__always)
    package static func byte(standingFor scalar: Unicode.Scalar) -> UInt8? {
        guard scalar.value &- (base + 0x80) < 0x80, standsForBytes else { return nil }
        return UInt8(truncatingIfNeeded: scalar.value &- base)
    }

    /// `path` as NUL-terminated bytes for a system call (pass it where a `char *` is taken): its
    /// UTF-8, with each character that stands for a byte turned back into that byte.
    package static func bytes(_ path: String) -> [CChar] {
        // Only the lead byte 0xF4 starts one of those characters: other paths are their UTF-8.
        guard standsForBytes, path.utf8.contains(0xF4) else { return Array(path.utf8CString) }
        var bytes: [CChar] = []
        bytes.reserveCapacity(path.utf8.count + 1)
        for scalar in path.unicodeScalars {
            if let byte = byte(standingFor: scalar) {
                bytes.append(CChar(bitPattern: byte))
            } else {
                for unit in UTF8.encode(scalar)! { bytes.append(CChar(bitPattern: unit)) }
            }
        }
        bytes.append(0)
        return bytes
    }

    /// A name the system gave back (bytes up to a NUL or the end), as a path string: while the
    /// mapping is on, bytes that are not UTF-8 become the characters standing for them (so the
    /// name reaches the same file again); otherwise they are repaired to U+FFFD.
    package static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let end = bytes.firstIndex(of: 0) ?? bytes.endIndex
        let name = UnsafeBufferPointer(rebasing: bytes[..<end])
        guard standsForBytes else { return String(decoding: name, as: UTF8.self) }
        return decode(name).text
    }

    /// A C string the system gave back, as `string(_:)` reads it.
    package static func string(cString: UnsafePointer<CChar>) -> String {
        cString.withMemoryRebound(to: UInt8.self, capacity: strlen(cString)) {
            string(UnsafeBufferPointer(start: $0, count: strlen(cString)))
        }
    }

    /// Bytes read as UTF-8, each byte that is not part of a well-formed sequence (Unicode §3.9,
    /// table 3-7) standing as its character: `replaced` tells whether any did, `holdsStandIns`
    /// whether the well-formed text itself holds one of those characters (then the bytes cannot
    /// be told apart from it, and the caller refuses them).
    package static func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> (text: String, replaced: Bool, holdsStandIns: Bool) {
        if UTF8Validation.isValid(bytes) {
            let text = String(decoding: bytes, as: UTF8.self)
            return (text, false, bytes.contains(0xF4) && text.unicodeScalars.contains { $0.value &- (base + 0x80) < 0x80 })
        }
        var scalars = String.UnicodeScalarView()
        var replaced = false, holds = false
        var i = 0
        while i < bytes.count {
            let length = wellFormedLength(bytes, at: i)
            if length == 0 {
                scalars.append(Unicode.Scalar(base + UInt32(bytes[i]))!)
                replaced = true
                i += 1
                continue
            }
            let scalar = String(decoding: UnsafeBufferPointer(rebasing: bytes[i ..< i + length]), as: UTF8.self).unicodeScalars.first!
            if scalar.value &- (base + 0x80) < 0x80 { holds = true }
            scalars.append(scalar)
            i += length
        }
        return (String(scalars), replaced, holds)
    }

    /// `path` for a text that cannot carry bytes (JSON): each character standing for a byte becomes
    /// U+FFFD, as `CommandLine.arguments` would have it.
    package static func repaired(_ path: String) -> String {
        guard standsForBytes, path.utf8.contains(0xF4) else { return path }
        return String(String.UnicodeScalarView(path.unicodeScalars.map { byte(standingFor: $0) == nil ? $0 : "\u{FFFD}" }))
    }

    /// The length of the well-formed UTF-8 sequence starting at `i`, or 0.
    static func wellFormedLength(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> Int {
        let lead = bytes[i]
        if lead < 0x80 { return 1 }
        let count: Int
        var second: ClosedRange<UInt8> = 0x80 ... 0xBF
        switch lead {
        case 0xC2 ... 0xDF: count = 2
        case 0xE0: count = 3; second = 0xA0 ... 0xBF
        case 0xE1 ... 0xEC, 0xEE ... 0xEF: count = 3
        case 0xED: count = 3; second = 0x80 ... 0x9F
        case 0xF0: count = 4; second = 0x90 ... 0xBF
        case 0xF1 ... 0xF3: count = 4
        case 0xF4: count = 4; second = 0x80 ... 0x8F
        default: return 0
        }
        guard bytes.count - i >= count, second.contains(bytes[i + 1]) else { return 0 }
        for k in 2 ..< count where !(0x80 ... 0xBF).contains(bytes[i + k]) { return 0 }
        return count
    }
}

/// `path` as the system takes it: NUL-terminated bytes, each character that stands for a byte
/// of a name that is not UTF-8 turned back into that byte (`SystemPath`). Every system call that
/// takes a path (open, stat, lstat, rename, unlink, mkstemp, mkdir, rmdir, opendir, realpath,
/// truncate, SQLite's open) takes it through this function.
package func systemPath(_ path: String) -> [CChar] { SystemPath.bytes(path) }
