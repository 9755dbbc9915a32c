import BriefcaseKit

/// A binary briefcase (dabriefcase, bin2) on disk, read the way `convert` streams it: header and
/// index, then each element by offset (pread). Never one buffer of the file's size, so bytes
/// after the index — junk, a sparse tail of gigabytes — are not read (Spec/robustness.md §8.4).
enum BinaryFileInput {
    /// The document, or nil for what cannot be read by offset (standard input, gzip, other
    /// formats), which `InputLoader` reads whole.
    static func load(_ path: String, format: FileFormat, encoding: CodePage?, announceEncoding: Bool) throws -> LoadedBriefcase? {
        guard let container = format.container, path != "-", !GzipInput.isGzipped(path) else { return nil }
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
        let codePage = InputLoader.chooseCodePage(document, explicit: encoding, path: path, announce: announceEncoding)
        return LoadedBriefcase(path: path, format: format, document: document, codePage: codePage, warnings: warnings)
    }
}
