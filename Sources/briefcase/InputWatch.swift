import BriefcaseKit
import CSystemShims
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `convert` does about an input that another process changes while it is read
/// (Spec/robustness.md §8.13). Inputs are read through mappings (a JSON document, large elements
/// with several jobs): a file truncated under a mapping ends the process with SIGBUS, taken by
/// the handler installed here (`briefcase_fault_install`), which removes the temporary outputs
/// (`TemporaryPaths`, noted in static C memory) and prints one line naming the input. A file
/// rewritten in place without shrinking gives no signal: its status (size, modification and change
/// times) when the conversion starts is compared with its status before the output is moved
/// into place, and a difference refuses the conversion with the same line.
struct InputWatch {
    /// What the line says after the input's name.
    static let changed = "the input changed while it was read; nothing was written"

    /// The status compared: what any write, truncation or replacement of the file changes.
    struct Status: Equatable {
        var device: UInt64, inode: UInt64, size: Int64
        var modified: timespec, changed: timespec

        init(_ info: stat) {
            device = UInt64(truncatingIfNeeded: info.st_dev)
            inode = UInt64(truncatingIfNeeded: info.st_ino)
            size = Int64(info.st_size)
            #if canImport(Darwin)
            modified = info.st_mtimespec
            changed = info.st_ctimespec
            #else
            modified = info.st_mtim
            changed = info.st_ctim
            #endif
        }

        static func == (a: Status, b: Status) -> Bool {
            a.device == b.device && a.inode == b.inode && a.size == b.size
                && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
                && a.changed.tv_sec == b.changed.tv_sec && a.changed.tv_nsec == b.changed.tv_nsec
        }
    }

    let input: String
    /// A single file: kept open, so that its own status is compared even if its name is reused.
    private var descriptor: Int32 = -1
    /// The files watched (a folder's: every file in it, by path) and their status at the start.
    private var files: [(path: String, status: Status)] = []

    /// Installs the SIGBUS handler (exit 2), with a line for an input not yet named.
    static func installFaultHandler() {
        briefcase_fault_set_message("briefcase: an input file changed while it was read; nothing was written")
        _ = briefcase_fault_install(2)
    }

    /// Starts watching `input` (nothing for standard input, which no one else can change), and
    /// names it in the line the SIGBUS handler prints.
    init(_ input: String, format: FileFormat) {
        self.input = input
        guard input != "-" else { return }
        briefcase_fault_set_message("briefcase: " + BriefcaseError(.io, Self.changed, file: input).description)
        var info = stat()
        if format == .folder {
            // The files the folder's reader reads: its table files and Properties.plist.
            let names = FileIO.directoryEntries(input) ?? []
            for name in names.sorted() where !name.hasPrefix(".")
                && (name == Briefcase.propertiesFileName || name.lowercased().hasSuffix("." + Briefcase.fileExtension.lowercased()))
                && stat(systemPath(input + "/" + name), &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG {
                files.append((input + "/" + name, Status(info)))
            }
        } else if stat(systemPath(input), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
            descriptor = open(systemPath(input), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
            if descriptor >= 0, fstat(descriptor, &info) == 0 { files.append((input, Status(info))) }
        }
    }

    /// Throws (`.io`, naming the input) when a file watched is not as it was.
    func check() throws(BriefcaseError) {
        for (path, status) in files {
            var info = stat()
            let now = descriptor >= 0 ? fstat(descriptor, &info) : stat(systemPath(path), &info)
            guard now == 0, Status(info) == status else { throw BriefcaseError(.io, Self.changed, file: input) }
        }
    }

    /// Stops watching.
    func stop() {
        if descriptor >= 0 { close(descriptor) }
    }
}
