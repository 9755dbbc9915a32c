import BriefcaseKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The command line as the process got it, file names that are not UTF-8 included.
///
/// `CommandLine.arguments` repairs bytes that are not UTF-8 into U+FFFD, so `briefcase info
/// $'a\xFF.json'` would open `a\u{FFFD}.json`: another file, or none. The raw `argv` is read
/// instead; when an argument is not UTF-8, each of its bytes outside valid UTF-8 stands as a
/// private-use character that `systemPath(_:)` turns back into the byte at every system call,
/// and that messages show as `\xFF` (`SystemPath`, Spec/robustness.md §9.4). Valid arguments are
/// read as they are, and then nothing stands for bytes at all.
enum CommandArguments {
    /// Every argument (the program's name first), or a message refusing them: the absurd case of
    /// an argument that is not UTF-8 next to one that already holds a character of the range that
    /// would stand for its bytes (the two could not be told apart when opening files).
    static func read() -> Result<[String], UsageError> {
        var arguments: [String] = []
        var replaced = false, clash: String?
        for i in 0 ..< Int(CommandLine.argc) {
            guard let pointer = CommandLine.unsafeArgv[i] else { continue }
            let count = strlen(pointer)
            let decoded = pointer.withMemoryRebound(to: UInt8.self, capacity: count) {
                SystemPath.decode(UnsafeBufferPointer(start: $0, count: count))
            }
            arguments.append(decoded.text)
            replaced = replaced || decoded.replaced
            if decoded.holdsStandIns && clash == nil { clash = decoded.text }
        }
        guard replaced else { return .success(arguments) }
        if let clash {
            return .failure(UsageError("'\(clash)' holds a character of U+10FE80…U+10FEFF, which stands for a byte that is not UTF-8 when another argument has one; rename the file"))
        }
        SystemPath.standForBytes()
        return .success(arguments)
    }
}
