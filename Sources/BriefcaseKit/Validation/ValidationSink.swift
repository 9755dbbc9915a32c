/// `validate` as a sink: every check that needs no bytes, on the elements a source hands over
/// (a JSON document as it is read, a model). The checks that compare elements with each other
/// (names, deltas against their tables) and the code page of the names in messages need them all,
/// so they run at `finish`, which makes the report.
package struct ValidationSink: BriefcaseSink {
    /// The path validated (for the report).
    public let path: String
    /// The format validated, as the report names it.
    public let format: String
    private let options: ValidationOptions
    private var run: ValidationRun
    /// After `finish`.
    public private(set) var report: ValidationReport?

    /// `options.codePage` (nil: detected from the elements) names things in messages; the code
    /// page a source names is not used.
    public init(path: String, format: String, options: ValidationOptions = ValidationOptions()) {
        self.path = path
        self.format = format
        self.options = options
        run = ValidationRun(options: options)
    }

    /// Checks and keeps the head.
    public mutating func begin(_ head: BriefcaseHead) throws(BriefcaseError) {
        run = ValidationRun(options: options)
        report = nil
        run.addHead(head)
    }

    /// Checks one element.
    public mutating func element(_ element: Element) throws(BriefcaseError) {
        run.addElement(element)
    }

    /// Runs the checks across elements and completes the report.
    public mutating func finish() throws(BriefcaseError) {
        report = run.finish(path: path, format: format)
    }

    /// Forgets what was received.
    public mutating func abandon() {
        run = ValidationRun(options: options)
        report = nil
    }
}
