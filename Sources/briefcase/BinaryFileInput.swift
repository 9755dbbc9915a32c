import BriefcaseKit

/// A binary briefcase (dabriefcase, bin2) on disk, read the way `convert` streams it: header and
/// index, then each element by offset (pread). Never one buffer of the file's size, so bytes
/// after the index — junk, a sparse tail of gigabytes — are not read (Spec/robustness.md §8.4).
enum BinaryFileInput {
    /// The document, or nil for the formats that are not binary. Standard input and gzip are
    /// spooled (inflated) into a temporary file first, which is then read the same way.
    static func load(_ path: String, format: FileFormat, encoding: CodePage?, announceEncoding: Bool) throws -> LoadedBriefcase? {
        guard let container = format.container else { return nil }
        let spooled = path == "-" || GzipInput.isGzipped(path) ? try GzipInput.spool(path, as: format) : nil
        do {
            return try withExtendedLifetime(spooled) {
                try load(spooled?.path ?? path, as: container, format: format, named: path, encoding: encoding, announceEncoding: announceEncoding)
            }
        } catch let error as BriefcaseError {
            throw spooled?.relabel(error) ?? error
        }
    }

    private static func load(_ path: String, as container: ContainerFormat, format: FileFormat, named name: String,
                             encoding: CodePage?, announceEncoding: Bool) throws -> LoadedBriefcase {
        var warnings: [DecodingWarning] = []
        let document = try BriefcaseElements.open(path, as: container).document(warnings: &warnings)
        let codePage = InputLoader.chooseCodePage(document, explicit: encoding, path: name, announce: announceEncoding)
        return LoadedBriefcase(path: name, format: format, document: document, codePage: codePage, warnings: warnings)
    }
}
