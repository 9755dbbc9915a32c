/// The containers a briefcase's data can travel in.
public enum ContainerFormat: String, Sendable, CaseIterable {
    /// `DABRC600` single file: properties + Bin2 stream.
    case dabriefcase
    /// A bare `DABIN200` stream (no properties).
    case bin2
}

/// A briefcase held in memory with the container it came in, so it can be written back the same way.
public struct BriefcaseDocument: Hashable, Sendable {
    public var container: ContainerFormat
    /// For `.bin2`, `properties` and `headerPadding` are empty.
    public var file: BriefcaseFile

    public init(container: ContainerFormat, file: BriefcaseFile) {
        self.container = container
        self.file = file
    }

    /// Decodes `bytes` as `container`.
    public static func decode(_ bytes: [UInt8], as container: ContainerFormat, warnings: inout [DecodingWarning]) throws(BriefcaseError) -> BriefcaseDocument {
        switch container {
        case .dabriefcase:
            return BriefcaseDocument(container: .dabriefcase, file: try BriefcaseFileCodec.decode(bytes, warnings: &warnings))
        case .bin2:
            var decoder = Bin2Decoder(bytes: bytes)
            let stream = try decoder.decodeStream()
            warnings += decoder.warnings
            return BriefcaseDocument(container: .bin2, file: BriefcaseFile(stream: stream))
        }
    }

    /// Encodes in `container` (default: the one it came in). Properties cannot travel in `.bin2`.
    public func encode(as container: ContainerFormat? = nil) throws(BriefcaseError) -> [UInt8] {
        switch container ?? self.container {
        case .dabriefcase:
            return try BriefcaseFileCodec.encode(file)
        case .bin2:
            guard file.properties.isEmpty, file.headerPadding.isEmpty else {
                throw BriefcaseError(.invalidModel, "a bare Bin2 stream cannot hold the \(file.properties.count) briefcase properties; convert to dabriefcase, folder or json instead")
            }
            return try Bin2Encoder.encode(file.stream)
        }
    }
}
