/// A single-file briefcase or a bare Bin2 stream as a sink (`BriefcaseStreamWriter`): written as
/// the elements come, as `container` (nil: the one the head names); `abandon` empties the output.
public struct BinarySink<Output: BriefcaseStreamOutput>: BriefcaseSink {
    /// The output while no writer holds it (before `begin`, after `finish` or `abandon`).
    public private(set) var output: Output
    /// The container to write; nil: the one the head names.
    public let container: ContainerFormat?
    private var writer: BriefcaseStreamWriter<Output>?

    /// A sink writing a binary briefcase into `output`, as `container` or as the head says.
    public init(output: Output, container: ContainerFormat? = nil) {
        self.output = output
        self.container = container
    }

    /// Starts the output: a single file's header and properties, or a bare stream's start.
    public mutating func begin(_ head: BriefcaseHead) throws(BriefcaseError) {
        if let resetFailure { throw resetFailure }
        writer = try BriefcaseStreamWriter(output: output, container: container ?? head.container,
                                           properties: head.properties, headerPadding: head.headerPadding)
    }

    /// Writes one element.
    public mutating func element(_ element: Element) throws(BriefcaseError) {
        try writer!.write(element)
    }

    /// Each element encoded on the thread that decoded or parsed it, as if at position 0, into
    /// memory an element written before used (`Bin2Encoder.encodeAhead`); the rows are not
    /// needed afterwards. The bytes are those `element(_:)` writes, the schema end moved.
    public func elementPreparation() -> ElementPreparation<Result<EncodedBin2Element, BriefcaseError>>? {
        let memory = encodedMemory
        return ElementPreparation(needsRows: false) { element in
            do throws(BriefcaseError) {
                return Result<EncodedBin2Element, BriefcaseError>.success(try Bin2Encoder.encodeAhead(element, into: memory.take()))
            } catch {
                return Result<EncodedBin2Element, BriefcaseError>.failure(error)
            }
        }
    }

    /// Writes an element encoded on another thread (its head is enough), in its turn.
    public mutating func element(_ element: Element, prepared encoded: Result<EncodedBin2Element, BriefcaseError>,
                                 at position: Int) throws(BriefcaseError) {
        try writer!.write(encoded: encoded, kind: element.kind, name: element.name)
        if case .success(let done) = encoded { encodedMemory.giveBack(done.bytes) }
    }

    /// The memory of elements encoded ahead, used again by the next ones.
    private let encodedMemory = ByteArrayPool()

    /// Writes the element index and completes the output.
    public mutating func finish() throws(BriefcaseError) {
        try writer!.finish()
        output = writer!.output
        writer = nil
    }

    /// Forgets what was written, so that the source can begin again.
    public mutating func abandon() {
        if let writer { output = writer.output }
        writer = nil
        do throws(BriefcaseError) { try output.reset() } catch { resetFailure = error }
    }

    /// An output that could not be emptied for a new start (it cannot begin again).
    private var resetFailure: BriefcaseError?
}
