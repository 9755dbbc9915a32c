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
        var consumer = Consumer(output: output, container: container)
        try reader.read(into: &consumer)
        guard var writer = consumer.writer else {
            throw BriefcaseError(.invalidData, "internal: the document had no head")
        }
        try writer.finish()
        output = writer.output
    }

    /// Writes elements as they come; a second head starts the output over.
    struct Consumer<Output: BriefcaseStreamOutput>: JSONDocumentStreamConsumer {
        var output: Output?
        let container: ContainerFormat?
        var writer: BriefcaseStreamWriter<Output>?

        init(output: Output, container: ContainerFormat?) {
            self.output = output
            self.container = container
        }

        mutating func begin(_ head: JSONDocumentHead) throws(BriefcaseError) {
            var target: Output
            if let writer {
                target = writer.output
                self.writer = nil
                try target.reset()
            } else {
                target = output!
                output = nil
            }
            writer = try BriefcaseStreamWriter(output: target, container: container ?? head.container,
                                               properties: head.properties, headerPadding: head.headerPadding)
        }

        mutating func element(_ element: Element) throws(BriefcaseError) {
            try writer!.write(element)
        }
    }
}
