import ArgumentParser
import BriefcaseKit
import Foundation

struct GitSetupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "git-setup",
        abstract: "Make git show briefcases by row (git diff, git log -p, git blame) and merge them (git merge).",
        discussion: """
        In the git repository of the current directory: adds to its .gitattributes (at the top of \
        the work tree) the lines that mark *.daBriefcase, *.daBriefcase.gz and *.bin2 files \
        diff=briefcase (a folder briefcase's table files are .daBriefcase files; its \
        Properties.plist is text already), and sets in the repository's own configuration \
        diff.briefcase.textconv to this program's textconv command and diff.briefcase.cachetextconv \
        to true. It also marks *.daBriefcase and *.bin2 files merge=briefcase and sets \
        merge.briefcase.driver to this program's merge (%O %A %B: git's ancestor, ours and theirs; \
        theirs is REMOTE, so a field both branches changed takes theirs unless a rule says \
        otherwise; Spec/merge.md), and marks *.snapshot.json files merge=briefcase-snapshot, the \
        same merge reading datastore snapshots (git's temporary files have no extension). Lines and settings already there are left as they are: running \
        it again changes nothing. It says what it did. With --external, git diff also runs this program's row-level \
        diff (git-diff) through diff.briefcase.command; git log -p and git blame keep the textconv \
        lines (git diff --no-ext-diff too).

        Examples:
          briefcase git-setup
          git diff HEAD~1 -- Orders.daBriefcase
        """
    )

    @Flag(help: "Also make git diff print briefcase diff's rows (diff.briefcase.command).")
    var external = false

    func run() throws {
        let root = try Self.git(["rev-parse", "--show-toplevel"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let attributes = root + "/.gitattributes"
        let existing = FileManager.default.contents(atPath: attributes).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let present = Set(existing.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) })
        let missing = Self.attributeLines.filter { !present.contains($0) }
        if missing.isEmpty {
            try StandardOutput.write(".gitattributes: already marks briefcases diff=briefcase and merge=briefcase\n")
        } else {
            var text = existing.isEmpty || existing.hasSuffix("\n") ? "" : "\n"
            text += missing.joined(separator: "\n") + "\n"
            try Self.append(text, to: attributes)
            try StandardOutput.write(".gitattributes: added \(missing.joined(separator: ", "))\n")
        }
        var settings = [("diff.briefcase.textconv", Self.program + " textconv"), ("diff.briefcase.cachetextconv", "true"),
                        ("merge.briefcase.name", "briefcase three-way merge"),
                        ("merge.briefcase.driver", Self.program + " merge %O %A %B -o %A --force"),
                        ("merge.briefcase-snapshot.name", "briefcase three-way merge of datastore snapshots"),
                        ("merge.briefcase-snapshot.driver", Self.program + " merge --from snapshot %O %A %B -o %A --force")]
        if external { settings.append(("diff.briefcase.command", Self.program + " git-diff")) }
        for (key, value) in settings {
            let current = (try? Self.git(["config", "--local", "--get", key]))?.trimmingCharacters(in: .newlines)
            if current == value {
                try StandardOutput.write("git config \(key): already \(value)\n")
            } else {
                _ = try Self.git(["config", "--local", key, value])
                try StandardOutput.write("git config \(key) = \(value)\n")
            }
        }
    }

    static let attributeLines = ["*.daBriefcase diff=briefcase", "*.daBriefcase.gz diff=briefcase", "*.bin2 diff=briefcase",
                                 "*.daBriefcase merge=briefcase", "*.bin2 merge=briefcase", "*.snapshot.json merge=briefcase-snapshot"]

    /// This program as git should run it: its absolute path when it was run by one (quoted for the
    /// shell git runs textconv with), else its name, found on PATH.
    static var program: String {
        let invoked = CommandLine.arguments[0]
        guard invoked.contains("/") else { return "briefcase" }
        let absolute = URL(fileURLWithPath: invoked).standardizedFileURL.resolvingSymlinksInPath().path
        return "'" + absolute.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Appends `text` to the file (made when missing); what is there is never rewritten.
    static func append(_ text: String, to path: String) throws {
        guard let handle = FileHandle(forWritingAtPath: path) ?? (FileManager.default.createFile(atPath: path, contents: nil) ? FileHandle(forWritingAtPath: path) : nil) else {
            throw BriefcaseError(.io, "cannot write", file: path)
        }
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
    }

    /// Runs git with `arguments`; its standard output, or an error with what it said.
    static func git(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git"] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        do { try process.run() } catch { throw BriefcaseError(.io, "cannot run git: \(error.localizedDescription)") }
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let said = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = String(decoding: said, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw BriefcaseError(.io, "git \(arguments.joined(separator: " ")): \(message.isEmpty ? "exit \(process.terminationStatus)" : message)")
        }
        return String(decoding: output, as: UTF8.self)
    }
}
