/// The containers a briefcase's data can travel in.
public enum ContainerFormat: String, Sendable, CaseIterable {
    /// `DABRC600` single file: properties + Bin2 stream.
    case dabriefcase
    /// A bare `DABIN200` stream (no properties).
    case bin2
}

/// A briefcase held in memory with the container it came in, so it can be written back the same way.
public struct BriefcaseDocument: Hashable, Sendable {
    /// The container it was read from, or is to be written as.
    public var container: ContainerFormat
    /// For `.bin2`, `properties` and `headerPadding` are empty.
    public var file: BriefcaseFile

    /// A document of `file`'s properties and elements, in `container`.
    public init(container: ContainerFormat, file: BriefcaseFile) {
        self.container = container
        self.file = file
    }
}
