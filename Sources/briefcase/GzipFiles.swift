import ArgumentParser
import BriefcaseJSON
import BriefcaseKit

/// gzip around any single-file format (../shared/cli-contract.md): a trailing `.gz` on INPUT or
/// OUTPUT means gzip around the format its name gives without the `.gz` (`x.json.gz` is JSON,
/// `x.daBriefcase.gz` a single-file briefcase). Inputs are also recognised by their first two
/// bytes (1f 8b), which none of the formats starts with: that is how standard input is read.
/// `--from` / `--to` name the format inside; gzip is still decided by the name (or content).
enum GzipInput {
    /// The bytes of an input, decompressed when it is gzip.
    struct Bytes {
        var bytes: [UInt8]
        var gzipped: Bool

        /// Runs a decoder over the bytes. When they were decompressed, its errors say that their
        /// offsets are in the decompressed data.
        func decoding<T, E: Error>(_ decode: ([UInt8]) throws(E) -> T) throws(E) -> T {
            do {
                return try decode(bytes)
            } catch {
                guard gzipped, var located = error as? BriefcaseError, located.offset != nil else { throw error }
                located.message += " (offset in the decompressed data)"
                throw (located as any Error) as! E
            }
        }
    }

    /// True when `path` names a gzip file: a `.gz` name, or a file starting with 1f 8b.
    /// (Standard input cannot be looked at twice: `read` tells for it.)
    static func isGzipped(_ path: String) -> Bool {
        if path == "-" { return false }
        if Gzip.hasSuffix(path) { return true }
        return (try? Gzip.hasMagic(FileIO.readPrefix(path, count: 2))) ?? false
    }

    /// The whole input, inflated when it is gzip. Standard input and gzip files are not read
    /// whole first: they are spooled (`spool`), so memory stays bounded while they arrive and a
    /// bomb or an endless stream is refused as it comes.
    static func read(_ path: String, as format: FileFormat?) throws(BriefcaseError) -> Bytes {
        guard path == "-" || isGzipped(path) else { return Bytes(bytes: try FileIO.read(path), gzipped: false) }
        let spooled = try spool(path, as: format)
        return Bytes(bytes: try spooled.readAll(), gzipped: spooled.gzipped)
    }

    /// Standard input or a gzip file copied (inflated) chunk by chunk into an unlinked temporary
    /// file (Spec/robustness.md §8.3), which readers then map or read by offset. Reading stops at
    /// the first byte `format` cannot have (a signature, JSON's structure); gzip stops as soon as
    /// the ratio limit is crossed. Standard input is gzip when it starts with 1f 8b.
    static func spool(_ path: String, as format: FileFormat?) throws(BriefcaseError) -> SpooledInput {
        try SpooledInput(path, gzip: path == "-" ? nil : true, shape: format?.spoolShape ?? .any)
    }

    /// The first `count` bytes of the content of an existing file: decompressed when it is gzip.
    static func readPrefix(_ path: String, count: Int) throws(BriefcaseError) -> [UInt8] {
        isGzipped(path) ? try Gzip.readPrefix(path, count: count) : try FileIO.readPrefix(path, count: count)
    }

    /// A folder briefcase is a directory: there is no gzip of it.
    static func refuseFolder(_ format: FileFormat, _ path: String) throws {
        if format == .folder && path != "-" && Gzip.hasSuffix(path) {
            throw ValidationError("'\(path)': a folder briefcase cannot be gzipped; use a single-file format (e.g. .daBriefcase.gz or .json.gz) or drop the .gz")
        }
        if format == .sqlite && (path == "-" || Gzip.hasSuffix(path)) {
            throw ValidationError("'\(path)': an SQLite database is read and written in place: not gzipped, not standard input or output")
        }
    }
}

enum GzipOutput {
    /// True when `path` asks for gzip (a `.gz` name; never standard output).
    static func wanted(_ path: String) -> Bool {
        path != "-" && Gzip.hasSuffix(path)
    }
}

extension FileFormat {
    /// What a document of this format can start or go on with, for `GzipInput.spool`.
    var spoolShape: SpoolShape {
        switch self {
        case .dabriefcase: return .prefix(Array("DABRC".utf8))
        case .bin2: return .prefix(Array("DABIN200".utf8))
        case .json, .snapshot: return .json
        case .folder, .sqlite: return .any
        }
    }
}
