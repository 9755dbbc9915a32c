/// Elements of a stream replaced, dropped, or preceded by new ones: what a command writes in
/// place of its input's elements (`merge`: pending deltas replaced or added, tables' rows
/// stored). One plan, made alike of a document's elements (`applied(to:)`) and of a binary
/// briefcase's (`BriefcaseElements.edited(_:)`), so that the output is written from the input as
/// `convert` writes it — element by element, the elements not edited read from where they lie.
package struct ElementEdits: Sendable {
    /// What element i becomes, in order: new elements, and the element itself where nil. An
    /// element not here stays as it is; one given an empty list is dropped.
    package var byElement: [Int: [Element?]] = [:]

    package init() {}

    package var isEmpty: Bool { byElement.isEmpty }

    /// Element `i` replaced by `element`.
    package mutating func replace(_ i: Int, with element: Element) { byElement[i] = [element] }

    /// `element` put just before element `i` (kept).
    package mutating func insert(_ element: Element, before i: Int) { byElement[i] = [element, nil] }

    /// Element `i` left out.
    package mutating func drop(_ i: Int) { byElement[i] = [] }

    /// `elements` with the edits made.
    package func applied(to elements: [Element]) -> [Element] {
        guard !isEmpty else { return elements }
        return elements.indices.flatMap { i in byElement[i].map { $0.map { $0 ?? elements[i] } } ?? [elements[i]] }
    }
}

extension BriefcaseElements {
    /// The same briefcase with `edits` made: each new element encoded on its own into memory (a
    /// bare Bin2 stream of it, read as any element is), the others read from where they lie.
    package func edited(_ edits: ElementEdits) throws(BriefcaseError) -> BriefcaseElements {
        guard !edits.isEmpty else { return self }
        var result: [Stored] = []
        for (i, stored) in elements.enumerated() {
            guard let replacement = edits.byElement[i] else {
                result.append(stored)
                continue
            }
            for element in replacement {
                result.append(try element.map(Self.storedAlone) ?? stored)
            }
        }
        let edited = BriefcaseElements(path: path, container: container, properties: properties, headerPadding: headerPadding,
                                       elements: result)
        edited.containerWarnings = containerWarnings
        edited.folderCodePage = folderCodePage
        return edited
    }

    /// `element` as the one element of a bare Bin2 stream in memory.
    private static func storedAlone(_ element: Element) throws(BriefcaseError) -> Stored {
        let bytes = try BriefcaseDocument(container: .bin2, file: BriefcaseFile(stream: Bin2Stream(elements: [element]))).encode()
        return try BriefcaseElements(bytes: bytes, as: .bin2).elements[0]
    }
}
