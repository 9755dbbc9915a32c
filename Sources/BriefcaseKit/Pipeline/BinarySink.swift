/// A single-file briefcase or a bare Bin2 stream as a sink (`BriefcaseStreamWriter`): written as
/// the elements come, as `container` (nil: the one the head names); `abandon` empties the output.
public struct BinarySink<Output: BriefcaseStreamOutput>: BriefcaseSink {
    /// The output while no writer holds it (before `begin`, after `finish` or `abandon`).
    public private(set) var output: Output
    public let container: ContainerFormat?
    private var writer: BriefcaseStreamWriter<Output>?

    public init(output: Output, container: ContainerFormat? = nil) {
        self.output = output
        self.container = container
    }

    public mutating func begin(_ head: BriefcaseHead) throws(BriefcaseError) {
        if let resetFailure { throw resetFailure }
        writer = try BriefcaseStreamWriter(output: output, container: container ?? head.container,
                                           properties: head.properties, headerPadding: head.headerPadding)
    }

    public mutating func element(_ element: Element) throws(BriefcaseError) {
        try writer!.write(element)
    }

    public mutating func finish() throws(BriefcaseError) {
        try writer!.finish()
        output = writer!.output
        writer = nil
    }

    public mutating func abandon() {
        if let writer { output = writer.output }
        writer = nil
        do throws(BriefcaseError) { try output.reset() } catch { resetFailure = error }
    }

    /// An output that could not be emptied for a new start (it cannot begin again).
    private var resetFailure: BriefcaseError?
}
