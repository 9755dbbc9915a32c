extension BriefcaseDocument {
    /// The document as a source: its elements into `sink`, in the order the sink asks for, with
    /// `codePage` as the head's (a decoded document does not know it: the caller detected it or
    /// was told). On an error the sink is abandoned.
    public func read<Sink: BriefcaseSink>(into sink: inout Sink, codePage: CodePage) throws(BriefcaseError) {
        let elements = file.stream.elements
        do throws(BriefcaseError) {
            let order = sink.needs.headsFirst ? try sink.prepare(heads: elements.map(\.head)) : nil
            try sink.begin(BriefcaseHead(container: container, codePage: codePage, properties: file.properties,
                                         headerPadding: file.headerPadding))
            for position in order ?? Array(elements.indices) {
                try sink.element(elements[position], at: position)
            }
            try sink.finish()
        } catch {
            sink.abandon()
            throw error
        }
    }
}
