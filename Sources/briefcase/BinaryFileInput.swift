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
        let elements = try BriefcaseElements.open(path, as: container)
        var stream = Bin2Stream()
        var warnings: [DecodingWarning] = []
        for i in elements.elements.indices {
            stream.elements.append(try elements.decode(i, warnings: &warnings))
        }
        // After the elements' warnings, as `BriefcaseFileCodec.decode` reports them.
        warnings += elements.containerWarnings
        let file = BriefcaseFile(properties: elements.properties, stream: stream, headerPadding: elements.headerPadding)
        let document = BriefcaseDocument(container: container, file: file)
        let codePage = InputLoader.chooseCodePage(document, explicit: encoding, path: name, announce: announceEncoding)
        return LoadedBriefcase(path: name, format: format, document: document, codePage: codePage, warnings: warnings)
    }
}
