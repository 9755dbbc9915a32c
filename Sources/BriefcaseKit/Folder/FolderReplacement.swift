import CSystemShims
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Puts a finished folder briefcase in the place of an existing one without ever losing either:
/// the two swap names in one step where the system can (renameat2 RENAME_EXCHANGE); elsewhere
/// the old folder is moved aside, the new one moved in, and the old one put back if that fails.
/// Only a folder that holds nothing but a folder briefcase's files may be replaced
/// (`foreignEntry(in:)`): replacing removes the old folder with everything in it.
public enum FolderReplacement {
    /// The renames a replacement uses; tests pass failing ones to check what a failure leaves.
    public struct Renames: Sendable {
        /// Swaps the paths `a` and `b` in one step; false where it cannot.
        public var exchange: @Sendable (_ a: String, _ b: String) -> Bool
        /// Renames `from` to `to`; false on failure.
        public var move: @Sendable (_ from: String, _ to: String) -> Bool

        /// Renames made of the two functions.
        public init(exchange: @escaping @Sendable (String, String) -> Bool, move: @escaping @Sendable (String, String) -> Bool) {
            self.exchange = exchange
            self.move = move
        }

        /// The system's renames: an atomic exchange where the system has one (Linux, Darwin), and `rename`.
        public static let system = Renames(exchange: { briefcase_exchange_paths(systemPath($0), systemPath($1)) == 0 },
                                           move: { rename(systemPath($0), systemPath($1)) == 0 })
    }

    /// Moves the folder at `finished` to `destination`, replacing what is there. On return the
    /// destination holds the new folder and nothing else is left; on a throw it holds exactly
    /// what it held before, and `finished` is still in place for the caller to remove.
    public static func replace(_ destination: String, with finished: String, renames: Renames = .system) throws(BriefcaseError) {
        guard FileIO.exists(destination) else {
            guard renames.move(finished, destination) else { throw FileIO.ioError("cannot move the new folder into place", destination) }
            return
        }
        if renames.exchange(finished, destination) {
            removeTree(finished) // the old briefcase, under the temporary name now
            return
        }
        // No atomic exchange here: the old folder goes aside, the new one in, the old one back on failure.
        let aside = sibling(of: destination, tag: "old")
        guard renames.move(destination, aside) else { throw FileIO.ioError("cannot move the old folder aside", destination) }
        guard renames.move(finished, destination) else {
            let error = FileIO.ioError("cannot move the new folder into place (the old one was kept)", destination)
            guard renames.move(aside, destination) else {
                throw BriefcaseError(.io, "cannot move the new folder into place, nor the old one back: it is at '\(aside)'", file: destination)
            }
            throw error
        }
        removeTree(aside)
    }

    /// A hidden path next to `path` for a folder in the making or on its way out:
    /// `.NAME.TAG-UUID` in the same directory (so that renames between them are atomic).
    public static func sibling(of path: String, tag: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent().path + "/." + url.lastPathComponent + "." + tag + "-" + UUID().uuidString
    }

    /// The first entry (in name order) of the directory at `path` that a folder briefcase does
    /// not have: anything but `Properties.plist`, table files (`*.daBriefcase`, files or links to
    /// them) and the hidden temporary files our own writes leave (`.NAME.tmp-XXXXXX`) or Finder's
    /// `.DS_Store`. Nil when the directory holds only those, so that replacing it loses nothing
    /// but a briefcase.
    public static func foreignEntry(in path: String) throws(BriefcaseError) -> String? {
        guard let names = FileIO.directoryEntries(path) else { throw FileIO.ioError("cannot list the folder", path) }
        for name in names.sorted() {
            var info = stat()
            guard lstat(systemPath(path + "/" + name), &info) == 0 else { return name }
            let type = info.st_mode & S_IFMT
            let isFile = type == S_IFREG || type == S_IFLNK
            let lower = name.lowercased()
            let known = name == Briefcase.propertiesFileName || name == ".DS_Store"
                || (lower.hasSuffix("." + Briefcase.fileExtension.lowercased()) && !name.hasPrefix("."))
                || (name.hasPrefix(".") && name.contains(".tmp-"))
            if !(isFile && known) { return name }
        }
        return nil
    }

    /// Removes a directory and everything in it, as well as it can (a failure leaves a hidden
    /// folder behind, never the destination in doubt).
    public static func removeTree(_ path: String) {
        FileIO.removeTree(path)
    }
}
