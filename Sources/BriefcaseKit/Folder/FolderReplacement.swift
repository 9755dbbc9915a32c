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
/// (`foreignEntry(in:)`): replacing removes the old folder with everything in it. The caller
/// checks that before it writes anything; what was taken out of the destination is checked again
/// once it is out (anything may have been put there meanwhile), and put back unless it is a
/// folder briefcase: nothing is removed that was not checked.
package enum FolderReplacement {
    /// The renames a replacement uses; tests pass failing ones to check what a failure leaves.
    package struct Renames: Sendable {
        /// Swaps the paths `a` and `b` in one step; false where it cannot.
        package var exchange: @Sendable (_ a: String, _ b: String) -> Bool
        /// Renames `from` to `to`, where nothing may be; false on failure (errno EEXIST when
        /// something is there).
        package var move: @Sendable (_ from: String, _ to: String) -> Bool

        /// Renames made of the two functions.
        package init(exchange: @escaping @Sendable (String, String) -> Bool, move: @escaping @Sendable (String, String) -> Bool) {
            self.exchange = exchange
            self.move = move
        }

        /// The system's renames: an atomic exchange where the system has one (Linux, Darwin), and
        /// a rename that never replaces (`briefcase_rename_noreplace`).
        package static let system = Renames(exchange: { briefcase_exchange_paths(systemPath($0), systemPath($1)) == 0 },
                                           move: { briefcase_rename_noreplace(systemPath($0), systemPath($1)) == 0 })
    }

    /// Moves the folder at `finished` to `destination`. Without `replacing`, only where nothing
    /// is: something there (before, or put there meanwhile) is `BriefcaseError.outputExists`.
    /// With it, what is there is replaced — if, once taken out, it is a folder briefcase (a file,
    /// a link or a folder holding anything else is put back, and the replacement refused). On
    /// return the destination holds the new folder and nothing else is left; on a throw it holds
    /// exactly what it held before, and `finished` is still in place for the caller to remove.
    package static func replace(_ destination: String, with finished: String, replacing: Bool = true,
                               renames: Renames = .system) throws(BriefcaseError) {
        if !replacing || !FileIO.exists(destination) {
            if renames.move(finished, destination) { return }
            guard errno == EEXIST, replacing, FileIO.exists(destination) else {
                throw errno == EEXIST ? BriefcaseError.outputExists(destination) : FileIO.ioError("cannot move the new folder into place", destination)
            }
            // Something appeared there meanwhile: replaced as below, if it may be.
        }
        if renames.exchange(finished, destination) {
            // The old one is under the temporary name now: removed only if it is what was checked.
            guard let refusal = refusal(of: finished, at: destination) else { return removeTree(finished) }
            guard renames.exchange(finished, destination) else {
                let aside = sibling(of: destination, tag: "old")
                _ = renames.move(finished, aside)
                throw BriefcaseError(.io, "\(refusal.message), and it could not be put back: it is at '\(aside)'", file: destination)
            }
            throw refusal
        }
        // No atomic exchange here: the old folder goes aside, the new one in, the old one back on failure.
        let aside = sibling(of: destination, tag: "old")
        guard renames.move(destination, aside) else { throw FileIO.ioError("cannot move the old folder aside", destination) }
        let refused = refusal(of: aside, at: destination)
        guard refused == nil, renames.move(finished, destination) else {
            let error = refused ?? FileIO.ioError("cannot move the new folder into place (the old one was kept)", destination)
            guard renames.move(aside, destination) else {
                throw BriefcaseError(.io, "cannot move the new folder into place, nor the old one back: it is at '\(aside)'", file: destination)
            }
            throw error
        }
        removeTree(aside)
    }

    /// Why what was taken out of `destination` (now at `path`) may not be removed — it is not a
    /// folder, or holds what a folder briefcase does not — or nil when it may.
    static func refusal(of path: String, at destination: String) -> BriefcaseError? {
        var info = stat()
        guard lstat(systemPath(path), &info) == 0 else { return nil }  // (nothing to remove)
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            return BriefcaseError(.io, "was replaced by something that is not a folder while the conversion ran; it is not replaced", file: destination)
        }
        do throws(BriefcaseError) {
            guard let foreign = try foreignEntry(in: path) else { return nil }
            return BriefcaseError(.io, "is not a folder briefcase (it holds '\(foreign)'); it is not replaced", file: destination)
        } catch {
            return error
        }
    }

    /// A hidden path next to `path` for a folder in the making or on its way out:
    /// `.NAME.TAG-UUID` in the same directory (so that renames between them are atomic).
    package static func sibling(of path: String, tag: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent().path + "/." + url.lastPathComponent + "." + tag + "-" + UUID().uuidString
    }

    /// The first entry (in name order) of the directory at `path` that a folder briefcase does
    /// not have: anything but `Properties.plist`, table files (`*.daBriefcase`, files or links to
    /// them) and the hidden temporary files our own writes leave (`.NAME.tmp-XXXXXX`) or Finder's
    /// `.DS_Store`. Nil when the directory holds only those, so that replacing it loses nothing
    /// but a briefcase.
    package static func foreignEntry(in path: String) throws(BriefcaseError) -> String? {
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
    package static func removeTree(_ path: String) {
        FileIO.removeTree(path)
    }
}
