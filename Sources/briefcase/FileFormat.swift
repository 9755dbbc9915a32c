import ArgumentParser
import BriefcaseKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The formats of ../shared/cli-contract.md.
enum FileFormat: String, ExpressibleByArgument, CaseIterable {
    case dabriefcase, folder, bin2, json, snapshot, sqlite

    /// The format a path's extension names (`.snapshot.json` before `.json`), case-insensitively;
    /// a trailing `.gz` (gzip around the format) is looked through.
    static func fromExtension(_ path: String) -> FileFormat? {
        let lower = Gzip.removingSuffix(path).lowercased()
        var trimmed = lower
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        return extensions.first { ($0.format == .folder ? trimmed : lower).hasSuffix($0.suffix) }?.format
    }

    /// The extensions that name a format, lower case, the longer first where one ends another
    /// (`.snapshot.json` before `.json`); a folder's may be followed by `/`.
    static let extensions: [(suffix: String, format: FileFormat)] = [
        (".snapshot.json", .snapshot), (".json", .json), (".dabriefcase", .dabriefcase), (".bin2", .bin2),
        (".sqlite", .sqlite), (".db", .sqlite), (".briefcase", .folder),
    ]

    /// The format of an existing input: `--from`, else the extension, else a directory, else the
    /// first bytes.
    static func ofInput(_ path: String, explicit: FileFormat?) throws -> FileFormat {
        if let explicit { return explicit }
        if let format = fromExtension(path) {
            try GzipInput.refuseFolder(format, path)
            return format
        }
        var info = stat()
        guard stat(systemPath(path), &info) == 0 else { throw BriefcaseError(.io, "no such file", file: path) }
        if let format = try ofContent(path) { return format }
        throw ValidationError("cannot tell the format of '\(path)'; name it with --from (\(allCases.map(\.rawValue).joined(separator: ", ")))")
    }

    /// The format of an existing file or directory by what it is: a directory is a folder; a
    /// file, what its first bytes say (`sniff`; gzip looked through, SQLite by its signature).
    static func ofContent(_ path: String) throws(BriefcaseError) -> FileFormat? {
        var info = stat()
        if stat(systemPath(path), &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { return .folder }
        if try FileIO.readPrefix(path, count: 16).elementsEqual(Self.sqliteSignature) { return .sqlite }
        return sniff(try GzipInput.readPrefix(path, count: 8))  // gzip (1f 8b): what is inside
    }

    static func ofOutput(_ path: String, explicit: FileFormat?) throws -> FileFormat {
        if let format = explicit ?? fromExtension(path) {
            try GzipInput.refuseFolder(format, path)
            return format
        }
        throw ValidationError("cannot tell the output format from '\(path)'; name it with --to (\(allCases.map(\.rawValue).joined(separator: ", ")))")
    }

    /// The format a content's first bytes say, of those that say one in a few bytes (a JSON
    /// document by its `{` after white space); SQLite by its 16-byte signature: `ofInput`
    /// reads that apart, from the file itself (an SQLite database is never gzip).
    static func sniff(_ head: [UInt8]) -> FileFormat? {
        if head.starts(with: Array("DABRC".utf8)) { return .dabriefcase }
        if head.starts(with: Array("DABIN200".utf8)) { return .bin2 }
        if head.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{") { return .json }
        return nil
    }

    /// The first 16 bytes of every SQLite 3 database.
    static let sqliteSignature = Array("SQLite format 3\0".utf8)

    var container: ContainerFormat? {
        switch self {
        case .dabriefcase: return .dabriefcase
        case .bin2: return .bin2
        default: return nil
        }
    }
}
