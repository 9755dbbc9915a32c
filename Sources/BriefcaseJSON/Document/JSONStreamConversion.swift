import BriefcaseKit

/// json → dabriefcase / bin2 element by element: `JSONStreamReader` hands each element to a
/// `BriefcaseStreamWriter`, so memory holds the input bytes (mapped by the caller) and one element.
public enum JSONStreamConversion {
    /// Converts the document in `bytes` into `output` as `container` (nil: the one it names).
    /// `consumed` is called after each element with the input offset it ends at; `jobs` and
    /// `scanned` are the reader's (`JSONStreamReader.jobs`: elements parsed at once).
    public static func convert<Output: BriefcaseStreamOutput>(
        _ bytes: UnsafeRawBufferPointer, to output: inout Output, as container: ContainerFormat? = nil,
        jobs: Int = 1, consumed: ((Int) -> Void)? = nil, scanned: (@Sendable (Range<Int>) -> Void)? = nil
    ) throws(BriefcaseError) {
        var reader = JSONStreamReader(bytes)
        reader.jobs = jobs
        reader.consumed = consumed
        reader.scanned = scanned
        var sink = BinarySink(output: output, container: container)
        defer { output = sink.output }
        try reader.read(into: &sink)
    }
}
