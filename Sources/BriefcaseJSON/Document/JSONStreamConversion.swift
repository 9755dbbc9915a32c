import BriefcaseKit

/// json → dabriefcase / bin2 element by element: `JSONStreamReader` hands each element to a
/// `BriefcaseStreamWriter`, so memory holds the input bytes (mapped by the caller) and one element.
public enum JSONStreamConversion {
    /// Converts the document in `bytes` into `output` as `container` (nil: the one it names).
    /// `consumed` is called after each element with the input offset it ends at.
    public static func convert<Output: BriefcaseStreamOutput>(
        _ bytes: UnsafeRawBufferPointer, to output: inout Output, as container: ContainerFormat? = nil,
        consumed: ((Int) -> Void)? = nil
    ) throws(BriefcaseError) {
        var reader = JSONStreamReader(bytes)
        reader.consumed = consumed
        var sink = BinarySink(output: output, container: container)
        defer { output = sink.output }
        try reader.read(into: &sink)
    }

    /// Writes elements as they come, as `container` (nil: the one the head names).
    struct BinarySink<Output: BriefcaseStreamOutput>: BriefcaseSink {
        /// The output while no writer holds it (before `begin`, after `finish` or `abandon`).
        var output: Output
        let container: ContainerFormat?
        var writer: BriefcaseStreamWriter<Output>?

        init(output: Output, container: ContainerFormat?) {
            self.output = output
            self.container = container
        }

        mutating func begin(_ head: BriefcaseHead) throws(BriefcaseError) {
            writer = try BriefcaseStreamWriter(output: output, container: container ?? head.container,
                                               properties: head.properties, headerPadding: head.headerPadding)
        }

        mutating func element(_ element: Element) throws(BriefcaseError) {
            try writer!.write(element)
        }

        mutating func finish() throws(BriefcaseError) {
            try writer!.finish()
            output = writer!.output
            writer = nil
        }

        mutating func abandon() {
            if let writer { output = writer.output }
            writer = nil
            try? output.reset()
        }
    }
}
